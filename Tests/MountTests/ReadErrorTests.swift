import AlbumSample
import CSysXattr
import Foundation
import Glibc
import XCTest

/// Reading an original that vanished or cannot be read answers at once with ENOENT or EIO,
/// is logged once, and leaves every other file readable.
final class ReadErrorTests: XCTestCase {
    /// The file is removed and opened at once, well inside the live update's debounce: the
    /// open reaches the daemon, which finds the file gone (ENOENT, one line in the log); the
    /// reads after it get ENOENT too, from the daemon or from a tree that no longer lists it.
    func testVanishedOriginalGivesENOENTAndIsLoggedOnce() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        let path = mount.path("non-screenshots/DSC01234.JPG")
        XCTAssertNotNil(statOf(path), "listed")
        XCTAssertEqual(unlink(source.path + "/Sony/DSC01234.JPG"), 0)
        for _ in 0..<3 {
            let r = readAll(path)
            XCTAssertEqual(r.bytes, -1)
            XCTAssertEqual(r.errno, ENOENT)
        }
        XCTAssertEqual(readAll(mount.path("non-screenshots/DSCF0001.JPG")).errno, 0)
        XCTAssertTrue(eventually { statOf(path) == nil }, "the live update drops it")
        mount.finish(allowing: ["cannot open Sony/DSC01234.JPG"])
        XCTAssertEqual(mount.stderr.components(separatedBy: "cannot open Sony/DSC01234.JPG").count - 1, 1, mount.stderr)
    }

    func testUnreadableOriginalStaysListedAndGivesEIO() throws {
        let source = try SampleSource()
        defer { source.remove() }
        chmod(source.path + "/Fuji/DSCF0001.JPG", 0o000)
        // The daemon runs without root's read-anything capabilities, as an ordinary user would.
        let mount = try Mount(source: source.path, launcher: ["/usr/bin/setpriv", "--bounding-set", "-dac_override,-dac_read_search",
                                                              "--inh-caps", "-all"])
        // Listed with the file's mtime as its date, and the reason in its attributes.
        let path = mount.path("by-date/2018/2018-06/2018-06-01/DSCF0001.JPG")
        XCTAssertNotNil(statOf(path))
        XCTAssertTrue(xattr(path, "user.albumfs.problems")?.contains("Permission denied") ?? false)
        let r = readAll(path)
        XCTAssertEqual(r.errno, EIO)
        XCTAssertEqual(readAll(mount.path("non-screenshots/DSC01234.JPG")).errno, 0)
        XCTAssertTrue(((try? String(contentsOfFile: mount.path(".albumfs/errors"), encoding: .utf8)) ?? "").contains("Fuji/DSCF0001.JPG"))
        XCTAssertEqual(readAll(mount.path("thumbnails/200x200/DSCF0001.jpg")).errno, EIO)
        // Fixed by a chmod, which changes neither size, mtime nor inode: the file is read again
        // (a file that could not be read is never taken from the index as it was), and its date,
        // its bytes and the errors file follow.
        chmod(source.path + "/Fuji/DSCF0001.JPG", 0o644)
        let fixed = mount.path("by-date/2021/2021-01/2021-01-01/DSCF0001.JPG")
        XCTAssertTrue(eventually { statOf(fixed) != nil }, "dated by its EXIF once readable")
        XCTAssertNil(xattr(fixed, "user.albumfs.problems"))
        XCTAssertEqual(readAll(fixed).errno, 0)
        XCTAssertEqual(readAll(mount.path("thumbnails/200x200/DSCF0001.jpg")).errno, 0, "the thumbnail is tried again too")
        XCTAssertFalse(((try? String(contentsOfFile: mount.path(".albumfs/errors"), encoding: .utf8)) ?? "").contains("Fuji/DSCF0001.JPG"))
        mount.finish(allowing: ["cannot open Fuji/DSCF0001.JPG", "cannot make a thumbnail of Fuji/DSCF0001.JPG"])
    }
}
