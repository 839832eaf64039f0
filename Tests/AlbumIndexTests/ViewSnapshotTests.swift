import AlbumCore
import AlbumSystem
import Foundation
import XCTest
@testable import AlbumIndex

/// The views snapshot: what a remount shows before deciding any photo again.
final class ViewSnapshotTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-snapshot-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// Photos of every kind the views treat apart: screenshots, videos and a Live Photo pair,
    /// names that collide (renamed entries), problems and refused dates, with and without an
    /// owner, a ctime, a zone; times before 1970 and with nanoseconds.
    static func photos() -> [Photo] {
        var photos: [Photo] = []
        for k in 0..<60 {
            let ext = ["jpg", "png", "heic", "mov"][k % 4]
            let format: ImageFormat = [.jpeg, .png, .heif, .video][k % 4]
            let name = k % 7 == 0 ? "IMG_0001.\(ext)" : "IMG_\(k).\(ext)"  // collisions across folders
            let local = LocalDateTime(year: k == 5 ? 1960 : 2000 + k % 20, month: 1 + k % 12, day: 1 + k % 28, hour: k % 24,
                                      minute: k % 60, second: k % 60, nanosecond: k * 1_000_001)
            let time = CaptureTime(local: local, utcOffsetSeconds: k % 3 == 0 ? nil : 3600 * (k % 5))
            let decisions = PhotoDecisions(
                capture: CaptureDecision(time: time, source: DateSource.allCases[k % DateSource.allCases.count],
                                         rejected: k % 4 == 1 ? ["exif:DateTimeOriginal \"0000\" (sentinel)"] : []),
                captureInstant: Timestamp(seconds: Int64(k == 5 ? -315_619_200 : 946_684_800 + k * 86_400), nanoseconds: k == 5 ? -5 : k),
                screenshot: ScreenshotDecision(isScreenshot: k % 6 == 0, reason: k % 6 == 0 ? "name: Screenshot" : "camera"),
                orientation: 1 + k % 8, problems: k % 9 == 0 ? ["no date", "odd size"] : [])
            var photo = Photo(relativePath: "folder \(k % 5)/\(name)", format: format,
                              identity: FileIdentity(inode: UInt64(1000 + k), size: Int64(k * 100),
                                                     mtime: Timestamp(seconds: Int64(1_600_000_000 + k), nanoseconds: k)),
                              decisions: decisions,
                              changedWhenRead: k % 2 == 0 ? Timestamp(seconds: Int64(1_700_000_000 + k)) : nil,
                              access: k % 3 == 0 ? nil : FileAccess(uid: UInt32(k), gid: 100, mode: 0o640))
            photo.liveIdentifier = k == 3 || k == 4 ? 42 : 0
            photo.camera = ["Canon EOS R5", CameraNames.unknown, "Apple iPhone 15 Pro"][k % 3]
            if k % 5 == 1 {
                photo.rating = [-1, 3, 4, 5][k % 4]
                photo.ratingSource = k % 2 == 0 ? .xmp : .exif
                photo.isFavorite = photo.rating! >= 4
            }
            // Kinds: a panorama's and a burst's signals (and the burst's identifier among its texts).
            if k % 7 == 2 { photo.kindSignals = 1 << UInt16(MediaKindRules.table.firstIndex { $0.kind == .panoramas }!) }
            if k % 7 == 3 {
                photo.kindSignals = 1 << UInt16(MediaKindRules.table.firstIndex { $0.kind == .bursts }!)
                photo.sidecarAttributes = [Photo.burstAttribute, "burst \(k % 2)"]
            }
            if k % 4 == 2 {
                // Paris, Kyoto, and a Vincent of California (places/), or a position near no city.
                photo.place = k % 12 == 10 ? nil : [7255, 13174, 23191][k % 3]
                photo.position = PlacePosition(latitude: -33.856_8 + Double(k), longitude: 151.215_3 - Double(k))
                photo.capture.offsetFromPlace = k % 8 == 2
            }
            photos.append(photo)
        }
        return photos
    }

    static func library(_ photos: [Photo] = photos()) -> Library {
        LibraryViews.build(photos: photos, ViewSettings(thumbnailBoxes: [ThumbnailBox.default, ThumbnailBox(width: 64, height: 48)!],
                                                        withStatus: true, withPicks: true, emptyMtime: Timestamp(seconds: 1_234_567_890)))
    }

    /// Every folder and entry, in readdir order: name, kind, content, mtime; lookups by name too.
    func lines(_ folder: VirtualFolder, _ prefix: String = "") -> [String] {
        var out = ["\(prefix)/ \(folder.mtime) \(folder.count)"]
        for (k, node) in folder.children.enumerated() {
            XCTAssertEqual(folder.index(named: node.name), k, "lookup of \(node.name)")
            switch node {
            case .folder(let f): out += lines(f, prefix + "/" + f.name)
            case .file(let name, let content, let mtime): out.append("\(prefix)/\(name) \(content) \(mtime)")
            }
        }
        return out
    }

    func testASnapshotGivesBackTheSameLibrary() throws {
        let library = Self.library()
        XCTAssertFalse(library.livePartners.isEmpty, "the fixture has a Live Photo pair")
        let bytes = ViewSnapshot.encode(library, key: "k", generation: 7)
        let back = try bytes.withUnsafeBytes { raw throws(SnapshotRefusal) in try ViewSnapshot.decode(raw, key: "k", generation: 7) }
        XCTAssertEqual(back.photos.map(\.fingerprint), library.photos.map(\.fingerprint), "every photo's fields")
        XCTAssertEqual(back.photos.map(\.fileName), library.photos.map(\.fileName))
        XCTAssertEqual(back.livePartners, library.livePartners)
        let expected = lines(library.root)
        XCTAssertGreaterThan(expected.count, 60 * 4)
        XCTAssertEqual(lines(back.root), expected)
        guard case .folder(let flat)? = back.root.child(named: "non-screenshots"), case .photos(let entries) = flat.entries else {
            return XCTFail("no non-screenshots/")
        }
        XCTAssertFalse(entries.renamed.isEmpty, "colliding names are renamed entries, kept")
        XCTAssertEqual(back.photos.map(\.kindSignals), library.photos.map(\.kindSignals))
        guard case .folder(let media)? = back.root.child(named: "media-types"), case .folder(let bursts)? = media.child(named: "bursts") else {
            return XCTFail("no media-types/bursts/")
        }
        XCTAssertEqual(bursts.count, 2, "two bursts, a folder each")
        // Made again from what it gave back: the same bytes.
        XCTAssertEqual(ViewSnapshot.encode(back, key: "k", generation: 7), bytes)
    }

    func testAnotherKeyOrGenerationIsRefused() throws {
        let bytes = ViewSnapshot.encode(Self.library(), key: "options A", generation: 3)
        try bytes.withUnsafeBytes { raw in
            XCTAssertThrowsError(try ViewSnapshot.decode(raw, key: "options B", generation: 3))
            XCTAssertThrowsError(try ViewSnapshot.decode(raw, key: "options A", generation: 4)) { XCTAssertTrue(($0 as? SnapshotRefusal)?.isStale ?? false) }
            XCTAssertNoThrow(try ViewSnapshot.decode(raw, key: "options A", generation: 3))
        }
    }

    /// A snapshot cut anywhere is refused; one with any byte changed is refused or read, never
    /// read past its end nor trapped on.
    func testADamagedSnapshotIsRefusedNeverReadPast() throws {
        let bytes = ViewSnapshot.encode(Self.library(), key: "k", generation: 1)
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 1500)) {
            let cut = Array(bytes.prefix(length))
            try cut.withUnsafeBytes { raw in XCTAssertThrowsError(try ViewSnapshot.decode(raw, key: "k", generation: 1), "cut at \(length)") }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            var damaged = bytes
            let at = Int.random(in: 0..<damaged.count, using: &generator)
            damaged[at] = UInt8.random(in: 0...255, using: &generator)
            damaged.withUnsafeBytes { raw in _ = try? ViewSnapshot.decode(raw, key: "k", generation: 1) }  // vacuous-ok: one damaged byte may leave a snapshot that decodes or one refused; either way it must return, not crash
        }
    }

    func testSavedAndLoadedThroughAFile() throws {
        let path = folder + "/index.sqlite.views"
        XCTAssertNil(ViewSnapshot.load(path: path, key: "k", generation: 1).refusal, "no snapshot is no failure")
        XCTAssertNil(ViewSnapshot.save(Self.library(), path: path, key: "k", generation: 1))
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600, "the user's alone")
        let loaded = ViewSnapshot.load(path: path, key: "k", generation: 1)
        XCTAssertEqual(loaded.library?.photos.count, 60)
        let stale = ViewSnapshot.load(path: path, key: "k", generation: 2)
        XCTAssertNil(stale.library)
        XCTAssertNil(stale.refusal, "another generation's snapshot is none, not a failure")
        XCTAssertNil(ViewSnapshot.load(path: path, key: "other", generation: 1).library)
        // A link in its place is not followed.
        XCTAssertEqual(rename(path, folder + "/real"), 0)
        XCTAssertEqual(symlink(folder + "/real", path), 0)
        XCTAssertNil(ViewSnapshot.load(path: path, key: "k", generation: 1).library)
        XCTAssertNotNil(ViewSnapshot.load(path: path, key: "k", generation: 1).refusal)
        // An empty file is refused, not trapped on.
        unlink(path)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        XCTAssertNotNil(ViewSnapshot.load(path: path, key: "k", generation: 1).refusal)
    }

    /// The index counts its writes: a snapshot names the count it shows.
    func testTheIndexGenerationCountsWritesOnly() throws {
        let index = try LibraryIndex.openOrRebuild(path: folder + "/index.sqlite", warn: { XCTFail($0) })
        XCTAssertEqual(try index.generation(), 0)
        let file = IndexedFile(relativePath: "a.jpg", identity: FileIdentity(inode: 1, size: 2, mtime: Timestamp(seconds: 3)), kind: .ignored)
        try index.save(upserts: [file], removals: [])
        XCTAssertEqual(try index.generation(), 1)
        _ = try index.loadAll()
        _ = try index.files(sameAs: [(path: "b.jpg", identity: file.identity)])
        XCTAssertEqual(try index.generation(), 1, "reads change nothing")
        try index.save(moves: [FileMove(from: "a.jpg", to: "b.jpg", identity: file.identity)])
        try index.save(upserts: [], removals: ["a.jpg"])
        XCTAssertEqual(try index.generation(), 3)
        try index.save(upserts: [], removals: [])
        XCTAssertEqual(try index.generation(), 3, "nothing to write is no write")
    }
}
