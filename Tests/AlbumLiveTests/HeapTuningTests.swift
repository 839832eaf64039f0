import AlbumLive
import CJemalloc
import XCTest

final class HeapTuningTests: XCTestCase {
    /// jemalloc serves this process (linked through AlbumLive) with the settings of CJemalloc.
    func testJemallocIsTheAllocatorWithOurSettings() throws {
        let allocator = try XCTUnwrap(HeapTuning.allocator, "jemalloc is linked and answers mallctl")
        XCTAssertTrue(allocator.hasPrefix("jemalloc 5"), allocator)
        var decay = 0
        var size = MemoryLayout<Int>.size
        XCTAssertEqual(mallctl("opt.dirty_decay_ms", &decay, &size, nil, 0), 0)
        XCTAssertEqual(decay, 1000, "settings read from malloc_conf")
        var background = false
        size = MemoryLayout<Bool>.size
        XCTAssertEqual(mallctl("opt.background_thread", &background, &size, nil, 0), 0)
        XCTAssertTrue(background)
    }

    /// A purge hands freed pages back: resident bytes drop after 64 MiB of small blocks (kept as
    /// dirty pages for a second, unlike big blocks) is touched and freed.
    func testTrimReturnsFreedPages() throws {
        func resident() -> Int {
            // Statistics are refreshed by writing to "epoch".
            var epoch: UInt64 = 1
            _ = mallctl("epoch", nil, nil, &epoch, MemoryLayout<UInt64>.size)
            var size = 0
            var value = 0
            size = MemoryLayout<Int>.size
            return mallctl("stats.resident", &value, &size, nil, 0) == 0 ? value : -1
        }
        // Without the background purge thread while measuring: run late (a loaded machine), it
        // could return the pages before `before` is read, and trim would find nothing to do.
        var off = false, on = true
        XCTAssertEqual(mallctl("background_thread", nil, nil, &off, MemoryLayout<Bool>.size), 0)
        defer { _ = mallctl("background_thread", nil, nil, &on, MemoryLayout<Bool>.size) }
        let blocks = (0..<16384).map { _ in UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16) }
        for b in blocks { b.initializeMemory(as: UInt8.self, repeating: 1, count: 4096) }
        for b in blocks { b.deallocate() }
        let before = resident()
        HeapTuning.trim()
        let after = resident()
        XCTAssertGreaterThan(before, 0, "jemalloc keeps statistics")
        XCTAssertLessThan(after, before - (32 << 20), "most of the 64 MiB freed is returned at once")
    }
}
