import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

/// What the thumbnail tests share: reading a JPEG's size, pixels and profile, `heif-info`, and
/// originals opened as a render opens them.
extension XCTestCase {
    /// The similar-photo hash of the JPEG at `path`, made as a render worker makes it.
    func perceptualHash(ofJPEG path: String, orientation: Int = 1) throws -> UInt64 {
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var st = stat()
        XCTAssertEqual(fstat(fd, &st), 0)
        return try ThumbnailRenderer().perceptualHash(SourceImage(fd: fd, size: Int(st.st_size), format: .jpeg, orientation: orientation))
    }

    func dimensions(_ jpeg: [UInt8]) -> (Int, Int)? {
        guard let h = tjInitDecompress() else { return nil }
        defer { tjDestroy(h) }
        var w: Int32 = 0, hh: Int32 = 0, s: Int32 = 0, c: Int32 = 0
        let rc = jpeg.withUnsafeBufferPointer { tjDecompressHeader3(h, $0.baseAddress, UInt($0.count), &w, &hh, &s, &c) }
        return rc == 0 ? (Int(w), Int(hh)) : nil
    }

    /// What `heif-info` (libheif's own tool) says of a file.
    func heifInfo(_ heif: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "albumfs-heif-info-\(getpid()).heic"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(heif)))
        defer { unlink(path) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/heif-info")
        p.arguments = [path]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text
    }

    /// The profile a thumbnail carries, read back by libjpeg (`jpeg_read_icc_profile`).
    func carriedProfile(_ thumbnail: [UInt8]) throws -> [UInt8]? {
        try JPEGStream(bytes: thumbnail).iccProfile()
    }

    func jpegPixels(_ jpeg: [UInt8]) throws -> RGBImage {
        try JPEGStream(bytes: jpeg).decode(scale: (1, 1)).image
    }

    /// The file at `path` opened as a render opens it, as scanned now.
    static func openOriginal(_ path: String) throws(ThumbnailError) -> OpenedSource {
        let root = path.folderBeforeLastSlash
        return try ThumbnailService.openOriginal(photoOnDisk(root, String(path.nameAfterLastSlash)), sourceRoot: root)
    }

    /// A photo as a scan of `root` would see `name` now: its identity and ctime from `stat`
    /// (a file not there: made-up numbers that no file has).
    static func photoOnDisk(_ root: String, _ name: String, orientation: Int = 1) -> Photo {
        var st = stat()
        let there = stat(root + "/" + name, &st) == 0
        return Photo(relativePath: name, format: .jpeg,
                     identity: there ? FileIdentity(inode: UInt64(st.st_ino), size: Int64(st.st_size), mtime: Timestamp(st.st_mtim))
                                     : FileIdentity(inode: 1, size: 3, mtime: Timestamp(seconds: 4)),
                     decisions: PhotoDecisions(capture: CaptureDecision(time: CaptureTime(local: LocalDateTime(year: 2020, month: 1, day: 1)), source: .fileName),
                                               captureInstant: Timestamp(seconds: 0),
                                               screenshot: ScreenshotDecision(isScreenshot: false, reason: ""), orientation: orientation),
                     changedWhenRead: there ? Timestamp(st.st_ctim) : nil)
    }
}

/// Log lines a service wrote, from any thread.
final class LoggedLines: @unchecked Sendable {
    private var lines: [String] = []
    private let lock = NSLock()

    func append(_ line: String) { lock.withLock { lines.append(line) } }

    func count(where matches: (String) -> Bool) -> Int { lock.withLock { lines.filter(matches).count } }
}
