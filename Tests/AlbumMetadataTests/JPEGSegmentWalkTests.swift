import AlbumCore
import AlbumMetadata
import XCTest

/// The one walk of a JPEG header's segments (`JPEGHeader` and the thumbnailer's segments use it).
final class JPEGSegmentWalkTests: XCTestCase {
    /// The segments seen (marker, body offset, body length) and how the walk ended.
    func walk(_ bytes: [UInt8], stopAt stop: UInt8? = nil) -> (seen: [[Int]], end: JPEGSegmentWalk.End, reads: Int) {
        var seen: [[Int]] = [], reads = 0
        let end = JPEGSegmentWalk.walk(read: { offset, count in
            reads += 1
            let start = min(bytes.count, Int(offset))
            return Array(bytes[start..<min(bytes.count, start + count)])
        }) { marker, body, length in
            seen.append([Int(marker), Int(body), length])
            return marker != stop
        }
        return (seen, end, reads)
    }

    func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    }

    func testSegmentsUpToTheScanWithFillBytesAndMarkersWithoutALength() {
        let app1 = segment(0xE1, [1, 2, 3]), sof = segment(0xC0, [8, 0, 16, 0, 32, 3])
        // SOI, APP1, three fill bytes, a restart marker (no length), SOF, SOS.
        let jpeg: [UInt8] = [0xFF, 0xD8] + app1 + [0xFF, 0xFF, 0xFF] + [0xFF, 0xD0] + sof + segment(0xDA, [0, 0]) + [9, 9]
        let r = walk(jpeg)
        XCTAssertEqual(r.seen, [[0xE1, 6, 3], [0xC0, 2 + app1.count + 3 + 2 + 4, 6]])
        XCTAssertEqual(r.end, .scan)
        XCTAssertEqual(walk(jpeg, stopAt: 0xE1).seen.count, 1)
        XCTAssertEqual(walk(jpeg, stopAt: 0xE1).end, .stopped)
        XCTAssertEqual(walk([0xFF, 0xD8] + app1 + [0xFF, 0xD9]).end, .scan, "EOI ends a header too")
    }

    func testDamagedHeadersEndTheWalk() {
        let app1 = segment(0xE1, [1, 2, 3])
        XCTAssertEqual(walk([0xFF, 0xD8] + app1).end, .damaged, "cut after a segment")
        XCTAssertEqual(walk([0xFF, 0xD8] + app1 + [0x12, 0x34]).end, .damaged, "no marker")
        XCTAssertEqual(walk([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01]).end, .damaged, "a length under 2")
        XCTAssertEqual(walk([0xFF, 0xD8, 0xFF, 0xE1, 0x00]).end, .damaged, "a length cut short")
        // Erased flash: a run of 0xFF is given up on after the bound, not read byte by byte to its end.
        let flash = walk([0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 100_000))
        XCTAssertEqual(flash.end, .damaged)
        XCTAssertLessThanOrEqual(flash.reads, JPEGSegmentWalk.maxFillBytes + 1)
        // A header of empty segments without end stops at the bound.
        let endless = [0xFF, 0xD8] + Array([[UInt8]](repeating: segment(0xFE, []), count: JPEGSegmentWalk.maxSegments + 10).joined())
        let r = walk(endless)
        XCTAssertEqual(r.end, .damaged)
        XCTAssertEqual(r.seen.count, JPEGSegmentWalk.maxSegments)
    }

    /// A few stray bytes where a marker should be (a segment length a little short) are skipped
    /// to the next marker, as libjpeg does; more than `maxStrayBytes` end the walk.
    func testStrayBytesBeforeAMarkerAreSkipped() {
        let app1 = segment(0xE1, [1, 2, 3]), sof = segment(0xC0, [8, 0, 16, 0, 32, 3])
        let r = walk([0xFF, 0xD8] + app1 + [0x3F, 0x3E] + sof + segment(0xDA, [0, 0]))
        XCTAssertEqual(r.end, .scan)
        XCTAssertEqual(r.seen, [[0xE1, 6, 3], [0xC0, 2 + app1.count + 2 + 4, 6]])
        XCTAssertEqual(walk([0xFF, 0xD8] + app1 + [UInt8](repeating: 0x12, count: JPEGSegmentWalk.maxStrayBytes + 1) + sof).end, .damaged)
    }

    /// A walk given the file's first bytes in memory finds the same segments, and asks `read` only
    /// for what lies beyond them.
    func testAPrefixInMemoryGivesTheSameWalkWithoutReadsInsideIt() {
        let app1 = segment(0xE1, [1, 2, 3]), sof = segment(0xC0, [8, 0, 16, 0, 32, 3])
        let jpeg: [UInt8] = [0xFF, 0xD8] + app1 + [0xFF, 0xFF] + [0xFF, 0xD0] + sof + segment(0xDA, [0, 0]) + [9, 9]
        let whole = walk(jpeg)
        for cut in [0, 3, 7, 11, 12, 20, jpeg.count] {
            var seen: [[Int]] = [], readsAt: [Int64] = []
            let end = jpeg.withUnsafeBytes { bytes in
                JPEGSegmentWalk.walk(prefix: UnsafeRawBufferPointer(rebasing: bytes[..<cut]), read: { offset, count in
                    readsAt.append(offset)
                    let start = min(jpeg.count, Int(offset))
                    return Array(jpeg[start..<min(jpeg.count, start + count)])
                }) { marker, body, length in
                    seen.append([Int(marker), Int(body), length])
                    return true
                }
            }
            XCTAssertEqual(seen, whole.seen, "prefix of \(cut) bytes")
            XCTAssertEqual(end, whole.end, "prefix of \(cut) bytes")
            XCTAssertTrue(readsAt.allSatisfy { $0 + 4 > Int64(cut) }, "read inside a prefix of \(cut) bytes: \(readsAt)")
            if cut == jpeg.count { XCTAssertEqual(readsAt, []) }
        }
        // A prefix that is the whole of a file cut short: the walk still finds it damaged.
        let cutShort = Array(jpeg.prefix(12))
        let damaged = cutShort.withUnsafeBytes { bytes in
            JPEGSegmentWalk.walk(prefix: bytes, read: { offset, count in
                let start = min(cutShort.count, Int(offset))
                return Array(cutShort[start..<min(cutShort.count, start + count)])
            }) { _, _, _ in true }
        }
        XCTAssertEqual(damaged, .damaged)
    }
}
