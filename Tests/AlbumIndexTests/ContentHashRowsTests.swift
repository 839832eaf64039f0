import AlbumCore
import AlbumSystem
@testable import AlbumIndex
import Foundation
import XCTest

/// Content hashes kept in the index for `duplicates/` (`ContentHashStore`).
final class ContentHashRowsTests: XCTestCase {
    var folder: String!

    override func setUp() {
        folder = NSTemporaryDirectory() + "albumfs-hashes-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func record(_ path: String, inode: UInt64, full: String?) -> ContentHashRecord {
        ContentHashRecord(relativePath: path, identity: FileIdentity(inode: inode, size: 300_000, mtime: Timestamp(seconds: 1_700_000_000, nanoseconds: 7)),
                          changedWhenRead: inode == 1 ? nil : Timestamp(seconds: 1_700_000_001, nanoseconds: 9), partial: UInt64.max - inode, full: full)
    }

    /// Every field comes back as written (the partial hash's top bit too), across a reopen; a
    /// record is replaced by its path's next one; removals and a file's removal from the index
    /// take its hashes.
    func testRecordsRoundTripAndGoWithTheirFiles() throws {
        let path = folder + "/index.sqlite"
        let a = record("a/x.jpg", inode: 1, full: nil), b = record("b/x.jpg", inode: 2, full: "00ff" + String(repeating: "1", count: 28))
        do {
            let index = try LibraryIndex.openOrRebuild(path: path) { XCTFail($0) }
            try index.saveContentHashes([a, b], removing: [])
        }
        let index = try LibraryIndex.openOrRebuild(path: path) { XCTFail($0) }
        XCTAssertEqual(try index.contentHashes().sorted { $0.relativePath < $1.relativePath }, [a, b])
        var hashed = a
        hashed.full = String(repeating: "a", count: 32)
        try index.saveContentHashes([hashed], removing: ["b/x.jpg"])
        XCTAssertEqual(try index.contentHashes(), [hashed])
        try index.saveContentHashes([b], removing: [])
        try index.save(upserts: [], removals: ["a/x.jpg"])
        XCTAssertEqual(try index.contentHashes(), [b], "a file gone from the index takes its hashes")
    }
}
