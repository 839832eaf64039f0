import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class ThumbnailCacheTests: XCTestCase {
    /// The pipeline's version is part of every cache key: a thumbnail made by an earlier pipeline
    /// is never served, and is made again once.
    func testANewPipelineVersionMakesNewKeys() {
        let identity = FileIdentity(inode: 7, size: 100, mtime: Timestamp(seconds: 5))
        func key(_ version: Int) -> String {
            ThumbnailCache.key(path: "a.jpg", identity: identity, changedWhenRead: nil, orientation: 1, box: .default, pipeline: version)
        }
        XCTAssertEqual(key(ThumbnailRenderer.pipelineVersion), ThumbnailCache.key(path: "a.jpg", identity: identity, changedWhenRead: nil,
                                                                                   orientation: 1, box: .default))
        XCTAssertNotEqual(key(ThumbnailRenderer.pipelineVersion), key(ThumbnailRenderer.pipelineVersion - 1))
        XCTAssertNotEqual(key(3), key(4))
        XCTAssertEqual(key(3), key(3))
    }

    func testCacheWritesAtomicallyAndEvictsLeastRecentlyUsed() throws {
        let folder = NSTemporaryDirectory() + "albumfs-cache-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try XCTUnwrap(ThumbnailCache(directory: folder, maxBytes: 10_000))
        let blob = [0xFF, 0xD8] + [UInt8](repeating: 7, count: 2996) + [0xFF, 0xD9]
        // What another daemon sharing the folder is writing (its temporary file, oldest of all).
        XCTAssertEqual(mkdir(folder + "/aa", 0o700), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/aa/.tmp-1-2", contents: Data(blob)))
        // ... and what a writer that died left, two hours ago.
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/aa/.tmp-3-4", contents: Data(blob)))
        var twoHoursAgo = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, folder + "/aa/.tmp-3-4", &twoHoursAgo, 0), 0)
        usleep(20_000)
        for k in ["aa01", "aa02", "aa03"] {
            XCTAssertNoThrow(try cache.write(k, blob))
            usleep(20_000)  // distinct mtimes
        }
        XCTAssertNotNil(cache.read("aa01", expectedSize: 3000))  // now the most recently used
        usleep(20_000)
        XCTAssertNoThrow(try cache.write("aa04", blob))  // 12,000 > 10,000: evict to ≤ 9,000
        XCTAssertNotNil(cache.read("aa01", expectedSize: 3000))
        XCTAssertNil(cache.read("aa02", expectedSize: 3000), "the least recently used went first")
        XCTAssertNotNil(cache.read("aa04", expectedSize: 3000))
        XCTAssertLessThanOrEqual(cache.bytesUsed, 9_000)
        XCTAssertNil(cache.read("aa04", expectedSize: 2999), "a file of the wrong size is ignored")
        XCTAssertNoThrow(try cache.write("aa05", [UInt8](repeating: 7, count: 3000)))
        XCTAssertNil(cache.read("aa05", expectedSize: 3000), "the right size, but no JPEG from end to end: ignored")
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.contains(".tmp") }
        XCTAssertEqual(leftovers, ["aa/.tmp-1-2"], "another writer's file in the making is never evicted, a dead one's is; this one's leave none")
        XCTAssertNil(try ThumbnailCache(directory: "/proc/albumfs-cannot", maxBytes: 1 << 20))
    }

    /// A photo's cache key: its identity, and its path in the library only where inode numbers
    /// are made up (a camera card), so a card mounted at another path keeps its thumbnails.
    func testCacheKeysOfPhotosOnCardsFollowTheirPathInTheLibrary() {
        let card = FileIdentity(inode: 0, size: 1234, mtime: Timestamp(seconds: 1_600_000_000))
        let disk = FileIdentity(inode: 77, size: 1234, mtime: Timestamp(seconds: 1_600_000_000))
        func key(_ path: String, _ id: FileIdentity, orientation: Int = 1) -> String {
            ThumbnailCache.key(path: path, identity: id, changedWhenRead: nil, orientation: orientation, box: .default)
        }
        XCTAssertNotEqual(key("DCIM/100CANON/IMG_0001.JPG", card), key("DCIM/101CANON/IMG_0001.JPG", card), "two photos of one size and time")
        XCTAssertEqual(key("a/IMG_0001.JPG", disk), key("b/IMG_0001.JPG", disk), "a real inode: the path does not count")
        XCTAssertNotEqual(key("a/IMG_0001.JPG", disk), key("a/IMG_0001.JPG", disk, orientation: 6))
        XCTAssertEqual(key("IMG_0001.JPG", card).count, 32)
        // A rewrite in place that restores size and mtime still moves the ctime: another key.
        XCTAssertNotEqual(ThumbnailCache.key(path: "a", identity: disk, changedWhenRead: Timestamp(seconds: 5), orientation: 1, box: .default),
                          ThumbnailCache.key(path: "a", identity: disk, changedWhenRead: Timestamp(seconds: 6), orientation: 1, box: .default))
    }
}
