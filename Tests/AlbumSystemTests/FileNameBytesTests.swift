@testable import AlbumCore
import AlbumSystem
import XCTest

/// Names are bytes: every byte string goes to a String and back unchanged, and two different byte
/// strings are two different Strings.
final class FileNameBytesTests: XCTestCase {
    func testLatin1AndValidNamesAndTheKeptScalarsRoundTrip() {
        let cases: [[UInt8]] = [
            Array("IMG_0001.JPG".utf8), Array("café.jpg".utf8), Array("caf".utf8) + [0xE9] + Array(".jpg".utf8),
            [0xFF, 0x2E, 0x6A], [0xFE, 0x2E, 0x6A], [0xC3], [0xF4, 0x8F, 0xBC, 0x80],  // the last: U+10FF00 itself, valid UTF-8
            Array("스크린샷".utf8), [0xED, 0xA0, 0x80],  // a UTF-8-encoded surrogate: invalid
        ]
        var seen = Set<String>()
        for bytes in cases {
            let name = FileNameBytes.string(bytes)
            XCTAssertEqual(FileNameBytes.bytes(name), bytes, "\(bytes)")
            XCTAssertEqual(FileNameBytes.withCString(name) { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) }, bytes)
            XCTAssertEqual(FileNameBytes.count(name), bytes.count)
            XCTAssertTrue(seen.insert(name).inserted, "two byte strings, one String: \(bytes)")
        }
        XCTAssertEqual(FileNameBytes.string(Array("café.jpg".utf8)), "café.jpg", "a valid name is itself")
    }

    /// Seeded random names (bytes 1–255, as the kernel allows): each round-trips, and no two
    /// differ as bytes but meet as scalars.
    func testRandomNamesRoundTrip() {
        var rng = SplitMix64(seed: 0xA1B0_F5)
        var byScalars: [[UInt32]: [UInt8]] = [:]
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 1...12, using: &rng)).map { _ in UInt8.random(in: 1...255, using: &rng) }
            let name = FileNameBytes.string(bytes)
            XCTAssertEqual(FileNameBytes.bytes(name), bytes, "seed 0xA1B0F5: \(bytes)")
            let scalars = name.unicodeScalars.map(\.value)
            if let other = byScalars[scalars], other != bytes { XCTFail("seed 0xA1B0F5: \(bytes) and \(other) meet") }
            byScalars[scalars] = bytes
        }
    }
}

/// A small seeded generator (SplitMix64), so a failure names an input that can be made again.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
