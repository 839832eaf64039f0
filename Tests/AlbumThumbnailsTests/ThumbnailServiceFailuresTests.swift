import AlbumCore
import AlbumSample
@testable import AlbumThumbnails
import Foundation
import AlbumSystem
import XCTest

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
        let photo = ThumbnailPipelineTests.photoOnDisk(folder, "bad.jpg")
        let small = try XCTUnwrap(ThumbnailBox(width: 64, height: 64))

        let kept = Locked<[RecordedThumbnailFailure]>([])
        let first = ThumbnailService(boxes: [.default, small], cache: nil, record: { f in kept.withLock { $0.append(f) } }, log: { _ in })
        XCTAssertEqual(Self.errno(first.thumbnail(of: photo, sourceRoot: folder, box: .default)), .ioError)
        XCTAssertEqual(Self.errno(first.thumbnail(of: photo, sourceRoot: folder, box: small)), .ioError)
        let records = kept.withLock { $0 }
        XCTAssertEqual(records.map(\.relativePath), ["bad.jpg"], "kept once")
        XCTAssertEqual(records.first?.identity, photo.identity)
        XCTAssertEqual(records.first?.changedWhenRead, photo.changedWhenRead)
        XCTAssertFalse(records.first?.reason.isEmpty ?? true)

        let next = ThumbnailService(boxes: [.default], cache: nil, recorded: records, record: { _ in XCTFail("kept already") }, log: { _ in })
        XCTAssertEqual(next.unrenderable(), [UnrenderablePhoto(relativePath: "bad.jpg", identity: photo.identity, changedWhenRead: photo.changedWhenRead)])
        XCTAssertEqual(next.failures().map(\.error.description), [records[0].reason], "named in .albumfs/errors")
        XCTAssertEqual(Self.errno(next.thumbnail(of: photo, sourceRoot: folder, box: .default)), .ioError)
        XCTAssertEqual(next.renderCount, 0, "not decoded again")

        // The same path as another file (repaired, rewritten): tried again, and kept again.
        let stale = RecordedThumbnailFailure(relativePath: "bad.jpg", identity: photo.identity,
                                             changedWhenRead: Timestamp(seconds: 1), reason: records[0].reason)
        let again = Locked(0)
        let changed = ThumbnailService(boxes: [.default], cache: nil, recorded: [stale], record: { _ in again.withLock { $0 += 1 } }, log: { _ in })
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
