import AlbumCore
import AlbumSample
import Foundation
import Glibc
import XCTest

/// `by-camera/` of the sample library: every photo and video in the folder its camera names, as
/// exiftool reads the make and model from the files; newest first; the same file as in `by-date/`.
final class CameraViewTests: XCTestCase {
    var source: SampleSource!
    var mount: Mount!

    override func setUpWithError() throws {
        source = try SampleSource()
        mount = try Mount(source: source.path)
    }

    override func tearDown() {
        mount?.finish()
        source?.remove()
    }

    /// Make and model of the files `paths` (below `folder`), as exiftool reads them (EXIF, or a
    /// video's QuickTime keys), by path below the folder.
    static func exiftoolCameras(_ folder: String, _ paths: [String]) throws -> [String: (make: String?, model: String?)] {
        let run = runCommand("/usr/bin/env", ["exiftool", "-j", "-q", "-q", "-m", "-Make", "-Model"] + paths.map { folder + "/" + $0 },
                             timeout: 120)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]], String(run.stderr.prefix(500)))
        var out: [String: (make: String?, model: String?)] = [:]
        for row in rows {
            guard let file = row["SourceFile"] as? String else { continue }
            out[String(file.dropFirst(folder.count + 1))] = (row["Make"].map { "\($0)" }, row["Model"].map { "\($0)" })
        }
        return out
    }

    /// Every entry of `by-camera/`, by source path below SOURCE: (folder, name).
    func listedByCamera() -> [String: [(folder: String, name: String)]] {
        var out: [String: [(folder: String, name: String)]] = [:]
        for folder in readdirNames(mount.path("by-camera")) ?? [] {
            for name in readdirNames(mount.path("by-camera/" + folder)) ?? [] {
                let src = xattr(mount.path("by-camera/\(folder)/\(name)"), "user.albumfs.source") ?? ""
                out[String(src.dropFirst(source.path.count + 1)), default: []].append((folder, name))
            }
        }
        return out
    }

    func testEveryPhotoIsOnceUnderTheCameraItsMetadataNames() throws {
        let photos = source.items.filter { $0.expectedDay != nil }
        let cameras = try Self.exiftoolCameras(source.path, photos.filter { !$0.bytes.isEmpty }.map(\.path))
        XCTAssertEqual(cameras["Nikon/DSC_0001.JPG"]?.make, "NIKON CORPORATION", "exiftool reads the fixtures' makes")
        let listed = listedByCamera()
        var folders = Set<String>()
        for item in photos {
            // A Live Photo's motion part goes with its still; an empty file names no camera.
            let owner = item.expectedVideo ? item.expectedLivePartner ?? item.path : item.path
            let camera: (make: String?, model: String?) = item.bytes.isEmpty ? (nil, nil) : try XCTUnwrap(cameras[owner], "exiftool read \(owner)")
            let expected = CameraNames.folderName(make: camera.make, model: camera.model)
            let places = listed[item.path] ?? []
            XCTAssertEqual(places.map(\.folder), [expected], "\(item.path): make \(camera.make ?? "none"), model \(camera.model ?? "none")")
            folders.insert(expected)
        }
        XCTAssertEqual(listed.count, photos.count, "nothing else is listed")
        XCTAssertEqual(readdirNames(mount.path("by-camera")), folders.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        for name in ["Canon EOS 5D Mark IV", "Canon EOS R6", "Nikon D750", "Sony ILCE-7M3", "Fujifilm X-T4", "Google Pixel 8",
                     "Samsung SM-G991B", "Apple iPhone 15 Pro", "Unknown"] {
            XCTAssertTrue(folders.contains(name), "\(name) in \(folders.sorted())")
        }
        XCTAssertEqual(readdirNames(mount.path("by-camera/Nikon D750")), ["DSC_0001.JPG"])
    }

    /// Newest first in each folder (mtime = capture), folders' mtimes their newest photo's, and
    /// each entry the very file `by-date/` lists (one inode, two links: by-date and by-camera,
    /// three with a flat view).
    func testOrderTimesAndInodesAreThoseOfByDate() throws {
        var byDate: [String: stat] = [:]
        var pending = ["by-date"]
        while let f = pending.popLast() {
            for name in readdirNames(mount.path(f)) ?? [] {
                let st = try XCTUnwrap(statOf(mount.path(f + "/" + name)))
                if st.st_mode & S_IFMT == S_IFDIR { pending.append(f + "/" + name); continue }
                // (A motion photo's video names its still's file as its source; it is in no other view.)
                let path = mount.path(f + "/" + name)
                if xattr(path, "user.albumfs.format") == "video", xattr(path, "user.albumfs.motion_photo") != nil { continue }
                byDate[xattr(path, "user.albumfs.source") ?? ""] = st
            }
        }
        var checked = 0
        for folder in readdirNames(mount.path("by-camera")) ?? [] {
            let names = readdirNames(mount.path("by-camera/" + folder)) ?? []
            let stats = try names.map { try XCTUnwrap(statOf(mount.path("by-camera/\(folder)/\($0)"))) }
            let times = stats.map { Double($0.st_mtim.tv_sec) + Double($0.st_mtim.tv_nsec) / 1e9 }
            XCTAssertEqual(times, times.sorted(by: >), "\(folder): newest first")
            XCTAssertEqual(statOf(mount.path("by-camera/" + folder))?.st_mtim.tv_sec, stats.map(\.st_mtim.tv_sec).max(), folder)
            for (name, st) in zip(names, stats) {
                let src = xattr(mount.path("by-camera/\(folder)/\(name)"), "user.albumfs.source") ?? ""
                let dated = try XCTUnwrap(byDate[src], src)
                XCTAssertEqual(st.st_ino, dated.st_ino, "\(folder)/\(name) is \(src)'s file")
                XCTAssertEqual(st.st_nlink, dated.st_nlink, src)
                XCTAssertGreaterThanOrEqual(st.st_nlink, 2, src)
                checked += 1
            }
        }
        XCTAssertFalse(byDate.isEmpty, "by-date/ lists photos")
        XCTAssertEqual(checked, byDate.count, "every photo of by-date/ is in by-camera/")
        XCTAssertEqual(readdirNames(mount.path("by-camera/Canon EOS 5D Mark IV")), ["IMG_0002.JPG", "IMG_0001.JPG"])
    }

    /// A photo copied in shows under its camera within the live-update bound; removed, it goes,
    /// and its folder with it.
    func testAPhotoCopiedInShowsUnderItsCameraLive() throws {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 48, height: 32, tint: 90))
        let bytes = SampleJPEG.insertingAPP1(SampleExif.camera("OLYMPUS IMAGING CORP.", "E-M5", "2025:04:03 10:00:00").payload(), into: jpeg)
        let staged = source.path + "/.staged.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: staged, contents: Data(bytes)))
        let probe = runCommand("/usr/bin/env", ["exiftool", "-s3", "-Make", "-Model", staged])
        XCTAssertEqual(probe.stdout.split(separator: "\n"), ["OLYMPUS IMAGING CORP.", "E-M5"], "exiftool reads the fixture's camera")
        XCTAssertEqual(rename(staged, source.path + "/P4030001.JPG"), 0)
        let start = Date()
        XCTAssertTrue(eventually(5) { readdirNames(mount.path("by-camera/Olympus E-M5")) == ["P4030001.JPG"] },
                      "\(readdirNames(mount.path("by-camera")) ?? [])")
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5, "within the live-update bound")
        XCTAssertEqual(statOf(mount.path("by-camera/Olympus E-M5/P4030001.JPG"))?.st_ino,
                       statOf(mount.path("by-date/2025/2025-04/2025-04-03/P4030001.JPG"))?.st_ino)
        XCTAssertEqual(unlink(source.path + "/P4030001.JPG"), 0)
        XCTAssertTrue(eventually(5) { readdirNames(mount.path("by-camera"))?.contains("Olympus E-M5") == false })
    }
}
