import AlbumCore
import AlbumSystem
@testable import AlbumIndex
import Foundation
import XCTest

final class LibraryIndexTests: XCTestCase {
    var folder: String!

    override func setUp() {
        folder = NSTemporaryDirectory() + "albumfs-index-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// Connections are not locked by SQLite (their owners lock them), and SQLite keeps no
    /// allocation statistics (a global mutex on every allocation): see SQLiteDatabase.init.
    func testSQLiteTakesNoLockOfItsOwn() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let db = try SQLiteDatabase(path: folder + "/t.sqlite")
        XCTAssertFalse(db.hasOwnMutex)
        try db.execute("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('a'), ('b')")
        XCTAssertEqual(try db.query("SELECT count(*) FROM t").first?.first?.int, 2)
        XCTAssertEqual(SQLiteDatabase.statisticsBytesInUse, 0)
    }

    /// An index damaged inside (a page overwritten: SQLite opens it, and only `quick_check`
    /// tells) is moved aside with one warning and rebuilt, not used and failing every mount.
    func testAnIndexDamagedInsideIsMovedAside() throws {
        let path = folder + "/index.sqlite"
        do {
            let index = try LibraryIndex.openOrRebuild(path: path) { XCTFail($0) }
            let id = FileIdentity(inode: 1, size: 1, mtime: Timestamp(seconds: 1))
            try index.save(upserts: (0..<3000).map { IndexedFile(relativePath: "bulk/IMG_\($0).JPG", identity: id, kind: .ignored) }, removals: [])
        }
        // Everything in the main file, then pages in its middle overwritten.
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertGreaterThan(size, 64 << 10)
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        for offset in [size / 2, size / 2 + 20_000] {
            handle.seek(toFileOffset: UInt64(offset))
            handle.write(Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))
        }
        handle.closeFile()
        var warnings: [String] = []
        let rebuilt = try LibraryIndex.openOrRebuild(path: path) { warnings.append($0) }
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.first?.contains("cannot be used (damaged: ") ?? false, "\(warnings)")
        XCTAssertFalse(warnings.first?.contains("\n") ?? true, "one line")
        XCTAssertEqual(try rebuilt.loadAll().count, 0, "a new index")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("index.sqlite.broken-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.count, 1)
    }

    /// An index written by a newer albumfs (a schema above the migrations this one knows) may
    /// hold columns that mean something else: it is moved aside with one warning that says so, its
    /// rows kept there untouched, and a new index is made; it is never read.
    func testAnIndexOfANewerSchemaIsMovedAsideNotRead() throws {
        let path = folder + "/index.sqlite"
        do {
            let index = try LibraryIndex.openOrRebuild(path: path) { XCTFail($0) }
            try index.save(upserts: [IndexedFile(relativePath: "a/IMG_1.JPG", identity: FileIdentity(inode: 1, size: 1, mtime: Timestamp(seconds: 1)), kind: .ignored)], removals: [])
        }
        let newer = IndexSchema.migrations.count + 3
        try SQLiteDatabase(path: path).execute("PRAGMA user_version = \(newer)")
        var warnings: [String] = []
        let rebuilt = try LibraryIndex.openOrRebuild(path: path) { warnings.append($0) }
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings.first?.contains("written by a newer albumfs (schema \(newer); this albumfs reads up to \(IndexSchema.migrations.count))") ?? false, "\(warnings)")
        XCTAssertEqual(try rebuilt.loadAll().count, 0, "a new index, not the newer one read")
        let aside = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("index.sqlite.broken-") && !$0.contains("-wal") && !$0.contains("-shm") })
        let kept = try SQLiteDatabase(path: folder + "/" + aside)
        XCTAssertEqual(try kept.userVersion, Int64(newer), "the newer file is kept as it was")
        XCTAssertEqual(try kept.query("SELECT count(*) FROM files").first?.first?.int, 1)
    }

    /// A path where no file can be made (here below a regular file; also a read-only folder or
    /// filesystem) is an error to the caller, not an index to move aside.
    func testAnIndexThatCannotBeOpenedIsNotMovedAside() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/file", contents: Data("x".utf8)))
        var warnings: [String] = []
        XCTAssertThrowsError(try LibraryIndex.openOrRebuild(path: folder + "/file/index.sqlite") { warnings.append($0) })
        XCTAssertEqual(warnings, [], "nothing was moved aside")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["file"])
    }

    func testEveryFieldRoundTrips() throws {
        var e = PhotoEvidence()
        e.dateTimeOriginal = "2024:05:17 14:03:04"; e.subSecTimeOriginal = "5"; e.offsetTimeOriginal = "+02:00"
        e.dateTimeDigitized = "2024:05:17 14:03:05"; e.subSecTimeDigitized = "6"; e.offsetTimeDigitized = "+02:00"
        e.xmpDateCreated = "2024-05-17"; e.xmpDateTimeOriginal = "2024-05-17T14:03"; e.make = "Canon"; e.model = "R6"
        e.software = "fw"; e.userComment = "c"; e.xmpUserComment = "x"; e.pngSoftware = "p"; e.pngComment = "Screenshot"; e.gpsDateTimeUTC = "2024:05:17 12:03:04"
        e.hasExposureData = true; e.orientation = 6; e.pixelWidth = 4000; e.pixelHeight = 3000; e.problems = ["a", "b"]
        var sidecar = SidecarEvidence(kind: .xmp, relativePath: "a/p.xmp")
        sidecar.xmpDateCreated = "2021-03-04"; sidecar.rating = 2; sidecar.keywords = ["x", "y\nz"]; sidecar.latitude = 48.5
        e.sidecar = sidecar
        let id = FileIdentity(inode: 42, size: 1234, mtime: Timestamp(seconds: 1_700_000_000, nanoseconds: 123))
        // Empty (not absent) texts stay empty, and other scripts than ASCII stay whole.
        var blank = PhotoEvidence()
        blank.make = ""
        blank.userComment = "Écran — 画面"
        let files = [
            IndexedFile(relativePath: "a/p.jpg", identity: id, kind: .photo(.jpeg, e), changedWhenRead: Timestamp(seconds: 1_700_000_001, nanoseconds: 7)),
            IndexedFile(relativePath: "a/bare.png", identity: id, kind: .photo(.png, PhotoEvidence())),
            IndexedFile(relativePath: "a/blank é.jpg", identity: id, kind: .photo(.jpeg, blank)),
            IndexedFile(relativePath: "notes.txt", identity: id, kind: .ignored, changedWhenRead: Timestamp(seconds: 1_700_000_002)),
            IndexedFile(relativePath: "bad.jpg", identity: id, kind: .problem("not a JPEG or PNG")),
        ]
        let path = folder + "/i.sqlite"
        try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) }).save(upserts: files, removals: [])
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try index.loadAll().sorted { $0.relativePath < $1.relativePath }, files.sorted { $0.relativePath < $1.relativePath })
        try index.save(upserts: [], removals: ["notes.txt"])
        XCTAssertEqual(try index.loadAll().count, 4)
    }

    /// The index by inode is made when asked to be made ready (after a first scan's rows), not
    /// while rows are written, and it is no write of the files' rows (a views snapshot stays good).
    func testLookupsAreMadeReadyWhenAsked() throws {
        let index = try LibraryIndex.openOrRebuild(path: folder + "/index.sqlite") { XCTFail($0) }
        try index.save(upserts: [IndexedFile(relativePath: "a.jpg", identity: FileIdentity(inode: 5, size: 1, mtime: Timestamp(seconds: 1)), kind: .ignored)],
                       removals: [])
        func hasInodeIndex() throws -> Bool {
            try SQLiteDatabase(path: folder + "/index.sqlite").query("SELECT name FROM sqlite_master WHERE name = 'files_by_inode'").count == 1
        }
        XCTAssertFalse(try hasInodeIndex())
        let generation = try index.generation()
        index.prepareLookups()
        XCTAssertTrue(try hasInodeIndex())
        XCTAssertEqual(try index.generation(), generation)
    }

    /// A file is found by its identity at another path (a folder renamed, a photo moved), with its
    /// evidence; under another name only a photo whose ctime when read is known (the scanner then
    /// checks its birth time); not where reading it failed, not by inode 0 (numbers a filesystem
    /// makes up), not at its own path.
    func testAFileIsFoundByItsIdentityAtAnotherPath() throws {
        let index = try LibraryIndex.openOrRebuild(path: folder + "/index.sqlite") { XCTFail($0) }
        func id(_ inode: UInt64, mtime: Int = 7) -> FileIdentity { FileIdentity(inode: inode, size: 1234, mtime: Timestamp(seconds: 1_700_000_000, nanoseconds: mtime)) }
        var evidence = PhotoEvidence()
        evidence.dateTimeOriginal = "2001:02:03 04:05:06"
        evidence.orientation = 6
        var unreadable = PhotoEvidence()
        unreadable.problems = [ReadFailure.message(Errno(rawValue: EIO))]
        let photo = IndexedFile(relativePath: "Sony/DSC01.JPG", identity: id(11), kind: .photo(.jpeg, evidence))
        let read = IndexedFile(relativePath: "Fuji/DSCF01.JPG", identity: id(16), kind: .photo(.jpeg, evidence),
                               changedWhenRead: Timestamp(seconds: 1_700_000_100))
        try index.save(upserts: [
            photo,
            IndexedFile(relativePath: "a/notes.txt", identity: id(12), kind: .ignored),
            IndexedFile(relativePath: "a/bad.jpg", identity: id(13), kind: .photo(.jpeg, unreadable)),
            IndexedFile(relativePath: "a/locked.jpg", identity: id(14), kind: .problem(ReadFailure.message(Errno(rawValue: EACCES)))),
            IndexedFile(relativePath: "a/fat.jpg", identity: FileIdentity(inode: 0, size: 1234, mtime: Timestamp(seconds: 1)), kind: .ignored),
            read,
        ], removals: [])
        func hasInodeIndex() throws -> Bool {
            try SQLiteDatabase(path: folder + "/index.sqlite").query("SELECT name FROM sqlite_master WHERE name = 'files_by_inode'").count == 1
        }
        XCTAssertFalse(try hasInodeIndex(), "writing rows (a first scan) keeps no index by inode up")
        let found = try index.files(sameAs: [
            ("Alpha/DSC01.JPG", id(11)), ("b/notes.txt", id(12)), ("Sony/DSC01.JPG", id(11)), ("Alpha/Holiday.JPG", id(11)),
            ("Alpha/DSC01.JPG", id(11, mtime: 8)), ("b/bad.jpg", id(13)), ("b/locked.jpg", id(14)),
            ("b/fat.jpg", FileIdentity(inode: 0, size: 1234, mtime: Timestamp(seconds: 1))),
            ("Fuji/2023-01-01 10.00.00.JPG", id(16)),
        ])
        XCTAssertEqual(found.count, 9)
        XCTAssertEqual(found[0], photo, "a renamed folder")
        XCTAssertEqual(found[1]?.kind, .ignored)
        XCTAssertNil(found[2], "its own path")
        XCTAssertNil(found[3], "renamed, with no ctime when read to tell it by")
        XCTAssertNil(found[4], "another mtime")
        XCTAssertNil(found[5], "a failed read is read again")
        XCTAssertNil(found[6], "a failed read is read again")
        XCTAssertNil(found[7], "inode 0 names no file")
        XCTAssertEqual(found[8], read, "renamed, its ctime when read kept")
        XCTAssertTrue(try hasInodeIndex(), "made by the first lookup")
        // The lookup is by an index on the inode, not a walk of every row.
        let plan = try SQLiteDatabase(path: folder + "/index.sqlite").query(
            "EXPLAIN QUERY PLAN SELECT path FROM files WHERE inode = 1 AND size = 2 AND mtime_ns = 3 AND path <> 'x'")
        XCTAssertTrue(plan.contains { $0.contains { $0.text.contains("files_by_inode") } }, "\(plan)")
    }

    /// A move copies the row at its old path, evidence and all, to the new one (over any row
    /// there), and only while the old row is still that file's; the old row stays (the scan's
    /// removals take it).
    func testAMoveCopiesTheRowOfTheSameFile() throws {
        let index = try LibraryIndex.openOrRebuild(path: folder + "/index.sqlite") { XCTFail($0) }
        func id(_ inode: UInt64) -> FileIdentity { FileIdentity(inode: inode, size: 1234, mtime: Timestamp(seconds: 1_700_000_000, nanoseconds: 7)) }
        var evidence = PhotoEvidence()
        evidence.dateTimeOriginal = "2001:02:03 04:05:06"
        evidence.make = "Sony"
        evidence.problems = ["a problem"]
        let photo = IndexedFile(relativePath: "Sony/DSC01.JPG", identity: id(11), kind: .photo(.jpeg, evidence),
                                changedWhenRead: Timestamp(seconds: 1_700_000_100))
        let other = IndexedFile(relativePath: "Sony/DSC02.JPG", identity: id(12), kind: .problem("not a JPEG or PNG"))
        let there = IndexedFile(relativePath: "Alpha/DSC02.JPG", identity: id(99), kind: .ignored)
        try index.save(upserts: [photo, other, there], removals: [])
        try index.save(moves: [
            FileMove(from: "Sony/DSC01.JPG", to: "Alpha/DSC01.JPG", identity: id(11)),
            FileMove(from: "Sony/DSC02.JPG", to: "Alpha/DSC02.JPG", identity: id(12)),
            FileMove(from: "Sony/DSC01.JPG", to: "Beta/DSC01.JPG", identity: id(13)),
            FileMove(from: "Sony/gone.JPG", to: "Beta/gone.JPG", identity: id(14)),
        ])
        try index.save(moves: [])
        var moved = photo
        moved.relativePath = "Alpha/DSC01.JPG"
        var movedOther = other
        movedOther.relativePath = "Alpha/DSC02.JPG"
        let rows = try index.loadAll().sorted { $0.relativePath < $1.relativePath }
        XCTAssertEqual(rows, [moved, movedOther, photo, other], "copied whole, over the row there; none for another identity or no row")
    }

    /// A new index file at schema `version`, and its path.
    func index(atSchema version: Int) throws -> (SQLiteDatabase, String) {
        let path = folder + "/schema-\(version).sqlite"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let db = try SQLiteDatabase(path: path)
        try db.execute("PRAGMA application_id = \(IndexSchema.applicationID)")
        try db.migrate(Array(IndexSchema.migrations.prefix(version)))
        return (db, path)
    }

    /// An index left at schema `version` holding `rows` (path, kind; orientation 1), opened by
    /// today's code.
    func migrated(from version: Int, rows: [(String, String)]) throws -> LibraryIndex {
        let (db, path) = try index(atSchema: version)
        for (i, (file, kind)) in rows.enumerated() {
            // (With an orientation, as a camera photo has: schema 6 reads photos without one again.)
            try db.query("INSERT INTO files (path, device, inode, size, mtime_ns, kind, orientation) VALUES (?, 1, ?, 3, 4, ?, 1)",
                         [.text(file), .int(Int64(i)), .text(kind)])
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        return index
    }

    /// The sidecar migration: photos in a folder holding a file named like a sidecar forget their
    /// owner and mode (so a mount reads them again, once, with it); the others keep theirs.
    func testPhotosBesideSidecarsAreReadAgainOnceAfterTheSidecarMigration() throws {
        let before = try XCTUnwrap(IndexSchema.migrations.firstIndex { $0.contains("ADD COLUMN sidecar") })
        let (db, path) = try index(atSchema: before)
        let rows = [("Takeout/a.jpg", "jpeg"), ("Takeout/a.jpg.json", "ignored"), ("Other/b.jpg", "jpeg"), ("Other/notes.txt", "ignored"),
                    ("c.heic", "heif"), ("c.XMP", "ignored"), ("Deep/Takeout/d.jpg", "jpeg")]
        for (i, (file, kind)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, orientation, uid, gid, mode) VALUES (?, ?, 3, 4, ?, 1, 0, 0, 420)",
                         [.text(file), .int(Int64(i)), .text(kind)])
        }
        // This migration alone (a later one may read more again for reasons of its own).
        try db.migrate(Array(IndexSchema.migrations.prefix(before + 1)))
        let lacking = try db.query("SELECT path FROM files WHERE uid IS NULL ORDER BY path").map { $0[0].text }
        XCTAssertEqual(lacking, ["Takeout/a.jpg", "c.heic"])
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        XCTAssertEqual(try index.loadAll().count, rows.count, "every row kept")
    }

    func testASchemaOneIndexIsMigratedAndReadAgain() throws {
        let index = try migrated(from: 1, rows: [("x.jpg", "jpeg")])
        XCTAssertEqual(try index.loadAll(), [], "rows without GPS are dropped so the next scan reads them again")
    }

    func testASchemaTwoIndexReadsItsPhotosAgain() throws {
        let index = try migrated(from: 2, rows: [("x.jpg", "jpeg"), ("s.png", "png"), ("n.txt", "ignored")])
        XCTAssertEqual(try index.loadAll().map(\.relativePath), ["n.txt"], "photos are read again by the next scan, other files kept")
    }

    /// Schema 4 adds what the index knows of the library (its folder's device), and keeps rows.
    func testASchemaThreeIndexKeepsItsRowsAndLearnsTheDevice() throws {
        let index = try migrated(from: 3, rows: [("x.jpg", "jpeg"), ("n.txt", "ignored")])
        XCTAssertEqual(try index.loadAll().count, 2)
        XCTAssertNil(try index.libraryDevice())
        try index.saveLibraryDevice(UInt64.max - 1)
        try index.saveLibraryDevice(2049)
        XCTAssertEqual(try index.libraryDevice(), 2049)
        XCTAssertEqual(try LibraryIndex.openOrRebuild(path: folder + "/schema-3.sqlite", warn: { XCTFail($0) }).libraryDevice(), 2049)
    }

    /// Schema 5 drops the device number from a file's identity: every row stays, with its inode,
    /// size and mtime, so the next scan reads nothing again.
    func testASchemaFourIndexKeepsItsRowsWithoutTheDevice() throws {
        let index = try migrated(from: 4, rows: [("x.jpg", "jpeg"), ("n.txt", "ignored")])
        let rows = try index.loadAll().sorted { $0.relativePath < $1.relativePath }
        XCTAssertEqual(rows.map(\.relativePath), ["n.txt", "x.jpg"])
        XCTAssertEqual(rows.map(\.identity), [FileIdentity(inode: 1, size: 3, mtime: Timestamp(seconds: 0, nanoseconds: 4)),
                                              FileIdentity(inode: 0, size: 3, mtime: Timestamp(seconds: 0, nanoseconds: 4))])
    }

    /// Schema 6: photos whose rows may lack what today's reader finds (an orientation written as a
    /// LONG, an XMP language alternative) are read again, once; the others and non-photos stay.
    func testASchemaFiveIndexReadsAgainThePhotosTheReaderNowReadsBetter() throws {
        let (db, path) = try index(atSchema: 5)
        let rows: [(String, String, SQLiteDatabase.Value?, String?, String?)] = [
            ("oriented.jpg", "jpeg", .int(6), nil, nil), ("no-orientation.jpg", "jpeg", nil, nil, nil),
            ("xmp-comment.png", "png", .int(1), "xmp_user_comment", "Screenshot"),
            ("xmp-created.jpg", "jpeg", .int(1), "xmp_created", "2020-01-02"), ("xmp-dto.jpg", "jpeg", .int(1), "xmp_dto", "2020-01-02"),
            ("notes.txt", "ignored", nil, nil, nil), ("bad.jpg", "problem", nil, nil, nil),
        ]
        for (i, (file, kind, orientation, column, value)) in rows.enumerated() {
            let extra = column.map { (", " + $0, ", ?") } ?? ("", "")
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, orientation\(extra.0)) VALUES (?, ?, 3, 4, ?, ?\(extra.1))",
                         [.text(file), .int(Int64(i)), .text(kind), orientation] + (value.map { [SQLiteDatabase.Value.text($0)] } ?? []))
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        XCTAssertEqual(Set(try index.loadAll().map(\.relativePath)), ["oriented.jpg", "notes.txt", "bad.jpg"])
    }

    /// Schema 8: files kept as not photos that may be HEIF images (by name, or named as a photo
    /// yet neither JPEG nor PNG) are read again, once; photos, other files and other problems stay.
    func testASchemaSevenIndexReadsAgainTheFilesThatMayBeHEIF() throws {
        let (db, path) = try index(atSchema: 7)
        let rows: [(String, String, String?)] = [
            ("x.jpg", "jpeg", nil), ("IMG_0001.HEIC", "ignored", nil), ("a/b.heif", "ignored", nil), ("c.avif", "ignored", nil),
            ("DSCF0001.HIF", "ignored", nil), ("notes.txt", "ignored", nil), ("clip.mov", "ignored", nil),
            ("heic-named.jpg", "problem", "not a JPEG or PNG"), ("bad.jpg", "problem", "unreadable: Permission denied"),
        ]
        for (i, (file, kind, message)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, message, orientation) VALUES (?, ?, 3, 4, ?, ?, 1)",
                         [.text(file), .int(Int64(i)), .text(kind), message.map { .text($0) }])
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        // (`clip.mov` goes at schema 10.)
        XCTAssertEqual(Set(try index.loadAll().map(\.relativePath)), ["x.jpg", "notes.txt", "bad.jpg"])
    }

    /// Schema 12 shows WebP images: files kept as not photos, or as problems, that a WebP's name
    /// are read again, once; the rest stays.
    func testASchemaElevenIndexReadsAgainWhatMayBeAWebP() throws {
        let (db, path) = try index(atSchema: 11)
        let rows: [(String, String)] = [("x.jpg", "jpeg"), ("notes.txt", "ignored"), ("IMG-20240101-WA0001.webp", "ignored"),
                                        ("b/sticker.WEBP", "problem"), ("a.bmp", "ignored")]
        for (i, (file, kind)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, orientation, dto) VALUES (?, ?, 3, 4, ?, 1, '2020:01:02 03:04:05')",
                         [.text(file), .int(Int64(i)), .text(kind)])
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        XCTAssertEqual(Set(try index.loadAll().map(\.relativePath)), ["x.jpg", "notes.txt", "a.bmp"])
    }

    /// The schema that keeps ratings (`xmp_rating`, `exif_rating`) has every still of an index
    /// made before it (schema 18, the camera RAWs') read again, once, for a rating it may carry;
    /// videos and other files stay as they are; a rating saved is loaded back.
    func testAnIndexFromBeforeRatingsReadsItsStillsAgain() throws {
        let (db, path) = try index(atSchema: 18)
        let rows: [(String, String)] = [("a.jpg", "jpeg"), ("b.heic", "heif"), ("c.dng", "raw"), ("d.png", "png"), ("clip.mov", "video"),
                                        ("e.gif", "gif"), ("n.txt", "ignored")]
        for (i, (file, kind)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, dto, orientation, uid, gid, mode) VALUES (?, ?, 3, 4, ?, '2020:01:02 03:04:05', 1, 0, 0, 420)",
                         [.text(file), .int(Int64(i)), .text(kind)])
        }
        // This migration alone (a later one may read more again for reasons of its own).
        let ratings = try XCTUnwrap(IndexSchema.migrations.firstIndex { $0.contains("ADD COLUMN xmp_rating") })
        try db.migrate(Array(IndexSchema.migrations.prefix(ratings + 1)))
        let lacking = try db.query("SELECT path FROM files WHERE uid IS NULL ORDER BY path").map { $0[0].text }
        XCTAssertEqual(lacking, ["a.jpg", "b.heic", "c.dng", "d.png"])
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        // (The video too: the later migration of GPS positions reads videos again for theirs.)
        XCTAssertEqual(Set(try index.loadAll().filter(\.lacksAccess).map(\.relativePath)), ["a.jpg", "b.heic", "c.dng", "d.png", "clip.mov"])
        var e = PhotoEvidence()
        e.xmpRating = "-1"
        e.exifRating = 5
        let rated = IndexedFile(relativePath: "rated.jpg", identity: FileIdentity(inode: 99, size: 3, mtime: Timestamp(seconds: 4)), kind: .photo(.jpeg, e))
        try index.save(upserts: [rated], removals: [])
        guard case .photo(_, let back)? = try index.loadAll().first(where: { $0.relativePath == "rated.jpg" })?.kind else { return XCTFail("not saved") }
        XCTAssertEqual(back.xmpRating, "-1")
        XCTAssertEqual(back.exifRating, 5)
    }

    /// The kind tags' migration: every video and the iPhones' and Pixels' JPEGs and HEIFs forget
    /// their owner and mode (read again, once, for the tags that tell their kind); other cameras'
    /// stills and other files keep theirs; kind tags saved are loaded back.
    func testAnIndexFromBeforeKindTagsReadsAgainOnlyWhatMayCarryThem() throws {
        let before = try XCTUnwrap(IndexSchema.migrations.firstIndex { $0.contains("ADD COLUMN kind_tags") })
        let (db, path) = try index(atSchema: before)
        let rows: [(String, String, String)] = [("iphone.heic", "heif", "Apple"), ("pixel.jpg", "jpeg", "Google"), ("canon.jpg", "jpeg", "Canon"),
                                                ("android.mp4", "video", ""), ("shot.png", "png", "Apple"), ("n.txt", "ignored", "")]
        for (i, (file, kind, make)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, make, orientation, uid, gid, mode) VALUES (?, ?, 3, 4, ?, ?, 1, 0, 0, 420)",
                         [.text(file), .int(Int64(i)), .text(kind), .text(make)])
        }
        try db.migrate(Array(IndexSchema.migrations.prefix(before + 1)))
        let lacking = try db.query("SELECT path FROM files WHERE uid IS NULL ORDER BY path").map { $0[0].text }
        XCTAssertEqual(lacking, ["android.mp4", "iphone.heic", "pixel.jpg"])
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        var e = PhotoEvidence()
        e.kinds.customRendered = 6
        e.kinds.lensModel = "iPhone 15 Pro front camera 2.69mm f/1.9"
        e.kinds.captureFPS = "240.0"
        let tagged = IndexedFile(relativePath: "pano.jpg", identity: FileIdentity(inode: 99, size: 3, mtime: Timestamp(seconds: 4)), kind: .photo(.jpeg, e))
        try index.save(upserts: [tagged], removals: [])
        guard case .photo(_, let back)? = try index.loadAll().first(where: { $0.relativePath == "pano.jpg" })?.kind else { return XCTFail("not saved") }
        XCTAssertEqual(back.kinds, e.kinds)
    }

    /// The migration that adds the EXIF GPS position (the last one but those appended after it)
    /// has an index's stills read again, once; a position saved is loaded back exactly.
    func testAnIndexFromBeforePositionsReadsItsStillsAgain() throws {
        let added = try XCTUnwrap(IndexSchema.migrations.firstIndex { $0.contains("ADD COLUMN gps_lat") })
        let (db, path) = try index(atSchema: added)
        let rows: [(String, String)] = [("a.jpg", "jpeg"), ("b.heic", "heif"), ("clip.mov", "video"), ("n.txt", "ignored")]
        for (i, (file, kind)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, dto, orientation, uid, gid, mode) VALUES (?, ?, 3, 4, ?, '2020:01:02 03:04:05', 1, 0, 0, 420)",
                         [.text(file), .int(Int64(i)), .text(kind)])
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(Set(try index.loadAll().filter(\.lacksAccess).map(\.relativePath)), ["a.jpg", "b.heic", "clip.mov"])
        var e = PhotoEvidence()
        e.gpsLatitude = -33.856_8
        e.gpsLongitude = 151.215_300_000_1
        let placed = IndexedFile(relativePath: "placed.jpg", identity: FileIdentity(inode: 99, size: 3, mtime: Timestamp(seconds: 4)), kind: .photo(.jpeg, e))
        try index.save(upserts: [placed], removals: [])
        guard case .photo(_, let back)? = try index.loadAll().first(where: { $0.relativePath == "placed.jpg" })?.kind else { return XCTFail("not saved") }
        XCTAssertEqual(back.gpsLatitude, -33.856_8)
        XCTAssertEqual(back.gpsLongitude, 151.215_300_000_1, "every bit of the double")
    }

    /// Schema 13 shows GIF images: as schema 12 for WebP.
    func testASchemaTwelveIndexReadsAgainWhatMayBeAGIF() throws {
        let (db, path) = try index(atSchema: 12)
        let rows: [(String, String)] = [("x.jpg", "jpeg"), ("notes.txt", "ignored"), ("party.gif", "ignored"), ("b/c.GIF", "problem"), ("s.psd", "ignored")]
        for (i, (file, kind)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, orientation, dto) VALUES (?, ?, 3, 4, ?, 1, '2020:01:02 03:04:05')",
                         [.text(file), .int(Int64(i)), .text(kind)])
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(Set(try index.loadAll().map(\.relativePath)), ["x.jpg", "notes.txt", "s.psd"])
    }

    /// Schema 14 shows TIFF images: as schema 12 for WebP.
    func testASchemaThirteenIndexReadsAgainWhatMayBeATIFF() throws {
        let (db, path) = try index(atSchema: 13)
        let rows: [(String, String)] = [("x.jpg", "jpeg"), ("notes.txt", "ignored"), ("scan.tif", "ignored"), ("b/c.TIFF", "problem"), ("s.psd", "ignored")]
        for (i, (file, kind)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, orientation, dto) VALUES (?, ?, 3, 4, ?, 1, '2020:01:02 03:04:05')",
                         [.text(file), .int(Int64(i)), .text(kind)])
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(Set(try index.loadAll().map(\.relativePath)), ["x.jpg", "notes.txt", "s.psd"])
    }

    /// Camera RAWs became photos in the migration that names `.dng`: the files with a RAW's
    /// extension (or a TIFF's: a DNG named .tif) kept as not photos are read again, the rest stay.
    func testAnIndexBeforeRawsReadsAgainWhatMayBeARaw() throws {
        let raws = try XCTUnwrap(IndexSchema.migrations.firstIndex { $0.contains("'%.dng'") })
        let (db, path) = try index(atSchema: raws)
        let rows: [(String, String)] = [("x.jpg", "jpeg"), ("notes.txt", "ignored"), ("DSC_0001.NEF", "ignored"), ("b/IMG_1.CR3", "problem"),
                                        ("c/PXL.dng", "ignored"), ("scan.tif", "ignored"), ("s.psd", "ignored"), ("o.ORF", "ignored")]
        for (i, (file, kind)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, orientation, dto) VALUES (?, ?, 3, 4, ?, 1, '2020:01:02 03:04:05')",
                         [.text(file), .int(Int64(i)), .text(kind)])
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(Set(try index.loadAll().map(\.relativePath)), ["x.jpg", "notes.txt", "s.psd"])
    }

    /// The schema that shows JPEG XL images reads again, as schema 12 for WebP, the files named
    /// `.jxl` an older scan kept as not photos or problems. (Found by what it does: other
    /// migrations may come before it.)
    func testAnIndexFromBeforeJPEGXLReadsAgainWhatMayBeAJPEGXL() throws {
        let jxl = try XCTUnwrap(IndexSchema.migrations.firstIndex { $0.contains("'%.jxl'") })
        let (db, path) = try index(atSchema: jxl)
        let rows: [(String, String)] = [("x.jpg", "jpeg"), ("notes.txt", "ignored"), ("art.jxl", "ignored"), ("b/c.JXL", "problem"),
                                        ("s.psd", "ignored"), ("d.tif", "tiff")]
        for (i, (file, kind)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, orientation, dto) VALUES (?, ?, 3, 4, ?, 1, '2020:01:02 03:04:05')",
                         [.text(file), .int(Int64(i)), .text(kind)])
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(Set(try index.loadAll().map(\.relativePath)), ["x.jpg", "notes.txt", "s.psd", "d.tif"])
    }

    /// Schema 10 shows videos and reads Apple's Live Photo identifiers: files kept as not photos
    /// that a video's name, and Apple's stills, are read again, once; the rest stays.
    func testASchemaNineIndexReadsAgainWhatMayBeAVideoAndApplesStills() throws {
        let (db, path) = try index(atSchema: 9)
        let rows: [(String, String, String?)] = [
            ("x.jpg", "jpeg", "Canon"), ("IMG_1.JPG", "jpeg", "Apple"), ("IMG_2.HEIC", "heif", "Apple"), ("notes.txt", "ignored", nil),
            ("clip.MOV", "ignored", nil), ("b/VID_1.mp4", "problem", nil), ("c.m4v", "ignored", nil), ("d.3gp", "ignored", nil),
            ("song.m4a", "ignored", nil),
        ]
        for (i, (file, kind, make)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, make, orientation) VALUES (?, ?, 3, 4, ?, ?, 1)",
                         [.text(file), .int(Int64(i)), .text(kind), make.map { .text($0) }])
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        XCTAssertEqual(Set(try index.loadAll().map(\.relativePath)), ["x.jpg", "notes.txt", "song.m4a"])
    }

    /// Schema 11 reads IFD0 DateTime, a still's XMP CreateDate and EXIF cut at the cap: stills
    /// without DateTimeOriginal, or with problems, are read again, once (they lack their owner
    /// and mode); the rest stays as it is.
    func testASchemaTenIndexReadsAgainTheStillsThatMayHaveAWeakerDate() throws {
        let (db, path) = try index(atSchema: 10)
        let rows: [(String, String, String?, String?)] = [
            ("dated.jpg", "jpeg", "2020:01:01 10:00:00", nil), ("undated.heic", "heif", nil, nil),
            ("cut.heic", "heif", "2020:01:01 10:00:00", "metadata over the 256 KiB cap skipped (Exif)"), ("clip.mov", "video", nil, nil),
            ("n.txt", "ignored", nil, nil),
        ]
        for (i, (file, kind, dto, problems)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, dto, problems, orientation, uid, gid, mode) VALUES (?, ?, 3, 4, ?, ?, ?, 1, 0, 0, 420)",
                         [.text(file), .int(Int64(i)), .text(kind), dto.map { .text($0) }, problems.map { .text($0) }])
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        let lacking = try index.loadAll().filter(\.lacksAccess).map(\.relativePath)
        XCTAssertEqual(Set(lacking), ["undated.heic", "cut.heic", "clip.mov", "dated.jpg"],
                       "(the video: at schema 13; every still, for a rating it may carry: at schema 19)")
        XCTAssertEqual(try index.loadAll().count, rows.count)
    }

    /// Schema 9 keeps each photo's owner and mode. Rows from before stay, and say they lack them
    /// (a mount reads those photos again, once); a row saved now gives them back.
    func testASchemaEightIndexKeepsItsRowsAndPhotosLearnTheirOwnerAndMode() throws {
        let (db, path) = try index(atSchema: 8)
        for (i, (file, kind)) in [("x.jpg", "jpeg"), ("n.txt", "ignored")].enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, orientation) VALUES (?, ?, 3, 4, ?, 1)",
                         [.text(file), .int(Int64(i)), .text(kind)])
        }
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try SQLiteDatabase(path: path).userVersion, Int64(IndexSchema.migrations.count))
        let rows = try index.loadAll().sorted { $0.relativePath < $1.relativePath }
        XCTAssertEqual(rows.map(\.relativePath), ["n.txt", "x.jpg"])
        XCTAssertEqual(rows.map(\.lacksAccess), [false, true])
        var e = PhotoEvidence()
        e.access = FileAccess(uid: 1000, gid: 100, mode: 0o100640)
        let saved = IndexedFile(relativePath: "y.jpg", identity: FileIdentity(inode: 9, size: 3, mtime: Timestamp(seconds: 4)), kind: .photo(.jpeg, e))
        try index.save(upserts: [saved], removals: [])
        let back = try XCTUnwrap(try index.loadAll().first { $0.relativePath == "y.jpg" })
        XCTAssertEqual(back, saved)
        XCTAssertFalse(back.lacksAccess)
        guard case .photo(_, let read) = back.kind else { return XCTFail("\(back.kind)") }
        XCTAssertEqual(read.access, FileAccess(uid: 1000, gid: 100, mode: 0o640), "the permission bits only")
    }

    /// The motion photos migration: only JPEGs that may be motion photos (by their maker, by
    /// their name) are read again, once; every other row stays as it was. A row saved now keeps
    /// its video's range.
    func testTheMotionPhotoMigrationReadsAgainOnlyWhatMayBeAMotionPhoto() throws {
        let before = try XCTUnwrap(IndexSchema.migrations.firstIndex { $0.contains("motion_offset") })
        let (db, path) = try index(atSchema: before)
        let rows: [(String, String, String?)] = [("a.jpg", "jpeg", "samsung"), ("b.jpg", "jpeg", "Google"), ("c.jpg", "jpeg", "Canon"),
                                                 ("PXL_1.MP.jpg", "jpeg", nil), ("MVIMG_1.jpg", "jpeg", nil), ("d.png", "png", "samsung")]
        for (i, (file, kind, make)) in rows.enumerated() {
            try db.query("INSERT INTO files (path, inode, size, mtime_ns, kind, make, orientation, uid, gid, mode) VALUES (?, ?, 3, 4, ?, ?, 1, 0, 0, 420)",
                         [.text(file), .int(Int64(i)), .text(kind), make.map { .text($0) }])
        }
        // This migration alone (a later one may read more again for reasons of its own).
        try db.migrate(Array(IndexSchema.migrations.prefix(before + 1)))
        let lacking = Dictionary(uniqueKeysWithValues: try db.query("SELECT path, uid IS NULL FROM files").map { ($0[0].text, $0[1].int == 1) })
        XCTAssertEqual(lacking, ["a.jpg": true, "b.jpg": true, "c.jpg": false, "PXL_1.MP.jpg": true, "MVIMG_1.jpg": true, "d.png": false])
        let index = try LibraryIndex.openOrRebuild(path: path, warn: { XCTFail($0) })
        XCTAssertEqual(try index.loadAll().count, rows.count, "every row kept")
        var e = PhotoEvidence()
        e.access = FileAccess(uid: 0, gid: 0, mode: 0o644)
        e.motionVideo = ByteRange(offset: 12_345, length: 6_000_000_000)
        let saved = IndexedFile(relativePath: "m.jpg", identity: FileIdentity(inode: 99, size: 6_000_012_345, mtime: Timestamp(seconds: 4)),
                                kind: .photo(.jpeg, e))
        try index.save(upserts: [saved], removals: [])
        XCTAssertEqual(try index.loadAll().first { $0.relativePath == "m.jpg" }, saved)
    }
}
