@testable import AlbumCore
import Foundation
import Glibc
import XCTest

/// albumfs's own reads of the library (scan, thumbnails, pick hashes) open files this way.
final class SourceOpeningTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-open-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// Reading through the descriptor leaves the access time as it was, even where relatime
    /// would write it (atime before mtime).
    func testReadingWritesNoAccessTime() throws {
        let path = folder + "/p.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("photo bytes".utf8)))
        try SourceOpeningTests.makeAccessTimeStale(path)
        let fd = try SourceOpening.readOnly(path)
        var buffer = [UInt8](repeating: 0, count: 64)
        XCTAssertEqual(read(fd, &buffer, buffer.count), 11)
        XCTAssertEqual(close(fd), 0)
        XCTAssertEqual(try SourceOpeningTests.accessTime(path), SourceOpeningTests.staleAccessTime)
    }

    /// Listing a folder opened for the walk leaves its access time as it was too; a link is
    /// opened as a folder only when asked.
    func testListingAFolderWritesNoAccessTime() throws {
        let inner = folder + "/inner"
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: inner + "/p.jpg", contents: Data("x".utf8)))
        try SourceOpeningTests.makeAccessTimeStale(inner)
        let fd = try SourceOpening.folder(inner)
        let dir = try XCTUnwrap(fdopendir(fd))
        var names = 0
        while readdir(dir) != nil { names += 1 }
        closedir(dir)
        XCTAssertEqual(names, 3, ". .. p.jpg")
        XCTAssertEqual(try SourceOpeningTests.accessTime(inner), SourceOpeningTests.staleAccessTime)
        XCTAssertEqual(symlink(inner, folder + "/to-inner"), 0)
        XCTAssertThrowsError(try SourceOpening.folder(folder + "/to-inner"))
        let followed = try SourceOpening.folder(folder + "/to-inner", followingLinks: true)
        XCTAssertEqual(close(followed), 0)
    }

    func testLinksAreNotFollowedFIFOsDoNotBlockMissingFilesSayWhy() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/real", contents: Data("x".utf8)))
        XCTAssertEqual(symlink(folder + "/real", folder + "/link"), 0)
        XCTAssertEqual(mkfifo(folder + "/fifo", 0o600), 0)
        XCTAssertThrowsError(try SourceOpening.readOnly(folder + "/link")) { XCTAssertEqual($0 as? Errno, Errno(rawValue: ELOOP)) }
        XCTAssertThrowsError(try SourceOpening.readOnly(folder + "/missing")) { XCTAssertEqual($0 as? Errno, .notFound) }
        let fifo = try SourceOpening.readOnly(folder + "/fifo")  // (would hang without O_NONBLOCK)
        XCTAssertEqual(close(fifo), 0)
        // Relative to an open folder.
        let dir = open(folder, O_RDONLY | O_DIRECTORY)
        defer { close(dir) }
        let fd = try SourceOpening.readOnly("real", relativeTo: dir)
        XCTAssertEqual(close(fd), 0)
    }

    static let staleAccessTime = 1_000_000_000

    /// Sets atime before mtime: exactly when relatime would update it on the next read.
    static func makeAccessTimeStale(_ path: String) throws {
        var times = [timespec(tv_sec: staleAccessTime, tv_nsec: 0), timespec(tv_sec: 1_500_000_000, tv_nsec: 0)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw Errno.current }
    }

    static func accessTime(_ path: String) throws -> Int {
        var st = stat()
        guard stat(path, &st) == 0 else { throw Errno.current }
        return st.st_atim.tv_sec
    }
}
