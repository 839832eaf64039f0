import AlbumCore
@testable import AlbumIndex
import Foundation
import XCTest

/// A library that moved finds its old index by its files (MovedLibraryIndex).
final class MovedLibraryIndexTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-moved-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder + "/index", withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// Files in `root` (one per folder `f0`, `f1`, …), and an index at `index` that holds them as
    /// a scan would: identity and ctime from `stat`, the inode kept as 0 when `madeUpInodes`, no
    /// ctime when `withCtime` is false (rows of an index older than schema 7), photos of `format`.
    func library(_ root: String, folders: Int, index: String, madeUpInodes: Bool = false, withCtime: Bool = true,
                 format: ImageFormat = .jpeg) throws {
        var rows: [IndexedFile] = []
        for i in 0..<folders {
            let path = "f\(i)/IMG_\(i).JPG"
            try FileManager.default.createDirectory(atPath: root + "/f\(i)", withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: root + "/" + path, contents: Data("photo \(i)".utf8)))
            var st = stat()
            XCTAssertEqual(stat(root + "/" + path, &st), 0)
            let id = FileIdentity(inode: madeUpInodes ? 0 : UInt64(st.st_ino), size: Int64(st.st_size),
                                  mtime: Timestamp(seconds: Int64(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec)))
            let ctime = Timestamp(seconds: Int64(st.st_ctim.tv_sec), nanoseconds: Int(st.st_ctim.tv_nsec))
            rows.append(IndexedFile(relativePath: path, identity: id, kind: .photo(format, PhotoEvidence()), changedWhenRead: withCtime ? ctime : nil))
        }
        rows.append(IndexedFile(relativePath: "notes.txt", identity: FileIdentity(inode: 9, size: 1, mtime: Timestamp(seconds: 1)), kind: .ignored))
        let store = try LibraryIndex.openOrRebuild(path: index) { XCTFail($0) }
        try store.save(upserts: rows, removals: [])
    }

    func testTheIndexOfALibraryThatMovedIsCopied() throws {
        let old = folder + "/index/old.sqlite", new = folder + "/index/new.sqlite"
        try library(folder + "/Pictures", folders: 40, index: old)
        XCTAssertEqual(rename(folder + "/Pictures", folder + "/Photos"), 0)
        XCTAssertEqual(MovedLibraryIndex.copy(to: new, root: folder + "/Photos"), old)
        let copied = try LibraryIndex.openOrRebuild(path: new) { XCTFail($0) }
        XCTAssertEqual(try copied.loadAll().count, 41)
        XCTAssertEqual(try LibraryIndex.openOrRebuild(path: old) { XCTFail($0) }.loadAll().count, 41, "the original stays")
        XCTAssertNil(MovedLibraryIndex.copy(to: new, root: folder + "/Photos"), "never over an index that is there")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/index").filter { $0.contains("copying") }, [])
    }

    /// An iPhone's library, all HEIC (its rows `heif`), is known by its photos as well.
    func testALibraryOfHEICsThatMovedIsCopied() throws {
        let old = folder + "/index/old.sqlite", new = folder + "/index/new.sqlite"
        try library(folder + "/iPhone", folders: 5, index: old, format: .heif)
        XCTAssertEqual(rename(folder + "/iPhone", folder + "/Phone"), 0)
        XCTAssertEqual(MovedLibraryIndex.copy(to: new, root: folder + "/Phone"), old)
    }

    /// A candidate in use by a mount (rows only in its WAL yet) is copied whole.
    func testACandidateInUseIsCopiedWithItsWAL() throws {
        let old = folder + "/index/old.sqlite", new = folder + "/index/new.sqlite"
        try library(folder + "/lib", folders: 3, index: old)
        let live = try LibraryIndex.openOrRebuild(path: old) { XCTFail($0) }
        try live.save(upserts: [IndexedFile(relativePath: "late.txt", identity: FileIdentity(inode: 5, size: 1, mtime: Timestamp(seconds: 1)), kind: .ignored)],
                      removals: [])
        var st = stat()
        XCTAssertEqual(stat(old + "-wal", &st), 0)
        XCTAssertGreaterThan(st.st_size, 0, "the new row is in the WAL")
        XCTAssertEqual(MovedLibraryIndex.copy(to: new, root: folder + "/lib"), old)
        XCTAssertEqual(try LibraryIndex.openOrRebuild(path: new) { XCTFail($0) }.loadAll().count, 5)
        withExtendedLifetime(live) {}
    }

    func testAFewPhotosChangedSinceStillMatchMoreDoNot() throws {
        let old = folder + "/index/old.sqlite"
        try library(folder + "/lib", folders: 10, index: old)
        for i in 0..<MovedLibraryIndex.allowedMisses { unlink(folder + "/lib/f\(i)/IMG_\(i).JPG") }
        XCTAssertTrue(MovedLibraryIndex.holdsFiles(of: folder + "/lib", index: old))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/lib/f9/IMG_9.JPG", contents: Data("edited, longer".utf8)))
        XCTAssertFalse(MovedLibraryIndex.holdsFiles(of: folder + "/lib", index: old), "one more changed")
    }

    /// A file whose ctime moved since it was read (rewritten in place, or a new file on a reused
    /// inode) is not the one the index knows.
    func testTheCtimeKeptMustMatch() throws {
        let old = folder + "/index/old.sqlite"
        try library(folder + "/lib", folders: 6, index: old)
        XCTAssertTrue(MovedLibraryIndex.holdsFiles(of: folder + "/lib", index: old))
        usleep(20_000)
        for i in 0..<(MovedLibraryIndex.allowedMisses + 1) { XCTAssertEqual(chmod(folder + "/lib/f\(i)/IMG_\(i).JPG", 0o600), 0) }
        XCTAssertFalse(MovedLibraryIndex.holdsFiles(of: folder + "/lib", index: old))
    }

    /// Another library with the same names, sizes and mtimes but other files (`cp -a`) is not
    /// it; on a filesystem that makes inode numbers up (an SD card), size and mtime decide.
    func testInodesDecideWhereTheyAreReal() throws {
        let real = folder + "/index/real.sqlite", card = folder + "/index/card.sqlite"
        try library(folder + "/a", folders: 5, index: real)
        // (A card mounted elsewhere keeps its files' ctimes; the copy standing in for it here does not.)
        try library(folder + "/card", folders: 5, index: card, madeUpInodes: true, withCtime: false)
        XCTAssertEqual(runCommand("/bin/cp", ["-a", folder + "/a", folder + "/a-copy"]), 0)
        XCTAssertFalse(MovedLibraryIndex.holdsFiles(of: folder + "/a-copy", index: real))
        XCTAssertEqual(runCommand("/bin/cp", ["-a", folder + "/card", folder + "/card-elsewhere"]), 0)
        XCTAssertTrue(MovedLibraryIndex.holdsFiles(of: folder + "/card-elsewhere", index: card))
        XCTAssertFalse(MovedLibraryIndex.holdsFiles(of: folder + "/nothing", index: card))
        XCTAssertNil(MovedLibraryIndex.copy(to: folder + "/index/x.sqlite", root: folder + "/nothing"))
    }

    /// Not an albumfs index, or not SQLite at all: passed over.
    func testForeignFilesArePassedOver() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/index/junk.sqlite", contents: Data("not a database".utf8)))
        let other = try SQLiteDatabase(path: folder + "/index/other.sqlite")
        try other.execute("CREATE TABLE files (path TEXT, inode INTEGER, size INTEGER, mtime_ns INTEGER, kind TEXT)")
        XCTAssertFalse(MovedLibraryIndex.holdsFiles(of: folder, index: folder + "/index/junk.sqlite"))
        XCTAssertFalse(MovedLibraryIndex.holdsFiles(of: folder, index: folder + "/index/other.sqlite"))
        XCTAssertNil(MovedLibraryIndex.copy(to: folder + "/index/new.sqlite", root: folder))
    }

    func runCommand(_ path: String, _ arguments: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        guard (try? p.run()) != nil else { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }
}
