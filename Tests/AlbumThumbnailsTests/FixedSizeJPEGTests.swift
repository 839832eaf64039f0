import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class FixedSizeJPEGTests: XCTestCase {
    func testPaddingGivesExactlyTheSizeAndAValidJPEG() throws {
        let small = try SampleJPEG.jpeg(.marker(width: 50, height: 50))
        for target in [small.count, small.count + 4, small.count + 5, small.count + 1000, small.count + 65_537,
                       small.count + 65_538, small.count + 65_540, small.count + 200_000] {
            let padded = FixedSizeJPEG.pad(small, to: target)
            XCTAssertEqual(padded.count, target)
            XCTAssertEqual(Array(padded.suffix(2)), [0xFF, 0xD9])
            XCTAssertTrue(dimensions(padded)! == (50, 50))
        }
    }

    func testNoisyImageStillFitsByLoweringQuality() throws {
        var rng = SeededGenerator.forTest(0x7015E)
        let noise = SampleImage(width: 400, height: 400, pixels: (0..<400 * 400 * 3).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let out = try ThumbnailRenderer().render(try SampleJPEG.jpeg(noise, quality: 100), format: .jpeg, orientation: 1, box: .default)
        XCTAssertEqual(out.count, 30_000)
    }

    /// A profile that leaves the picture no room at any quality is dropped, not the thumbnail.
    func testAProfileWithNoRoomLeftIsDroppedNotTheThumbnail() throws {
        var rng = SeededGenerator.forTest(0x7015F)
        let noise = RGBImage(width: 64, height: 64, pixels: (0..<64 * 64 * 3).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let huge = ColorProfile.display(description: String(repeating: "x", count: 8_000), white: (0.9642, 1, 0.8249),
                                        red: (0.6, 0.3, 0), green: (0.2, 0.6, 0.1), blue: (0.15, 0.06, 0.75), gamma: 0x0233)
        let out = try FixedSizeJPEG.encode(noise, size: 8192, profile: huge, encoder: JPEGEncoder())
        XCTAssertEqual(out.count, 8192)
        XCTAssertNil(try carriedProfile(out))
        let room = try FixedSizeJPEG.encode(noise, size: 30_000, profile: huge, encoder: JPEGEncoder())
        XCTAssertTrue(try carriedProfile(room) == huge.bytes, "carried when it fits")
    }

    /// A profile longer than one APP2 segment is split in numbered chunks that libjpeg joins again.
    func testALargeProfileIsSplitAcrossSegments() throws {
        let big = SampleICC.iccProfile(description: String(repeating: "p", count: 150_000))
        let profile = try XCTUnwrap(ColorProfile(big))
        XCTAssertEqual(profile.segments.count, big.count + 3 * 18, "three segments")
        let jpeg = try SampleJPEG.jpeg(.solid(width: 64, height: 64, 10, 20, 30))
        XCTAssertTrue(try carriedProfile(profile.embedded(in: jpeg)) == big, "libjpeg joins the three chunks")
        // An original tagged so (checked just above) gives a thumbnail that carries it too, in a
        // box whose thumbnail size has room for it (a quarter of 1000x1000x3/4 bytes).
        let box = try XCTUnwrap(ThumbnailBox(width: 1000, height: 1000))
        XCTAssertGreaterThan(750_000 / 4, big.count)
        let out = try ThumbnailRenderer().render(profile.embedded(in: jpeg), format: .jpeg, orientation: 1, box: box)
        XCTAssertTrue(try carriedProfile(out) == big, "the thumbnail carries the 150 KB profile")
        XCTAssertEqual(out.count, 750_000)
    }
}
