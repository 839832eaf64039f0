import AlbumCore
@testable import AlbumIndex
import Foundation
import XCTest

/// Indexes and picks databases that earlier release builds wrote (Tests/OldIndexes), opened by
/// today's code: the migrations are tested against what old code really wrote, not only against
/// schemas rebuilt from today's migration list.
final class OldIndexesTests: XCTestCase {
    static let dumps = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("OldIndexes").path

    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-old-indexes-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The dumps of `kind` ("index" or "picks") in Tests/OldIndexes.
    func dumps(_ kind: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Self.dumps).filter { $0.hasPrefix(kind + "-") && $0.hasSuffix(".sql") }.sorted()
    }

    /// A database made from a dump, and its path.
    func restore(_ dump: String) throws -> String {
        let path = folder + "/" + dump.replacingOccurrences(of: ".sql", with: ".sqlite")
        let db = try SQLiteDatabase(path: path)
        try db.execute(try String(contentsOfFile: Self.dumps + "/" + dump, encoding: .utf8))
        return path
    }

    func testEveryRowAnOldBuildWroteIsReadByTodaysCode() throws {
        let indexes = try dumps("index")
        XCTAssertFalse(indexes.isEmpty, "the old indexes in \(Self.dumps)")
        for dump in indexes {
            let path = try restore(dump)
            let before = try SQLiteDatabase(path: path)
            let written = try XCTUnwrap(before.query("SELECT count(*) FROM files").first, dump)[0].int
            // (The photos it showed.)
            let shown = Set(try before.query("SELECT path FROM files WHERE kind NOT IN ('ignored', 'problem')").map { $0[0].text })
            XCTAssertLessThan(try before.userVersion, Int64(IndexSchema.migrations.count), "\(dump) is of an older schema")
            XCTAssertGreaterThan(written, 50, "\(dump): the old build's sample library")
            XCTAssertGreaterThan(shown.count, 30, dump)
            let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail("\(dump): \($0)") })
            XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count), dump)
            let kept = try XCTUnwrap(SQLiteDatabase(path: path).query("SELECT count(*) FROM files").first, dump)[0].int
            let loaded = try index.loadAll()
            XCTAssertEqual(loaded.count, Int(kept), "\(dump): every row left is read")
            // (Some migrations drop the rows of photos they want read again, which the next scan then
            // reads as new; most photos of a library keep theirs.)
            XCTAssertGreaterThan(shown.intersection(loaded.map(\.relativePath)).count, shown.count / 2, "\(dump): most photos it showed keep their rows")
        }
    }

    func testEveryPickAnOldBuildStoredIsFound() throws {
        let stores = try dumps("picks")
        XCTAssertFalse(stores.isEmpty, "the old picks databases in \(Self.dumps)")
        for dump in stores {
            let path = try restore(dump)
            // (Picks are kept per library: the old build's sample library was at this path.)
            let library = try XCTUnwrap(SQLiteDatabase(path: path).query("SELECT DISTINCT library FROM picks").first, dump)[0].text
            let picks = try PickStore(path: path, library: library).loadPicks()
            XCTAssertEqual(picks.map(\.name), ["PXL_20240517_120304567.jpg"], dump)
            XCTAssertEqual(picks.first?.sourcePath, "DCIM/Camera/PXL_20240517_120304567.jpg", dump)
            XCTAssertEqual(picks.first?.target, "../by-date/2024/2024-05/2024-05-17/PXL_20240517_120304567.jpg", dump)
        }
    }
}
