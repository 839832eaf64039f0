import AlbumCore
import AlbumSystem
@testable import AlbumIndex
import Foundation
import XCTest

/// Thumbnail failures kept between mounts (schema 12).
final class ThumbnailFailureRowsTests: XCTestCase {
    var folder: String!

    override func setUp() {
        folder = NSTemporaryDirectory() + "albumfs-index-failures-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    let identity = FileIdentity(inode: 7, size: 1234, mtime: Timestamp(seconds: 1_700_000_000, nanoseconds: 5))
    let ctime = Timestamp(seconds: 1_700_000_010, nanoseconds: 9)
    let settings = "pipeline 3; pixels 1000"

    func failure(_ path: String, ctime: Timestamp?) -> RecordedThumbnailFailure {
        RecordedThumbnailFailure(relativePath: path, identity: identity, changedWhenRead: ctime, reason: "JPEG data cut short")
    }

    /// A failure kept is there, as it was, for the next mount's index under the same render
    /// settings, not under others; the views' generation does not move (a views snapshot stays
    /// usable).
    func testAFailureKeptIsReadBackByTheNextOpen() throws {
        let path = folder + "/index.sqlite"
        do {
            let index = try LibraryIndex.openOrRebuild(path: path) { XCTFail($0) }
            try index.thumbnailFailures.save(failure("a/cut.jpg", ctime: ctime), settings: settings)
            try index.thumbnailFailures.save(failure("b/old.jpg", ctime: nil), settings: settings)
            XCTAssertEqual(try index.generation(), 0)
        }
        let reopened = try LibraryIndex.openOrRebuild(path: path) { XCTFail($0) }
        XCTAssertEqual(Set(try reopened.thumbnailFailures.all(settings: settings)), [failure("a/cut.jpg", ctime: ctime), failure("b/old.jpg", ctime: nil)])
        XCTAssertEqual(try reopened.thumbnailFailures.all(settings: "pipeline 3; pixels 2000"), [], "under other limits: tried again")
    }

    /// A failure is forgotten when its file is written as another file (rewritten, repaired in
    /// place: another ctime) or removed; a row of the same file written again keeps it.
    func testAFailureIsForgottenWhenItsFileChanges() throws {
        let index = try LibraryIndex.openOrRebuild(path: folder + "/index.sqlite") { XCTFail($0) }
        for path in ["same.jpg", "repaired.jpg", "rewritten.jpg", "removed.jpg"] { try index.thumbnailFailures.save(failure(path, ctime: ctime), settings: settings) }
        var rewritten = identity
        rewritten.size += 1
        try index.save(upserts: [
            IndexedFile(relativePath: "same.jpg", identity: identity, kind: .photo(.jpeg, PhotoEvidence()), changedWhenRead: ctime),
            IndexedFile(relativePath: "repaired.jpg", identity: identity, kind: .photo(.jpeg, PhotoEvidence()),
                        changedWhenRead: Timestamp(seconds: 1_700_000_020)),
            IndexedFile(relativePath: "rewritten.jpg", identity: rewritten, kind: .photo(.jpeg, PhotoEvidence()), changedWhenRead: ctime),
        ], removals: ["removed.jpg"])
        XCTAssertEqual(try index.thumbnailFailures.all(settings: settings).map(\.relativePath), ["same.jpg"])
    }

    /// A photo found at a new path (its folder renamed) takes its failure along; another file
    /// moved to a path does not take one.
    func testAFailureFollowsItsPhotoToItsNewPath() throws {
        let index = try LibraryIndex.openOrRebuild(path: folder + "/index.sqlite") { XCTFail($0) }
        try index.save(upserts: [IndexedFile(relativePath: "a/cut.jpg", identity: identity, kind: .photo(.jpeg, PhotoEvidence()),
                                             changedWhenRead: ctime)], removals: [])
        try index.thumbnailFailures.save(failure("a/cut.jpg", ctime: ctime), settings: settings)
        try index.thumbnailFailures.save(failure("c/other.jpg", ctime: ctime), settings: settings)
        var another = identity
        another.inode += 1
        try index.save(moves: [FileMove(from: "a/cut.jpg", to: "b/cut.jpg", identity: identity),
                               FileMove(from: "c/other.jpg", to: "d/other.jpg", identity: another)])
        XCTAssertEqual(Set(try index.thumbnailFailures.all(settings: settings).map(\.relativePath)), ["b/cut.jpg", "c/other.jpg"])
    }

    /// Schema 15 adds the table to an index of schema 14 and keeps its rows.
    func testASchemaFourteenIndexKeepsItsRowsAndKeepsFailures() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/schema-14.sqlite"
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("PRAGMA application_id = \(IndexSchema.applicationID)")
            try db.migrate(Array(IndexSchema.migrations.prefix(14)))
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, orientation) VALUES ('x.jpg', 1, 3, 4, 'jpeg', 1)")
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        XCTAssertEqual(try index.loadAll().map(\.relativePath), ["x.jpg"])
        XCTAssertEqual(try index.thumbnailFailures.all(settings: settings), [])
        try index.thumbnailFailures.save(failure("x.jpg", ctime: nil), settings: settings)
        XCTAssertEqual(try index.thumbnailFailures.all(settings: settings).count, 1)
    }

    /// Schema 16: videos and HEIF images with problems are read again, once (the scan now tells
    /// those with nothing to decode); the rest stays as it is.
    func testASchemaFifteenIndexReadsAgainVideosAndDamagedHEIFs() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/schema-15.sqlite"
        let rows: [(String, String, String?)] = [
            ("clip.mp4", "video", nil), ("cut.heic", "heif", "header truncated"), ("good.heic", "heif", nil), ("x.jpg", "jpeg", nil),
        ]
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("PRAGMA application_id = \(IndexSchema.applicationID)")
            try db.migrate(Array(IndexSchema.migrations.prefix(15)))
            for (i, (file, kind, problems)) in rows.enumerated() {
                try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, dto, problems, orientation, uid, gid, mode) VALUES (?, ?, 3, 4, ?, '2020:01:01 10:00:00', ?, 1, 0, 0, 420)",
                             [.text(file), .int(Int64(i)), .text(kind), problems.map { .text($0) }])
            }
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        XCTAssertEqual(Set(try index.loadAll().filter(\.lacksAccess).map(\.relativePath)), ["clip.mp4", "cut.heic", "good.heic", "x.jpg"],
                       "(the stills without damage: at the ratings' schema, which has every still read again)")
        XCTAssertEqual(try index.loadAll().count, rows.count)
    }

}
