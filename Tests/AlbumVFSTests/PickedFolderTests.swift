import AlbumCore
import AlbumSystem
@testable import AlbumVFS
import Foundation
import Glibc
import XCTest

/// A pick whose photo moved is found again by its bytes, only in a complete tree.
final class PickedFolderTests: XCTestCase {
    /// Picks in memory; a file's "hash" is its bytes, and every hash is counted.
    final class MemoryPicks: PickStorage, @unchecked Sendable {
        private let lock = NSLock()
        private var picks: [Pick]
        private(set) var hashes = 0
        /// What every hash throws instead, when set (a disk that fails reads).
        var failing: Errno?
        init(_ picks: [Pick]) { self.picks = picks }
        var saved: [Pick] { lock.withLock { picks } }
        func loadPicks() throws(Errno) -> [Pick] { lock.withLock { picks } }
        func insert(_ pick: Pick) throws(Errno) { lock.withLock { picks.append(pick) } }
        func delete(name: String) throws(Errno) { lock.withLock { picks.removeAll { $0.name == name } } }
        func rename(_ from: String, to: String) throws(Errno) {}
        func move(name: String, toSourcePath: String, target: String) throws(Errno) {
            lock.withLock { for i in picks.indices where picks[i].name == name { picks[i].sourcePath = toSourcePath; picks[i].target = target } }
        }
        func contentHash(of file: ScannedFile, beneath root: String) throws(Errno) -> String {
            lock.withLock { hashes += 1 }
            if let failing { throw failing }
            guard let data = FileManager.default.contents(atPath: root + "/" + file.relativePath) else { throw Errno.notFound }
            return String(decoding: data, as: UTF8.self)
        }
    }

    func photo(_ path: String, inode: UInt64, size: Int64 = 4, changedWhenRead: Timestamp? = nil) -> Photo {
        let time = CaptureTime(local: Timestamp(seconds: 5_000).local(offsetSeconds: 0), utcOffsetSeconds: 0)
        return Photo(relativePath: path, format: path.lowercased().hasSuffix(".png") ? .png : .jpeg, identity: FileIdentity(inode: inode, size: size, mtime: Timestamp(seconds: 0)),
                     decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                               captureInstant: Timestamp(seconds: 5_000),
                                               screenshot: ScreenshotDecision(isScreenshot: false, reason: "t")),
                     changedWhenRead: changedWhenRead)
    }

    /// A library folder of its own holding these files (path, bytes).
    func library(_ files: [(String, String)]) throws -> String {
        let folder = NSTemporaryDirectory() + "albumfs-follow-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        for (path, bytes) in files {
            try FileManager.default.createDirectory(atPath: folder + "/" + path.folderBeforeLastSlash, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + path, contents: Data(bytes.utf8)))
        }
        return folder
    }

    /// A photo whose bytes cannot be read to hash them is not picked: EIO, said once in the log
    /// with its path, and nothing saved.
    func testAPickWhoseFileCannotBeReadIsEIO() throws {
        let folder = try library([("a/x.jpg", "XXXX")])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let storage = MemoryPicks([])
        storage.failing = .ioError
        let lines = LockedLog()
        let fs = try AlbumFileSystem(library: LibraryViews.build(photos: [photo("a/x.jpg", inode: 0)],
                                                                 ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0))),
                                     sourceRoot: folder, owner: Owner(uid: 0, gid: 0), picks: PickSettings(storage: storage), log: { lines.append($0) })
        let picked = try fs.lookup(parent: 1, name: "picked").get().inode
        XCTAssertEqual(fs.symlink(parent: picked, name: "x.jpg", target: "../non-screenshots/x.jpg").failure, .ioError)
        XCTAssertEqual(fs.symlink(parent: picked, name: "y.jpg", target: "../non-screenshots/x.jpg").failure, .ioError)
        XCTAssertTrue(storage.saved.isEmpty)
        XCTAssertEqual(lines.withLock { $0 }.filter { $0.contains("cannot pick a/x.jpg: its bytes cannot be read") }.count, 1, "\(lines.withLock { $0 })")
    }

    func testAMovedPhotoIsFollowedByItsBytesOnlyInACompleteTree() throws {
        let folder = try library([("old/x.jpg", "PICK"), ("other/x.jpg", "ELSE"), ("new/x.jpg", "PICK")])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let storage = MemoryPicks([Pick(name: "x.jpg", sourcePath: "old/x.jpg", contentHash: "PICK", pickedAt: Timestamp(seconds: 1),
                                        target: "../by-date/1970/1970-01/1970-01-01/x.jpg")])
        let fs = try AlbumFileSystem(library: LibraryViews.build(photos: [photo("old/x.jpg", inode: 1)],
                                                                 ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0))),
                                     sourceRoot: folder, owner: Owner(uid: 0, gid: 0), picks: PickSettings(storage: storage), log: { _ in })
        // A tree shown while a first scan still reads: the photo may simply not be in it yet.
        fs.update(LibraryViews.build(photos: [photo("other/x.jpg", inode: 2), photo("new/x.jpg", inode: 3)],
                                     ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0))), complete: false)
        fs.waitForPickSearches()
        XCTAssertEqual(storage.saved.first?.sourcePath, "old/x.jpg")
        XCTAssertEqual(storage.hashes, 0)
        // The scan's last tree: the photo of the same name with the pick's bytes takes it.
        let complete = LibraryViews.build(photos: [photo("other/x.jpg", inode: 2), photo("new/x.jpg", inode: 3)],
                                          ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0)))
        fs.update(complete)
        fs.waitForPickSearches()
        XCTAssertEqual(storage.saved.first?.sourcePath, "new/x.jpg")
        let target = try fs.readlink(fs.picks!.inode(of: "x.jpg")).get()
        XCTAssertTrue(target.hasPrefix("../by-date/"), target)
        XCTAssertEqual(fs.picks?.pick(named: "x.jpg")?.target, target, "the shown target is saved")
        // Found: nothing is hashed again at the next swap.
        let hashed = storage.hashes
        fs.update(complete)
        fs.waitForPickSearches()
        XCTAssertEqual(storage.hashes, hashed)
        XCTAssertEqual(hashed, 2, "other/x.jpg (other bytes) and new/x.jpg")
        // Gone for good, beside a photo of the same name found to hold other bytes: not hashed
        // again at any swap.
        let lonely = LibraryViews.build(photos: [photo("other/x.jpg", inode: 2)],
                                        ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0)))
        fs.update(lonely)
        fs.waitForPickSearches()
        fs.update(lonely)
        fs.waitForPickSearches()
        XCTAssertEqual(storage.hashes, hashed)
        XCTAssertEqual(storage.saved.first?.sourcePath, "new/x.jpg", "not moved to other bytes")
        // That photo rewritten in place with the pick's bytes (its inode, size and mtime kept; read
        // again, another ctime): hashed again, and it takes the pick.
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/other/x.jpg", contents: Data("PICK".utf8)))
        fs.update(LibraryViews.build(photos: [photo("other/x.jpg", inode: 2, changedWhenRead: Timestamp(seconds: 9))],
                                     ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0))))
        fs.waitForPickSearches()
        XCTAssertEqual(storage.hashes, hashed + 1)
        XCTAssertEqual(storage.saved.first?.sourcePath, "other/x.jpg")
    }

    /// A photo the scan found under a new path (its folder renamed) keeps its inodes, so its old
    /// path is not in the number map any more: the pick follows it by the scan's word, and the
    /// photos of the same name are not hashed first.
    func testAPickFollowsItsPhotoToWhereTheScanFoundIt() throws {
        let folder = try library([("A/x.jpg", "PICK"), ("B/x.jpg", "PICK"), ("C/x.jpg", "ELSE")])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let storage = MemoryPicks([Pick(name: "x.jpg", sourcePath: "A/x.jpg", contentHash: "PICK", pickedAt: Timestamp(seconds: 1),
                                        target: "../by-date/1970/1970-01/1970-01-01/x.jpg")])
        let fs = try AlbumFileSystem(library: LibraryViews.build(photos: [photo("A/x.jpg", inode: 1), photo("C/x.jpg", inode: 3)],
                                                                 ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0))),
                                     sourceRoot: folder, owner: Owner(uid: 0, gid: 0), picks: PickSettings(storage: storage), log: { _ in })
        fs.update(LibraryViews.build(photos: [photo("C/x.jpg", inode: 3), photo("B/x.jpg", inode: 1)],
                                     ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0))),
                  renamed: [FileMove(from: "A/x.jpg", to: "B/x.jpg", identity: .unknown)])
        fs.waitForPickSearches()
        XCTAssertEqual(storage.saved.first?.sourcePath, "B/x.jpg")
        XCTAssertEqual(storage.hashes, 1, "B/x.jpg alone")
    }

    /// A lost pick whose photo the last tree knew is looked for among photos of its size only:
    /// files of the same name and another size (a planted 16 GB one) are never read; and a file
    /// over what is left of a search's byte budget is passed over.
    func testALostPickHashesOnlyPhotosOfItsSizeWithinABudget() throws {
        let folder = try library([("old/x.jpg", "PICK"), ("big/x.jpg", "ELSE, LONGER"), ("new/x.jpg", "PICK")])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let storage = MemoryPicks([Pick(name: "x.jpg", sourcePath: "old/x.jpg", contentHash: "PICK", pickedAt: Timestamp(seconds: 1),
                                        target: "../by-date/1970/1970-01/1970-01-01/x.jpg")])
        let fs = try AlbumFileSystem(library: LibraryViews.build(photos: [photo("old/x.jpg", inode: 1)],
                                                                 ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0))),
                                     sourceRoot: folder, owner: Owner(uid: 0, gid: 0), picks: PickSettings(storage: storage), log: { _ in })
        fs.update(LibraryViews.build(photos: [photo("big/x.jpg", inode: 2, size: 16 << 30), photo("new/x.jpg", inode: 3)],
                                     ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0))))
        fs.waitForPickSearches()
        XCTAssertEqual(storage.hashes, 1, "new/x.jpg alone")
        XCTAssertEqual(storage.saved.first?.sourcePath, "new/x.jpg")
        // Lost with no size known (not in the tree before): the 16 GB one is over the budget.
        let gone = MemoryPicks([Pick(name: "x.jpg", sourcePath: "gone/x.jpg", contentHash: "PICK", pickedAt: Timestamp(seconds: 1),
                                     target: "../by-date/1970/1970-01/1970-01-01/x.jpg")])
        let fs2 = try AlbumFileSystem(library: LibraryViews.build(photos: [],
                                                                  ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0))),
                                      sourceRoot: folder, owner: Owner(uid: 0, gid: 0), picks: PickSettings(storage: gone), log: { _ in })
        fs2.update(LibraryViews.build(photos: [photo("big/x.jpg", inode: 2, size: 16 << 30), photo("new/x.jpg", inode: 3)],
                                      ViewSettings(withPicks: true, emptyMtime: Timestamp(seconds: 0))))
        fs2.waitForPickSearches()
        XCTAssertEqual(gone.hashes, 1, "new/x.jpg alone")
        XCTAssertEqual(gone.saved.first?.sourcePath, "new/x.jpg")
    }
}
