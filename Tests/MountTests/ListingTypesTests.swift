import AlbumSystem
import Foundation
import Glibc
import XCTest

/// What `readdir` says of each entry's type (`d_type`, which `find -type` and file managers go
/// by without a `stat`) is what `lstat` says, in a listing long enough to take several
/// requests after the kernel's first (`readdirplus`): photos, folders, picks.
final class ListingTypesTests: SampleLibraryTestCase {
    /// Each entry of `path` but `.` and `..`, with its `d_type`, read in 4 KiB calls (after the
    /// first, a `readdirplus`, each one a `readdir` request while the kernel caches nothing).
    func readdirTypes(_ path: String) -> [(name: String, type: UInt8)] {
        (listingCalls(path, sizes: [4096]) ?? []).flatMap { zip($0.names, $0.types).map { (name: $0, type: $1) } }
    }

    func typeOf(_ path: String) -> UInt8? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: return UInt8(DT_DIR)
        case S_IFREG: return UInt8(DT_REG)
        case S_IFLNK: return UInt8(DT_LNK)
        default: return UInt8(DT_UNKNOWN)
        }
    }

    func testEveryEntrysTypeIsWhatLstatSays() throws {
        let big = state + "/big"
        let made = runCommand(albumfsBinary(), ["sample", big, "--count", "1500"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let m = try Mount(source: big, options: ["-o", "picks_db=" + state + "/picks.sqlite"])
        let flat = readdirTypes(m.path("non-screenshots"))
        XCTAssertGreaterThanOrEqual(flat.count, 1400, "a listing of many requests")
        let photo = try XCTUnwrap(flat.first?.name)
        XCTAssertEqual(symlink("../non-screenshots/" + photo, m.path("picked/mine.jpg")), 0, String(cString: strerror(errno)))
        var checked = 0
        for folder in ["", "non-screenshots", "by-date", "picked", ".albumfs"] {
            for (name, type) in readdirTypes(m.path(folder)) {
                XCTAssertEqual(type, typeOf(m.path(folder + "/" + name)), folder + "/" + name)
                checked += 1
            }
        }
        XCTAssertEqual(readdirTypes(m.path("picked")).map(\.type), [UInt8(DT_LNK)])
        XCTAssertGreaterThan(checked, flat.count + 5)
        m.finish()
    }
}
