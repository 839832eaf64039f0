import AlbumCore
@testable import AlbumIndex
import Foundation
import XCTest

final class PickStoreTests: XCTestCase {
    var folder: String!

    override func setUp() {
        folder = NSTemporaryDirectory() + "albumfs-picks-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func pick(_ name: String, _ t: Int64) -> Pick {
        Pick(name: name, sourcePath: "a/\(name)", contentHash: "h\(name)", pickedAt: Timestamp(seconds: t, nanoseconds: 5), target: "../by-date/x/\(name)")
    }

    func testPicksPersistInOrderAndPerLibrary() throws {
        let path = folder + "/sub/picks.sqlite"
        do {
            let store = try PickStore(path: path, library: "/lib/one")
            try store.insert(pick("b", 20))
            try store.insert(pick("a", 10))
            try store.insert(pick("c", 30))
            XCTAssertThrowsError(try store.insert(pick("a", 40)), "names are unique per library")
            let other = try PickStore(path: path, library: "/lib/two")
            try other.insert(pick("a", 1))
        }
        let again = try PickStore(path: path, library: "/lib/one")
        XCTAssertEqual(try again.loadPicks().map(\.name), ["a", "b", "c"])
        XCTAssertEqual(try again.loadPicks().first, pick("a", 10))
        try again.rename("a", to: "c")
        XCTAssertEqual(try again.loadPicks().map(\.name), ["c", "b"].sorted { $0 == "c" && $1 == "b" } )
        try again.delete(name: "b")
        XCTAssertEqual(try again.loadPicks().map(\.name), ["c"])
        XCTAssertEqual(try PickStore(path: path, library: "/lib/two").loadPicks().map(\.name), ["a"])
    }

    /// A picks database written by a newer albumfs is refused with words that say so, and left
    /// byte for byte as it was: picks are the user's data, never read under a schema this build
    /// does not know, nor moved aside.
    func testAPicksDatabaseOfANewerSchemaIsRefusedAndLeftAsItIs() throws {
        let path = folder + "/picks.sqlite"
        try PickStore(path: path, library: "/lib").insert(pick("a", 1))
        let newer = PickStore.migrations.count + 1
        try SQLiteDatabase(path: path).execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA user_version = \(newer)")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try PickStore(path: path, library: "/lib")) { error in
            XCTAssertTrue("\(error)".contains("written by a newer albumfs (schema \(newer); this albumfs reads up to \(PickStore.migrations.count))"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }, ["picks.sqlite"])
    }

    /// A library moved (its old folder gone or empty) gets a copy of its picks, if its photos are
    /// here; a copy of the library (the old folder still there), other photos, or a library with
    /// picks of its own do not.
    func testPicksFollowALibraryThatMoved() throws {
        let fm = FileManager.default
        let db = folder + "/picks.sqlite", new = folder + "/new", old = folder + "/old"
        try fm.createDirectory(atPath: new + "/a", withIntermediateDirectories: true)
        for (name, text) in [("x", "photo x"), ("y", "photo y"), ("z", "photo z")] {
            XCTAssertTrue(fm.createFile(atPath: new + "/a/" + name, contents: Data(text.utf8)))
        }
        func picked(_ name: String, in library: String, hash: String? = nil) throws {
            let hash = try hash ?? ContentHash.ofFile(at: new + "/a/" + name)
            try PickStore(path: db, library: library).insert(Pick(name: name, sourcePath: "a/" + name, contentHash: hash,
                                                                  pickedAt: Timestamp(seconds: 1), target: "../by-date/" + name))
        }
        try picked("x", in: old)
        try picked("y", in: old)
        try picked("gone", in: old, hash: "0")  // one of three missing here: still most of them
        try picked("z", in: folder + "/elsewhere", hash: "0")  // another gone library, whose photo here differs

        // The old folder still there (a copy of the library was made): nothing is taken.
        try fm.createDirectory(atPath: old + "/a", withIntermediateDirectories: true)
        XCTAssertTrue(fm.createFile(atPath: old + "/a/x", contents: Data("photo x".utf8)))
        XCTAssertNil(try PickStore(path: db, library: new).takeOverPicksOfMovedLibrary())
        // Emptied (a disk's mount point left behind): the picks are copied over.
        try fm.removeItem(atPath: old + "/a")
        let store = try PickStore(path: db, library: new)
        XCTAssertEqual(try store.takeOverPicksOfMovedLibrary(), old)
        XCTAssertEqual(try store.loadPicks().map(\.name), ["x", "y", "gone"])
        XCTAssertEqual(try PickStore(path: db, library: old).loadPicks().map(\.name), ["x", "y", "gone"], "copied, not moved")
        XCTAssertEqual(try PickStore(path: db, library: folder + "/elsewhere").loadPicks().map(\.name), ["z"], "a hash differs: stays")
        // This library has picks now: nothing more is taken, even from a gone library that matches.
        try picked("z", in: folder + "/third")
        XCTAssertNil(try store.takeOverPicksOfMovedLibrary())
        // Fewer than half of a gone library's picks here: not its photos; half of them: they are.
        let other = folder + "/other"
        try fm.createDirectory(atPath: other + "/a", withIntermediateDirectories: true)
        XCTAssertTrue(fm.createFile(atPath: other + "/a/x", contents: Data("photo x".utf8)))
        for name in ["x", "p", "q", "r"] { try picked(name, in: folder + "/gone2", hash: try ContentHash.ofFile(at: new + "/a/x")) }
        let otherStore = try PickStore(path: db, library: other)
        XCTAssertNil(try otherStore.takeOverPicksOfMovedLibrary(), "one of four")
        XCTAssertTrue(fm.createFile(atPath: other + "/a/p", contents: Data("photo x".utf8)))
        XCTAssertEqual(try otherStore.takeOverPicksOfMovedLibrary(), folder + "/gone2", "two of four")
    }

    func testWALAndSchemaVersion() throws {
        let path = folder + "/p.sqlite"
        let store = try PickStore(path: path, library: "/x")
        try store.insert(pick("a", 1))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-wal"))
        let db = try SQLiteDatabase(path: path)
        XCTAssertEqual(try db.userVersion, Int64(PickStore.migrations.count))
    }

    func testContentHash() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/a", contents: Data("same".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/b", contents: Data("same".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/c", contents: Data("other".utf8)))
        let a = try ContentHash.ofFile(at: folder + "/a")
        XCTAssertEqual(a.count, 32)
        XCTAssertEqual(a, try ContentHash.ofFile(at: folder + "/b"))
        XCTAssertNotEqual(a, try ContentHash.ofFile(at: folder + "/c"))
        XCTAssertThrowsError(try ContentHash.ofFile(at: folder + "/missing"))
        // Hashing a pick is albumfs's own read: the source's access time stays (relatime would
        // write it here, atime being before mtime).
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_500_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, folder + "/c", &times, 0), 0)
        _ = try ContentHash.ofFile(at: folder + "/c")
        var st = stat()
        XCTAssertEqual(stat(folder + "/c", &st), 0)
        XCTAssertEqual(st.st_atim.tv_sec, 1_000_000_000)
    }

    func testAnUnopenableDatabaseIsAnError() {
        XCTAssertThrowsError(try PickStore(path: "/proc/albumfs/picks.sqlite", library: "/x"))
    }
}
