import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class OriginalTests: XCTestCase {
    /// A thumbnail is albumfs's own read of the original: the source's access time stays
    /// (relatime would write it here, atime being before mtime).
    func testReadingTheOriginalWritesNoAccessTime() throws {
        let path = NSTemporaryDirectory() + "albumfs-thumb-atime-\(getpid()).jpg"
        defer { unlink(path) }
        let jpeg = try SampleJPEG.jpeg(.marker(width: 8, height: 8))
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(jpeg)))
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_500_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
        let original = try ThumbnailService.openOriginal(Self.photoOnDisk(path.folderBeforeLastSlash, String(path.nameAfterLastSlash)),
                                                         sourceRoot: path.folderBeforeLastSlash)
        defer { close(original.fd) }
        XCTAssertEqual(original.size, jpeg.count)
        XCTAssertNoThrow(try ThumbnailRenderer().renderWithPlan(file: original.fd, size: original.size, format: .jpeg,
                                                                orientation: 1, box: .default))
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        XCTAssertEqual(st.st_atim.tv_sec, 1_000_000_000)
    }

    /// A JPEG (and a PNG shrunk while decoded) is decoded from its open file as it is read: the
    /// same thumbnail as from memory; a
    /// file cut short fails as before; an unreadable one is the original's failure (tried again
    /// later), not its content's; a few stray bytes in the header are passed over, as browsers do
    /// (TurboJPEG's header call refused them: "extraneous bytes before marker").
    func testAnOriginalIsDecodedFromItsFile() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-file-\(getpid())"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func render(_ bytes: [UInt8]) throws(ThumbnailError) -> [UInt8] {
            let path = folder + "/photo.jpg"
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let original = try Self.openOriginal(path)
            defer { close(original.fd) }
            return try ThumbnailRenderer().renderWithPlan(file: original.fd, size: original.size, format: .jpeg,
                                                          orientation: 6, box: .default).bytes
        }
        let jpeg = try SampleJPEG.jpeg(.marker(width: 1200, height: 800), kind: .progressive)
        XCTAssertEqual(try render(jpeg), try ThumbnailRenderer().render(jpeg, format: .jpeg, orientation: 6, box: .default))
        let half = Array(jpeg.prefix(jpeg.count / 2))
        XCTAssertEqual(try render(half), try ThumbnailRenderer().render(half, format: .jpeg, orientation: 6, box: .default),
                       "a file cut short renders what it holds, from its file as from memory")
        let dhtAt = try XCTUnwrap((2..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC4 })
        let stray = Array(jpeg[..<dhtAt]) + [UInt8](repeating: 0x00, count: 10) + Array(jpeg[dhtAt...])
        XCTAssertNoThrow(try render(stray))
        let directory = open(folder, O_RDONLY | O_DIRECTORY)
        defer { close(directory) }
        XCTAssertThrowsError(try JPEGStream(file: directory, range: 0..<4096)) { error in
            XCTAssertEqual((error as? ThumbnailError)?.isReadFailure, true, "\(error)")
        }
        // A PNG shrunk as it is decoded is read from its file the same way.
        var rowPath = ThumbnailRenderer()
        rowPath.shrinkPNGAbovePixels = 0
        let png = try SamplePNG.png(.marker(width: 1200, height: 800), kind: .rgba(alpha: 200))
        let path = folder + "/shot.png"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(png)))
        let original = try ThumbnailService.openOriginal(Self.photoOnDisk(path.folderBeforeLastSlash, String(path.nameAfterLastSlash)),
                                                         sourceRoot: path.folderBeforeLastSlash)
        defer { close(original.fd) }
        let fromFile = try rowPath.renderWithPlan(file: original.fd, size: original.size, format: .png, orientation: 1, box: .default)
        XCTAssertEqual(fromFile.plan.dctScale.1, 2, "800 high leaves 400: \(fromFile.plan)")
        XCTAssertEqual(fromFile.bytes, try rowPath.render(png, format: .png, orientation: 1, box: .default))
        XCTAssertThrowsError(try PNGDecoder.decodeShrinking(Original(fd: directory, size: 4096), maxPixels: 1 << 30, minWidth: 40, minHeight: 40)) { error in
            XCTAssertEqual((error as? ThumbnailError)?.isReadFailure, true, "\(error)")
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(png.prefix(png.count / 2))))
        let cut = try Self.openOriginal(path)
        defer { close(cut.fd) }
        XCTAssertThrowsError(try rowPath.renderWithPlan(file: cut.fd, size: cut.size, format: .png, orientation: 1, box: .default)) { error in
            XCTAssertEqual((error as? ThumbnailError)?.isReadFailure, false, "\(error)")
        }
    }
}
