import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import CExif
import CExifArena
import Dispatch
import Synchronization
import XCTest

/// libexif's memory for a block comes from an arena of the reading thread (`ExifBlock.reading`):
/// what is read from it is what libexif's own allocator gives, whatever the block, nested,
/// on many threads at once, and for a block too big for the arena.
final class ExifBlockTests: XCTestCase {
    private static func evidence(_ payload: [UInt8], arena: Bool) -> PhotoEvidence? {
        var e = PhotoEvidence()
        guard arena else {
            guard let block = ExifBlock(payload) else { return nil }
            block.read(into: &e)
            return e
        }
        let read = ExifBlock.reading(payload) { block -> Bool in
            guard let block else { return false }
            block.read(into: &e)
            return true
        }
        return read ? e : nil
    }

    private static func camera(_ order: ExifWriter.ByteOrder, _ date: String = "2020:01:02 03:04:05") -> [UInt8] {
        var c = SampleExif.camera("Canon", "Canon EOS R5", ExifTime(date, subSec: "12", offset: "+01:00"), order: order, orientation: 6)
        c.userComment = "a comment"
        c.software = "Firmware 1.2"
        return c.payload()
    }

    func testWhatIsReadFromTheArenaIsWhatLibexifsOwnMemoryGives() throws {
        let spilled = albumfs_exif_arena_spilled()
        for order in [ExifWriter.ByteOrder.intel, .motorola] {
            let payload = Self.camera(order)
            let plain = try XCTUnwrap(Self.evidence(payload, arena: false))
            XCTAssertEqual(plain.model, "Canon EOS R5")
            XCTAssertEqual((0..<500).count { _ in Self.evidence(payload, arena: true) != plain }, 0, "\(order)")
        }
        XCTAssertEqual(albumfs_exif_arena_spilled(), spilled, "a camera's block fits in the arena")
        // Not EXIF at all, and cut short: nil either way, nothing left behind.
        XCTAssertNil(Self.evidence(Array("Exif\0\0garbage".utf8), arena: true))
        let whole = Self.camera(.intel)
        let cut = stride(from: 6, to: whole.count, by: 7).map { Array(whole.prefix($0)) }
        XCTAssertEqual(cut.count { Self.evidence($0, arena: true) != Self.evidence($0, arena: false) }, 0)
    }

    /// A block near the 64 KiB an APP1 segment holds (libexif reads no more of any block): its
    /// values copied into the arena too, read the same.
    func testABlockOfLargeValuesIsReadTheSame() throws {
        var w = ExifWriter(order: .motorola)
        for tag: UInt16 in [0x010E, 0x013B, 0x8298] { w.ifd0[tag] = .ascii(String(repeating: "v", count: 20_000)) }
        w.ifd0[0x010F] = .ascii("Nikon")
        w.exif[0x9003] = .ascii("2021:05:06 07:08:09")
        let payload = w.payload()
        XCTAssertGreaterThan(payload.count, 60_000)
        let plain = try XCTUnwrap(Self.evidence(payload, arena: false))
        XCTAssertEqual(plain.make, "Nikon")
        XCTAssertEqual(plain.dateTimeOriginal, "2021:05:06 07:08:09")
        XCTAssertEqual(Self.evidence(payload, arena: true), plain)
    }

    /// The allocator itself, through libexif's own calls: blocks zeroed (as calloc's), aligned,
    /// grown with their bytes, kept when shrunk; past the arena's 128 KiB from calloc (counted);
    /// the arena zero again for the next use.
    func testTheArenaAllocator() throws {
        let mem = try XCTUnwrap(albumfs_exif_arena_begin())
        let a = try XCTUnwrap(exif_mem_alloc(mem, 100)).assumingMemoryBound(to: UInt8.self)
        XCTAssertTrue((0..<100).allSatisfy { a[$0] == 0 })
        XCTAssertEqual(Int(bitPattern: a) % 16, 0)
        for i in 0..<100 { a[i] = UInt8(i) }
        XCTAssertEqual(exif_mem_realloc(mem, a, 50).map { $0.assumingMemoryBound(to: UInt8.self) }, a, "shrunk in place")
        let b = try XCTUnwrap(exif_mem_realloc(mem, a, 1_000)).assumingMemoryBound(to: UInt8.self)
        XCTAssertTrue((0..<100).allSatisfy { b[$0] == UInt8($0) }, "its bytes moved along")
        XCTAssertTrue((100..<1_000).allSatisfy { b[$0] == 0 })
        let spilled = albumfs_exif_arena_spilled()
        let big = try XCTUnwrap(exif_mem_alloc(mem, 200_000)).assumingMemoryBound(to: UInt8.self)
        XCTAssertEqual(albumfs_exif_arena_spilled(), spilled + 1, "more than the arena: from calloc")
        XCTAssertTrue(stride(from: 0, to: 200_000, by: 997).allSatisfy { big[$0] == 0 })
        exif_mem_free(mem, big)
        exif_mem_free(mem, b)
        memset(b, 0xAB, 1_000)
        albumfs_exif_arena_end()
        let next = try XCTUnwrap(albumfs_exif_arena_begin(), "an allocator per use (the last one went with the arena)")
        let again = try XCTUnwrap(exif_mem_alloc(next, 2_000)).assumingMemoryBound(to: UInt8.self)
        XCTAssertTrue((0..<2_000).allSatisfy { again[$0] == 0 }, "zeroed when the last use ended")
        exif_mem_free(next, again)
        albumfs_exif_arena_end()
    }

    /// A block whose memory is all the arena's is dropped with it (no spill on the thread, block
    /// after block); one that spilled (read while an outer use holds nearly all the arena) is
    /// freed, and reads the same.
    func testBlocksAreDroppedWithTheArenaUnlessTheySpilled() throws {
        let payload = Self.camera(.intel)
        let plain = try XCTUnwrap(Self.evidence(payload, arena: false))
        let spills = albumfs_exif_arena_thread_spills()
        XCTAssertEqual((0..<2_000).count { _ in Self.evidence(payload, arena: true) != plain }, 0)
        XCTAssertEqual(albumfs_exif_arena_thread_spills(), spills)
        let mem = try XCTUnwrap(albumfs_exif_arena_begin())
        let filler = try XCTUnwrap(exif_mem_alloc(mem, 128 * 1024 - 256))
        XCTAssertEqual(albumfs_exif_arena_thread_spills(), spills, "the filler fits")
        XCTAssertEqual(Self.evidence(payload, arena: true), plain)
        XCTAssertGreaterThan(albumfs_exif_arena_thread_spills(), spills, "the block nested in a full arena spilled")
        exif_mem_free(mem, filler)
        albumfs_exif_arena_end()
        XCTAssertEqual(Self.evidence(payload, arena: true), plain, "the arena empty again")
    }

    func testABlockReadInsideAnotherLeavesTheOuterWhole() throws {
        let outer = Self.camera(.intel, "2001:01:01 01:01:01"), inner = Self.camera(.motorola, "2002:02:02 02:02:02")
        var seen: (PhotoEvidence, PhotoEvidence)?
        ExifBlock.reading(outer) { block in
            guard let block else { return XCTFail("outer") }
            let second = Self.evidence(inner, arena: true)
            var first = PhotoEvidence()
            block.read(into: &first)
            seen = second.map { (first, $0) }
        }
        XCTAssertEqual(seen?.0.dateTimeOriginal, "2001:01:01 01:01:01")
        XCTAssertEqual(seen?.1.dateTimeOriginal, "2002:02:02 02:02:02")
    }

    func testManyThreadsAtOnce() {
        let payloads = (0..<8).map { Self.camera($0 % 2 == 0 ? .intel : .motorola, "20\(10 + $0):03:04 05:06:07") }
        let expected = payloads.map { Self.evidence($0, arena: false) }
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            for round in 0..<300 {
                let j = (i + round) % payloads.count
                if Self.evidence(payloads[j], arena: true) != expected[j] { mismatches.withLock { $0 += 1 } }
            }
        }
        XCTAssertEqual(mismatches.withLock { $0 }, 0)
    }
}
