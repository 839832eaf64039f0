import AlbumSample
import Foundation
import Glibc
import XCTest

/// The periodic rescan (`-o rescan`), the safety net under inotify and all there is for changes
/// made on a network share's server: folders whose times are unchanged since the last walk are
/// taken as they were; every `-o full_rescan` seconds every folder is listed.
final class PeriodicRescanTests: SampleLibraryTestCase {
    var indexPath: String { state + "/index.sqlite" }

    func camera(_ date: String) throws -> Data {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 48, height: 32, tint: 90))
        return Data(SampleJPEG.insertingAPP1(SampleExif.camera("Canon", "EOS R6", ExifTime(date)).payload(), into: jpeg))
    }

    /// The status's `last_scan_folders`: (listed, unchanged).
    func folders(_ mountpoint: String) -> (listed: Int, unchanged: Int)? {
        let words = (daemonStatus(mountpoint)["last_scan_folders"] ?? "").split(separator: " ")
        guard words.count == 4, let listed = Int(words[0]), let unchanged = Int(words[2]) else { return nil }
        return (listed, unchanged)
    }

    /// Waits until `count` more scans than now have ended.
    func waitForScans(_ mountpoint: String, _ count: Int) -> Bool {
        let now = Int(daemonStatus(mountpoint)["scans"] ?? "") ?? 0
        return eventually(Double(count) * 3 + 3) { (Int(daemonStatus(mountpoint)["scans"] ?? "") ?? 0) >= now + count }
    }

    /// Without inotify (`max_watches=0`), only the periodic rescan sees changes. Once the folders'
    /// times are older than the margin, it lists none of them; a photo added changes its folder's
    /// mtime and shows; a photo rewritten in place changes no folder's times and is not seen by
    /// such a rescan (the next full one sees it: below).
    func testARescanListsOnlyTheFoldersWhoseTimesChanged() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/REWRITE.JPG", contents: try camera("2011:11:11 11:11:11")))
        let m = try Mount(source: source.path, options: ["-o", "index=" + indexPath, "-o", "max_watches=0,rescan=1"])
        XCTAssertTrue(eventually(12) { self.folders(m.mountpoint)?.listed == 0 }, "\(daemonStatus(m.mountpoint))")
        XCTAssertGreaterThan(folders(m.mountpoint)?.unchanged ?? 0, 5)
        XCTAssertEqual(daemonStatus(m.mountpoint)["last_scan_changes"], "0 added, 0 changed, 0 moved, 0 removed")

        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Nikon/LATE.JPG", contents: try camera("2010:10:10 10:10:10")))
        XCTAssertTrue(eventually(6) { statOf(m.path("by-date/2010/2010-10/2010-10-10/LATE.JPG")) != nil })

        try rewriteInPlace(source.path + "/Trip/REWRITE.JPG", with: try camera("2012:12:12 12:12:12"))
        XCTAssertTrue(waitForScans(m.mountpoint, 3))
        XCTAssertNotNil(statOf(m.path("by-date/2011/2011-11/2011-11-11/REWRITE.JPG")), "not seen until a full rescan")
        XCTAssertNil(statOf(m.path("by-date/2012/2012-12/2012-12-12/REWRITE.JPG")))
        m.finish(allowing: ["max_watches limit"])
    }

    /// `-o full_rescan=0`: every periodic rescan lists every folder, and sees a photo rewritten in
    /// place.
    func testAFullRescanSeesAPhotoRewrittenInPlace() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/REWRITE.JPG", contents: try camera("2011:11:11 11:11:11")))
        let m = try Mount(source: source.path, options: ["-o", "index=" + indexPath, "-o", "max_watches=0,rescan=1,full_rescan=0"])
        XCTAssertTrue(waitForScans(m.mountpoint, 1))
        try rewriteInPlace(source.path + "/Trip/REWRITE.JPG", with: try camera("2012:12:12 12:12:12"))
        XCTAssertTrue(eventually(8) { statOf(m.path("by-date/2012/2012-12/2012-12-12/REWRITE.JPG")) != nil })
        XCTAssertNil(statOf(m.path("by-date/2011/2011-11/2011-11-11/REWRITE.JPG")))
        XCTAssertEqual(folders(m.mountpoint)?.unchanged, 0)
        XCTAssertGreaterThan(folders(m.mountpoint)?.listed ?? 0, 5)
        m.finish(allowing: ["max_watches limit"])
    }

    /// sshfs gives the server's folder times: a rescan takes unchanged folders as they were, and a
    /// photo added on the server (no inotify sees it) shows at the next rescan.
    func testOnSshfsUnchangedFoldersAreNotListedAndAPhotoAddedOnTheServerShows() throws {
        let share = try SshfsShare(serving: source.path, at: state + "/share", scratch: state, options: ["-o", "dir_cache=no"])
        defer { share.unmount() }
        let m = try Mount(source: share.path, options: ["-o", "index=" + indexPath, "-o", "rescan=1"])
        XCTAssertTrue(eventually(12) { self.folders(m.mountpoint)?.listed == 0 }, "\(daemonStatus(m.mountpoint))")
        XCTAssertGreaterThan(folders(m.mountpoint)?.unchanged ?? 0, 5)
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Nikon/LATE.JPG", contents: try camera("2010:10:10 10:10:10")))
        XCTAssertTrue(eventually(8) { statOf(m.path("by-date/2010/2010-10/2010-10-10/LATE.JPG")) != nil })
        m.finish()
    }

    /// An `rclone mount` may make folder times up (an object store has none): every rescan lists
    /// every folder there.
    func testOnAnRcloneMountEveryFolderIsListed() throws {
        let share = try RcloneShare(serving: source.path, at: state + "/share", scratch: state)
        defer { share.unmount() }
        let m = try Mount(source: share.path, options: ["-o", "index=" + indexPath, "-o", "rescan=1"])
        sleep(4)
        XCTAssertTrue(waitForScans(m.mountpoint, 1))
        XCTAssertEqual(folders(m.mountpoint)?.unchanged, 0, "\(daemonStatus(m.mountpoint))")
        XCTAssertGreaterThan(folders(m.mountpoint)?.listed ?? 0, 5)
        m.finish()
    }

    /// Writes `bytes` over the file at `path`, the same inode (its folder's times unchanged).
    func rewriteInPlace(_ path: String, with bytes: Data) throws {
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.truncateFile(atOffset: 0)
        handle.write(bytes)
        handle.closeFile()
    }
}
