import AlbumCore
import AlbumSample
import Foundation
import XCTest

/// `-o desktop_thumbnails`: a listed folder's photos get thumbnails where file managers look
/// (the freedesktop specification), which GIO, as GNOME's and Xfce's file managers use it, finds
/// valid for the files in the mount.
final class DesktopThumbnailTests: XCTestCase {
    var source: SampleSource!
    var home: String!

    override func setUpWithError() throws {
        source = try SampleSource()
        home = makeTempFolder("desktop-cache")
    }

    override func tearDown() {
        source?.remove()
        if let home { try? FileManager.default.removeItem(atPath: home) }
    }

    /// What `gio info` says of a file's thumbnail, as a file manager asks it.
    func gioThumbnail(_ path: String) -> (path: String?, valid: Bool) {
        let r = runCommand("/usr/bin/gio", ["info", "-a", "thumbnail::path,thumbnail::is-valid", path], environment: ["XDG_CACHE_HOME": home, "HOME": home])
        let lines = r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let found = lines.first { $0.hasPrefix("thumbnail::path: ") }.map { String($0.dropFirst("thumbnail::path: ".count)) }
        return (found, lines.contains("thumbnail::is-valid: TRUE"))
    }

    /// The specification's name: the MD5 of the URI (Python's, beside albumfs's own).
    func md5(_ text: String) -> String {
        runCommand("/usr/bin/python3", ["-c", "import hashlib,sys; print(hashlib.md5(sys.argv[1].encode()).hexdigest(), end='')", text]).stdout
    }

    /// The URI GIO gives a path (`gio info` prints it).
    func uri(_ path: String) -> String {
        let r = runCommand("/usr/bin/gio", ["info", "-a", "standard::name", path], environment: ["XDG_CACHE_HOME": home, "HOME": home])
        return r.stdout.split(separator: "\n").first { $0.hasPrefix("uri: ") }.map { String($0.dropFirst(5)) } ?? ""
    }

    func testAListedFolderGetsThumbnailsFileManagersFindValid() throws {
        try SampleLibrary.writeFile(source.path + "/Big/wide.jpg", try Encoders.jpeg(.marker(width: 1000, height: 600)), mtime: SampleLibrary.defaultMtime)
        let mount = try Mount(source: source.path, options: ["-o", "desktop_thumbnails"], launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        XCTAssertNil(gioThumbnail(mount.path("non-screenshots/IMG_0001.JPG")).path, "none before the folder is listed")
        let names = try XCTUnwrap(readdirNames(mount.path("non-screenshots")))
        let shots = try XCTUnwrap(readdirNames(mount.path("screenshots")))
        // Normal and large for each, but the two with nothing to decode.
        let expected = 2 * (names.count + shots.count - ["empty.jpg", "truncated.jpg"].count)
        func made() -> Int {
            ["normal", "large"].reduce(0) { $0 + ((try? FileManager.default.contentsOfDirectory(atPath: self.home + "/thumbnails/" + $1))?
                .filter { $0.hasSuffix(".png") }.count ?? 0) }
        }
        XCTAssertTrue(eventually(60) { made() >= expected }, "\(made()) of \(expected)")
        // Names as the sample has them: plain, with blanks and a non-ASCII letter.
        let odd = try XCTUnwrap(shots.first { $0.contains(" ") && $0.unicodeScalars.contains { !$0.isASCII } }, "\(shots)")
        for path in ["non-screenshots/IMG_0001.JPG", "non-screenshots/orient-6.jpg", "non-screenshots/wide.jpg", "screenshots/" + odd] {
            let name = path
            let (thumb, valid) = gioThumbnail(mount.path(path))
            let path = try XCTUnwrap(thumb, "\(name): no thumbnail found")
            XCTAssertTrue(path.hasPrefix(home + "/thumbnails/"), path)
            XCTAssertTrue(valid, "\(name): GIO finds it valid (its URI and mtime)")
            var st = stat()
            XCTAssertEqual(stat(path, &st), 0)
            XCTAssertEqual(st.st_mode & 0o777, 0o600, "\(name): the specification's mode")
            let size = runCommand("/usr/bin/identify", ["-format", "%w %h", path]).stdout.split(separator: " ").compactMap { Int($0) }
            XCTAssertLessThanOrEqual(size.max() ?? .max, path.contains("/large/") ? 256 : 128, "\(name): fits its size: \(size)")
        }
        // A big photo fits each size, its shape kept; a small one is never enlarged.
        let normal = runCommand("/usr/bin/identify", ["-format", "%w %h", home + "/thumbnails/normal/" + md5(uri(mount.path("non-screenshots/wide.jpg"))) + ".png"])
        XCTAssertEqual(normal.stdout, "128 77")
        let large = runCommand("/usr/bin/identify", ["-format", "%w %h", home + "/thumbnails/large/" + md5(uri(mount.path("non-screenshots/wide.jpg"))) + ".png"])
        XCTAssertEqual(large.stdout, "256 154")
        let small = runCommand("/usr/bin/identify", ["-format", "%w %h", try XCTUnwrap(gioThumbnail(mount.path("non-screenshots/IMG_0001.JPG")).path)])
        XCTAssertEqual(small.stdout, "96 64")
        var st = stat()
        XCTAssertEqual(stat(home + "/thumbnails/normal", &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o700)
        // Upright: the sideways-stored photo's marker at the top left of its thumbnail.
        let marker = try XCTUnwrap(gioThumbnail(mount.path("non-screenshots/orient-6.jpg")).path)
        let png = try XCTUnwrap(DecodedImage(png: marker))
        let red = png.mean(x: 0..<max(1, png.width / 5), y: 0..<max(1, png.height / 5))
        XCTAssertGreaterThan(red.0, 170, "top-left is red \(red)")
        let status = daemonStatus(mount.mountpoint)
        XCTAssertEqual(status["desktop_thumbnails"], "\(made()) written, 0 failed", "the empty and the cut JPEG not tried")
        XCTAssertEqual(status["original_bytes_read"], "0", "albumfs' own reading is not counted")
        let original = try readFile(mount.path("non-screenshots/wide.jpg")).get()
        XCTAssertEqual(daemonStatus(mount.mountpoint)["original_bytes_read"], String(original.count))
        mount.finish()
    }

    /// Off by default: listing writes nothing into the user's cache.
    func testNothingIsWrittenByDefault() throws {
        let mount = try Mount(source: source.path, launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        XCTAssertNotNil(readdirNames(mount.path("non-screenshots")))
        XCTAssertNotNil(try? readFile(mount.path("thumbnails/200x200/IMG_0001.jpg")).get())
        usleep(500_000)
        XCTAssertFalse(FileManager.default.fileExists(atPath: home + "/thumbnails"))
        XCTAssertEqual(daemonStatus(mount.mountpoint)["desktop_thumbnails"], "off")
        mount.finish()
    }
}
