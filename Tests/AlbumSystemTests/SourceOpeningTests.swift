@testable import AlbumCore
import AlbumSystem
import CSysOpen
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
        let root = try SourceOpening.root(folder)
        defer { close(root) }
        let fd = try SourceOpening.readOnly("p.jpg", relativeTo: root)
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
        let root = try SourceOpening.root(folder)
        defer { close(root) }
        let fd = try SourceOpening.folder("inner", relativeTo: root)
        let dir = try XCTUnwrap(fdopendir(fd))
        var names = 0
        while readdir(dir) != nil { names += 1 }
        closedir(dir)
        XCTAssertEqual(names, 3, ". .. p.jpg")
        XCTAssertEqual(try SourceOpeningTests.accessTime(inner), SourceOpeningTests.staleAccessTime)
        XCTAssertEqual(symlink(inner, folder + "/to-inner"), 0)
        XCTAssertThrowsError(try SourceOpening.folder("to-inner", relativeTo: root))
        let followed = try SourceOpening.root(folder + "/to-inner")  // the library's own folder may be a link
        XCTAssertEqual(close(followed), 0)
    }

    /// `find` finds files and folders beneath the root through no link: a link on the way or at
    /// the end is ELOOP, nothing there ENOENT, a FIFO found without blocking.
    func testFindReachesNothingThroughALink() throws {
        try FileManager.default.createDirectory(atPath: folder + "/lib/a", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/lib/a/p.jpg", contents: Data("x".utf8)))
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/out/q.jpg", contents: Data("y".utf8)))
        XCTAssertEqual(symlink(folder + "/out", folder + "/lib/b"), 0)
        XCTAssertEqual(symlink(folder + "/out/q.jpg", folder + "/lib/q.jpg"), 0)
        XCTAssertEqual(mkfifo(folder + "/lib/fifo", 0o600), 0)
        let root = try SourceOpening.root(folder + "/lib")
        defer { close(root) }
        func found(_ path: String) -> Errno? {
            do throws(Errno) { try SourceOpening.find(path, relativeTo: root); return nil } catch { return error }
        }
        XCTAssertNil(found("a/p.jpg"))
        XCTAssertNil(found("a"))
        XCTAssertNil(found("fifo"))
        XCTAssertEqual(found("a/none.jpg"), .notFound)
        XCTAssertEqual(found("b/q.jpg"), Errno(rawValue: ELOOP))
        XCTAssertEqual(found("q.jpg"), Errno(rawValue: ELOOP))
        XCTAssertEqual(found("../out/q.jpg"), Errno(rawValue: EXDEV))
    }

    func testLinksAreNotFollowedFIFOsDoNotBlockMissingFilesSayWhy() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/real", contents: Data("x".utf8)))
        XCTAssertEqual(symlink(folder + "/real", folder + "/link"), 0)
        XCTAssertEqual(mkfifo(folder + "/fifo", 0o600), 0)
        let root = try SourceOpening.root(folder)
        defer { close(root) }
        XCTAssertThrowsError(try SourceOpening.readOnly("link", relativeTo: root)) { XCTAssertEqual($0 as? Errno, Errno(rawValue: ELOOP)) }
        XCTAssertThrowsError(try SourceOpening.readOnly("missing", relativeTo: root)) { XCTAssertEqual($0 as? Errno, .notFound) }
        let fifo = try SourceOpening.readOnly("fifo", relativeTo: root)  // (would hang without O_NONBLOCK)
        XCTAssertEqual(close(fifo), 0)
        let fd = try SourceOpening.readOnly("real", relativeTo: root)
        XCTAssertEqual(close(fd), 0)
    }

    /// Nothing outside the library's folder, by openat2 and by the walk that stands in for it on
    /// an older kernel: no link at any level (a folder swapped for a link to `/etc`), no `..`
    /// out of it, no absolute path.
    func testOpensStayBeneathTheLibraryThroughNoLinkAtAnyLevel() throws {
        try FileManager.default.createDirectory(atPath: folder + "/lib/a/b", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/lib/a/b/p.jpg", contents: Data("x".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/secret", contents: Data("s".utf8)))
        XCTAssertEqual(symlink(folder + "/lib/a", folder + "/lib/via-link"), 0)
        XCTAssertEqual(symlink("/etc", folder + "/lib/etc"), 0)
        let root = try SourceOpening.root(folder + "/lib")
        defer { close(root) }
        typealias Opener = (Int32, String, Int32) -> Int32
        let openers: [(String, Opener)] = [("openat2", { albumfs_open_beneath($0, $1, $2) }),
                                           ("walk", { albumfs_open_beneath_walk($0, $1, $2) })]
        for (name, openBeneath) in openers {
            func outcome(_ path: String) -> Int32 {
                let fd = openBeneath(root, path, O_RDONLY | O_NONBLOCK)
                if fd >= 0 { close(fd); return 0 }
                return errno
            }
            XCTAssertEqual(outcome("a/b/p.jpg"), 0, name)
            XCTAssertEqual(outcome("a//b/./p.jpg"), 0, name)
            XCTAssertEqual(outcome("via-link/b/p.jpg"), ELOOP, name)
            XCTAssertEqual(outcome("etc/passwd"), ELOOP, name)
            XCTAssertEqual(outcome("a/b/missing"), ENOENT, name)
            XCTAssertEqual(outcome("a/b/p.jpg/x"), ENOTDIR, name)
            XCTAssertEqual(outcome("../secret"), EXDEV, name)
            XCTAssertEqual(outcome(folder + "/secret"), EXDEV, name)
        }
    }

    /// The file a scan saw, and nothing else at its path: replaced, grown, rewritten in place
    /// (size and mtime restored: the ctime moved), or a link, it is "not found".
    func testAScannedFileMustStillBeTheFileScanned() throws {
        let path = folder + "/p.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("photo".utf8)))
        func scanned() throws -> ScannedFile {
            var st = stat()
            guard stat(path, &st) == 0 else { throw Errno.current }
            return ScannedFile(relativePath: "p.jpg", identity: FileIdentity(inode: UInt64(st.st_ino), size: Int64(st.st_size), mtime: Timestamp(st.st_mtim)),
                               changedWhenRead: Timestamp(st.st_ctim))
        }
        let seen = try scanned()
        let opened = try SourceOpening.scanned(seen, beneath: folder)
        XCTAssertEqual(opened.size, 5)
        close(opened.fd)
        // Rewritten in place, size and mtime put back as they were.
        var before = stat()
        XCTAssertEqual(stat(path, &before), 0)
        usleep(20_000)
        XCTAssertTrue(FileManager.default.createFile(atPath: path + ".new", contents: Data("PHOTO".utf8)))
        let fd = open(path, O_WRONLY)
        XCTAssertEqual(write(fd, "PHOTO", 5), 5)
        var times = [before.st_atim, before.st_mtim]
        XCTAssertEqual(futimens(fd, &times), 0)
        close(fd)
        XCTAssertThrowsError(try SourceOpening.scanned(seen, beneath: folder)) { XCTAssertEqual($0 as? Errno, .notFound) }
        XCTAssertNoThrow(close(try SourceOpening.scanned(try scanned(), beneath: folder).fd))
        // Replaced by another file, or by a link to it.
        XCTAssertEqual(rename(path + ".new", path), 0)
        XCTAssertThrowsError(try SourceOpening.scanned(seen, beneath: folder)) { XCTAssertEqual($0 as? Errno, .notFound) }
        let now = try scanned()
        XCTAssertEqual(rename(path, folder + "/moved.jpg"), 0)
        XCTAssertEqual(symlink(folder + "/moved.jpg", path), 0)
        XCTAssertThrowsError(try SourceOpening.scanned(now, beneath: folder)) { XCTAssertEqual($0 as? Errno, .notFound) }
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
