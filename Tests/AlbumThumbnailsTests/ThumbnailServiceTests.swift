import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class ThumbnailServiceTests: XCTestCase {
    func testSingleFlightAndRememberedFailures() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/a.jpg", contents: Data(try SampleJPEG.jpeg(.marker(width: 3000, height: 2000)))))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/bad.jpg", contents: Data([0xFF, 0xD8, 0xFF])))
        let logged = LoggedLines()
        let service = ThumbnailService(boxes: [.default], cache: try ThumbnailCache(directory: folder + "/cache", maxBytes: 1 << 30), log: logged.append)
        // Each file its identity as on disk (the cache key is made from it, and the render checks it).
        @Sendable func photo(_ name: String) -> Photo { Self.photoOnDisk(folder, name) }
        var results = [[UInt8]?](repeating: nil, count: 16)
        let target = photo("a.jpg")
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer  // each thread writes its own slot
            DispatchQueue.concurrentPerform(iterations: 16) { i in
                out[i] = try? service.thumbnail(of: target, sourceRoot: folder, box: .default).get()
            }
        }
        XCTAssertEqual(service.renderCount, 1)
        XCTAssertTrue(results.allSatisfy { $0 != nil && $0 == results[0] })
        for _ in 0..<3 { XCTAssertNil(try? service.thumbnail(of: photo("bad.jpg"), sourceRoot: folder, box: .default).get()) }
        XCTAssertEqual(service.renderCount, 2)
        XCTAssertEqual(service.failures().count, 1)
        // An original not at its path is tried again on the next read (its folder renamed back,
        // the file, and so the key, unchanged); the service neither remembers nor logs it, nor
        // counts a render: the filesystem follows the move, or says the file is gone (ENOENT).
        let later = photo("later.jpg")  // (not there yet)
        for _ in 0..<2 {
            let r = service.thumbnailOrError(of: later, sourceRoot: folder, box: .default)
            XCTAssertEqual(r.map { _ in true }, Result<Bool, ThumbnailError>.failure(ThumbnailError("cannot open the original: No such file or directory", isMissing: true)))
            XCTAssertEqual(service.thumbnail(of: later, sourceRoot: folder, box: .default).map { _ in true }, .failure(.notFound))
        }
        XCTAssertEqual(service.failures().count, 1, "not remembered")
        XCTAssertEqual(logged.count(where: { $0.contains("later.jpg") }), 0, "not logged by the service")
        XCTAssertEqual(service.renderCount, 2, "no render")
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/later.jpg", contents: Data(try SampleJPEG.jpeg(.marker(width: 300, height: 200)))))
        XCTAssertNotNil(try? service.thumbnail(of: photo("later.jpg"), sourceRoot: folder, box: .default).get())
        XCTAssertEqual(service.renderCount, 3)
        // The bad file repaired in place, its size and mtime kept: read again by the scan, the
        // photo has another ctime when read, and its thumbnail is tried again.
        let bad = photo("bad.jpg")
        let repairedBytes = try SampleJPEG.jpeg(.marker(width: 300, height: 200))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/bad.jpg", contents: Data(repairedBytes)))
        let repaired = photo("bad.jpg")
        XCTAssertNotEqual(repaired.changedWhenRead, bad.changedWhenRead)
        XCTAssertNotNil(try? service.thumbnail(of: repaired, sourceRoot: folder, box: .default).get())
        XCTAssertEqual(service.renderCount, 4)
        XCTAssertEqual(service.failures().map(\.photo.changedWhenRead), [bad.changedWhenRead], "the failure is of the photo as it was")
    }

    func testThumbnailsAskedForAheadAreMadeInTheBackgroundOnceAndNoMoreAtOnceThanAllowed() throws {
        let folder = NSTemporaryDirectory() + "albumfs-ahead-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let big = Data(try SampleJPEG.jpeg(.marker(width: 6000, height: 4000)))
        for i in 0..<8 { XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/\(i).jpg", contents: big + Data([UInt8(i)]))) }
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/bad.jpg", contents: Data([0xFF, 0xD8, 0xFF])))
        @Sendable func photo(_ name: String) -> Photo { Self.photoOnDisk(folder, name) }
        func settled(_ service: ThumbnailService) -> Int {
            var last = -1
            while service.renderCount != last { last = service.renderCount; usleep(300_000) }
            return last
        }
        let none = ThumbnailService(boxes: [.default], cache: try ThumbnailCache(directory: folder + "/none", maxBytes: 1 << 30), log: { _ in })
        none.prepare(photo("0.jpg"), sourceRoot: folder, box: .default)
        XCTAssertEqual(settled(none), 0, "nothing made ahead by a service told none")
        let reference = try none.thumbnail(of: photo("0.jpg"), sourceRoot: folder, box: .default).get()

        let logged = LoggedLines()
        let service = ThumbnailService(boxes: [.default], cache: try ThumbnailCache(directory: folder + "/cache", maxBytes: 1 << 30),
                                       options: .init(ahead: 2), log: logged.append)
        // Eight asked for at once (each a 24 MP decode): two are made, the others dropped.
        for i in 0..<8 { service.prepare(photo("\(i).jpg"), sourceRoot: folder, box: .default) }
        XCTAssertEqual(settled(service), 2)
        XCTAssertEqual(service.renderAheadCount, 2)
        // What was made ahead is what a read gets, and is not made again.
        XCTAssertEqual(try service.thumbnail(of: photo("0.jpg"), sourceRoot: folder, box: .default).get(), reference)
        service.prepare(photo("0.jpg"), sourceRoot: folder, box: .default)
        XCTAssertEqual(settled(service), 2, "made already")
        // A failure made ahead is remembered and logged once, as a read's is, and the thumbnail
        // stays listed until a read meets it.
        service.prepare(photo("bad.jpg"), sourceRoot: folder, box: .default)
        XCTAssertEqual(settled(service), 3)
        service.prepare(photo("bad.jpg"), sourceRoot: folder, box: .default)
        XCTAssertEqual(service.failures().count, 1)
        XCTAssertEqual(service.unrenderable().count, 0, "listed until read")
        XCTAssertNil(try? service.thumbnail(of: photo("bad.jpg"), sourceRoot: folder, box: .default).get())
        XCTAssertEqual(settled(service), 3, "not tried again")
        XCTAssertEqual(service.unrenderable().map(\.relativePath), ["bad.jpg"], "unlisted once read")
        XCTAssertEqual(logged.count(where: { $0.contains("bad.jpg") }), 1)
    }

    /// A cache that cannot take a thumbnail (a full disk; here its subfolder is a file: ENOTDIR)
    /// loses nothing: the thumbnail is served and kept in memory, and the reason is said once.
    /// With no cache to write, the last `memoryCap` thumbnails are kept in memory: the older ones
    /// are made again when asked for, the recent ones are not.
    func testThumbnailsKeptInMemoryAreCapped() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-memory-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let service = ThumbnailService(boxes: [.default], cache: nil, options: .init(memoryCap: 3), log: { _ in })
        var photos: [Photo] = []
        for i in 0..<5 {
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/p\(i).jpg", contents: Data(try SampleJPEG.jpeg(.marker(width: 64, height: 48, tint: UInt8(i * 40))))))
            photos.append(Self.photoOnDisk(folder, "p\(i).jpg"))
        }
        for photo in photos { _ = try service.thumbnail(of: photo, sourceRoot: folder, box: .default).get() }
        XCTAssertEqual(service.renderCount, 5)
        for photo in photos.suffix(3) { _ = try service.thumbnail(of: photo, sourceRoot: folder, box: .default).get() }
        XCTAssertEqual(service.renderCount, 5, "the last three are in memory")
        _ = try service.thumbnail(of: photos[0], sourceRoot: folder, box: .default).get()
        XCTAssertEqual(service.renderCount, 6, "the first was let go")
    }

    func testACacheThatCannotBeWrittenIsSaidOnce() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-full-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder + "/cache", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try XCTUnwrap(ThumbnailCache(directory: folder + "/cache", maxBytes: 1 << 30))
        let logged = LoggedLines()
        let service = ThumbnailService(boxes: [.default], cache: cache, log: logged.append)
        var photos: [Photo] = []
        for i in 0..<3 {
            let name = "p\(i).jpg"
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(try SampleJPEG.jpeg(.marker(width: 300, height: 200)))))
            let photo = Self.photoOnDisk(folder, name)
            // Where its thumbnail would go is taken by a file.
            let key = ThumbnailCache.key(of: photo, box: .default)
            _ = FileManager.default.createFile(atPath: folder + "/cache/" + key.prefix(2), contents: Data())
            photos.append(photo)
        }
        for photo in photos + photos {
            let bytes = try service.thumbnail(of: photo, sourceRoot: folder, box: .default).get()
            XCTAssertEqual(bytes.count, Int(service.size(for: .default)))
        }
        XCTAssertEqual(service.renderCount, 3, "served from memory the second time")
        XCTAssertEqual(logged.count(where: { $0.contains("cannot be written (Not a directory)") }), 1, "said once")
        XCTAssertEqual(service.cacheBytes, 0)
        XCTAssertEqual(service.cacheWriteFailure, Errno(rawValue: ENOTDIR))
        // Room again (the files in the way gone): the next write succeeds and the status says so.
        for prefix in Set(photos.map { ThumbnailCache.key(of: $0, box: .default).prefix(2) }) {
            unlink(folder + "/cache/" + prefix)
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/p3.jpg", contents: Data(try SampleJPEG.jpeg(.marker(width: 300, height: 200)))))
        let later = Self.photoOnDisk(folder, "p3.jpg")
        XCTAssertNoThrow(try service.thumbnail(of: later, sourceRoot: folder, box: .default).get())
        XCTAssertNil(service.cacheWriteFailure)
    }

    /// The card itself mounted at another path: its thumbnail comes from the cache, not rendered again.
    func testAPhotoOnACardMountedElsewhereKeepsItsCachedThumbnail() throws {
        let folder = NSTemporaryDirectory() + "albumfs-card-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 300, height: 200)))
        for mount in ["EOS_DIGITAL", "EOS_DIGITAL1"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + mount + "/DCIM", withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + mount + "/DCIM/IMG_0001.JPG", contents: jpeg))
            var times = [timespec(tv_sec: 4, tv_nsec: 0), timespec(tv_sec: 4, tv_nsec: 0)]
            XCTAssertEqual(utimensat(AT_FDCWD, folder + "/" + mount + "/DCIM/IMG_0001.JPG", &times, 0), 0)
        }
        let photo = Photo(relativePath: "DCIM/IMG_0001.JPG", format: .jpeg, identity: FileIdentity(inode: 0, size: Int64(jpeg.count), mtime: Timestamp(seconds: 4)),
                          decisions: PhotoDecisions(capture: CaptureDecision(time: CaptureTime(local: LocalDateTime(year: 2020, month: 1, day: 1)), source: .fileName),
                                                    captureInstant: Timestamp(seconds: 0),
                                                    screenshot: ScreenshotDecision(isScreenshot: false, reason: "")))
        let cache = try XCTUnwrap(ThumbnailCache(directory: folder + "/cache", maxBytes: 1 << 30))
        let first = ThumbnailService(boxes: [.default], cache: cache, log: { XCTFail($0) })
        let made = try first.thumbnail(of: photo, sourceRoot: folder + "/EOS_DIGITAL", box: .default).get()
        XCTAssertEqual(first.renderCount, 1)
        let later = ThumbnailService(boxes: [.default], cache: cache, log: { XCTFail($0) })
        XCTAssertEqual(try later.thumbnail(of: photo, sourceRoot: folder + "/EOS_DIGITAL1", box: .default).get(), made)
        XCTAssertEqual(later.renderCount, 0, "served from the cache")
    }
}

/// Failures from a photo's content kept beyond one mount (`ThumbnailService`'s `recorded` and
/// `record`).
final class ThumbnailServiceFailuresTests: XCTestCase {
    /// A failure met at a read is handed to `record` once (whatever the boxes), with the photo's
    /// identity and ctime when read; a service given it lists no thumbnail of that photo from the
    /// start and decodes nothing for it, while a photo changed since is tried again.
    func testAFailureKeptHidesTheThumbnailFromTheStartOfTheNextService() throws {
        let folder = NSTemporaryDirectory() + "albumfs-kept-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/bad.jpg", contents: Data(try SampleLibrary.undecodableJPEG())))
        let photo = Self.photoOnDisk(folder, "bad.jpg")
        let small = try XCTUnwrap(ThumbnailBox(width: 64, height: 64))

        let kept = Locked<[RecordedThumbnailFailure]>([])
        let first = ThumbnailService(boxes: [.default, small], cache: nil, failures: .init(record: { f in kept.withLock { $0.append(f) } }), log: { _ in })
        XCTAssertEqual(Self.errno(first.thumbnail(of: photo, sourceRoot: folder, box: .default)), .ioError)
        XCTAssertEqual(Self.errno(first.thumbnail(of: photo, sourceRoot: folder, box: small)), .ioError)
        let records = kept.withLock { $0 }
        XCTAssertEqual(records.map(\.relativePath), ["bad.jpg"], "kept once")
        XCTAssertEqual(records.first?.identity, photo.identity)
        XCTAssertEqual(records.first?.changedWhenRead, photo.changedWhenRead)
        XCTAssertFalse(records.first?.reason.isEmpty ?? true)

        let next = ThumbnailService(boxes: [.default], cache: nil, failures: .init(recorded: records, record: { _ in XCTFail("kept already") }), log: { _ in })
        XCTAssertEqual(next.unrenderable(), [UnrenderablePhoto(relativePath: "bad.jpg", identity: photo.identity, changedWhenRead: photo.changedWhenRead)])
        XCTAssertEqual(next.failures().map(\.error.description), [records[0].reason], "named in .albumfs/errors")
        XCTAssertEqual(Self.errno(next.thumbnail(of: photo, sourceRoot: folder, box: .default)), .ioError)
        XCTAssertEqual(next.renderCount, 0, "not decoded again")

        // The same path as another file (repaired, rewritten): tried again, and kept again.
        let stale = RecordedThumbnailFailure(relativePath: "bad.jpg", identity: photo.identity,
                                             changedWhenRead: Timestamp(seconds: 1), reason: records[0].reason)
        let again = Locked(0)
        let changed = ThumbnailService(boxes: [.default], cache: nil, failures: .init(recorded: [stale], record: { _ in again.withLock { $0 += 1 } }),
                                       log: { _ in })
        XCTAssertEqual(Self.errno(changed.thumbnail(of: photo, sourceRoot: folder, box: .default)), .ioError)
        XCTAssertEqual(changed.renderCount, 1)
        XCTAssertEqual(again.withLock { $0 }, 1)
    }

    /// The errno a thumbnail read answered, nil when it made one.
    static func errno(_ result: Result<[UInt8], Errno>) -> Errno? {
        if case .failure(let e) = result { return e }
        return nil
    }
}
