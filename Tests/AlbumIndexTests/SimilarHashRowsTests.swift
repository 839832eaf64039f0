import AlbumCore
import AlbumSystem
@testable import AlbumIndex
import Foundation
import XCTest

/// Similar photos' hashes kept in the index (`SimilarHashStore`).
final class SimilarHashRowsTests: XCTestCase {
    var folder: String!

    override func setUp() {
        folder = NSTemporaryDirectory() + "albumfs-similar-hashes-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func record(_ path: String, inode: UInt64, hash: UInt64?, group: UInt32? = nil) -> SimilarHashRecord {
        SimilarHashRecord(relativePath: path, identity: FileIdentity(inode: inode, size: 300_000, mtime: Timestamp(seconds: 1_700_000_000, nanoseconds: 7)),
                          changedWhenRead: inode == 1 ? nil : Timestamp(seconds: 1_700_000_001, nanoseconds: 9), hash: hash, group: group)
    }

    /// Every field comes back as written (a hash with its top bit set, and none: a picture that
    /// cannot be decoded), across a reopen; a record is replaced by its path's next one; removals
    /// and a file's removal from the index take its hash.
    func testRecordsRoundTripAndGoWithTheirFiles() throws {
        let path = folder + "/index.sqlite"
        let a = record("a/x.jpg", inode: 1, hash: nil), b = record("b/x.jpg", inode: 2, hash: 0xF0E1_D2C3_B4A5_9687, group: 3)
        do {
            let index = try LibraryIndex.openOrRebuild(path: path) { XCTFail($0) }
            try index.saveSimilarHashes([a, b], removing: [])
        }
        let index = try LibraryIndex.openOrRebuild(path: path) { XCTFail($0) }
        XCTAssertEqual(try index.similarHashes().sorted { $0.relativePath < $1.relativePath }, [a, b])
        var hashed = a
        hashed.hash = 7
        hashed.group = 0
        try index.saveSimilarHashes([hashed], removing: ["b/x.jpg"])
        XCTAssertEqual(try index.similarHashes(), [hashed])
        try index.saveSimilarHashes([b], removing: [])
        try index.save(upserts: [], removals: ["a/x.jpg"])
        XCTAssertEqual(try index.similarHashes(), [b], "a file gone from the index takes its hash")
    }
}
