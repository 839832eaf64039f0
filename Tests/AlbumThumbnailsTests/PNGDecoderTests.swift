import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class PNGDecoderTests: XCTestCase {
    /// A PNG chunk whose CRC is wrong while its data is whole (encoders that write bad CRCs exist)
    /// is used as it is, as libvips and browsers do: the same thumbnail as the intact file, whole
    /// and on the row path. Data that is itself damaged still fails.
    func testAPNGWithAWrongChecksumIsDecoded() throws {
        let png = try SamplePNG.png(.marker(width: 300, height: 200))
        let renderer = ThumbnailRenderer()
        var rowPath = ThumbnailRenderer()
        rowPath.shrinkPNGAbovePixels = 0
        let intact = try renderer.render(png, format: .png, orientation: 1, box: .default)
        XCTAssertEqual(try rowPath.render(png, format: .png, orientation: 1, box: .default), intact)
        for type in ["IHDR", "IDAT"] {
            let badCRC = SamplePNG.withWrongCRC(of: type, in: png)
            XCTAssertNotEqual(badCRC, png)
            XCTAssertEqual(try renderer.render(badCRC, format: .png, orientation: 1, box: .default), intact, type)
            XCTAssertEqual(try rowPath.render(badCRC, format: .png, orientation: 1, box: .default), intact, "\(type), row path")
        }
        let idat = try XCTUnwrap(SamplePNG.pngChunk("IDAT", in: png))
        var damaged = png
        damaged[idat.offset + 8 + idat.length / 2] ^= 0x5A
        XCTAssertThrowsError(try renderer.render(damaged, format: .png, orientation: 1, box: .default))
        XCTAssertThrowsError(try rowPath.render(damaged, format: .png, orientation: 1, box: .default))
    }

    /// A 16-bit PNG with no gAMA or sRGB chunk holds sRGB values (browsers, ImageMagick and libvips
    /// show mid-grey 0x8080 as 128; libpng's simplified API took it for linear light: 186); one
    /// tagged linear (`gAMA` 1.0) is still converted.
    func test16BitPNGWithoutGammaIsSRGB() throws {
        let colour = SampleImage.solid(width: 40, height: 30, 128, 200, 30)
        // (libpng goes back from linear with a 2.2 power, not sRGB's curve: 30 comes back as 35.)
        for (kind, tolerance): (SamplePNG.PNGKind, Double) in [(.rgb16Untagged, 1), (.rgb16, 6)] {
            let decoded = try PNGDecoder.decode(try SamplePNG.png(colour, kind: kind), maxPixels: 1 << 20)
            for (i, v) in [128, 200, 30].enumerated() {
                XCTAssertEqual(Double(decoded.pixels[i]), Double(v), accuracy: tolerance, "\(kind) channel \(i)")
            }
        }
        let untagged = try SamplePNG.png(colour, kind: .rgb16Untagged)
        XCTAssertEqual(untagged[24], 16, "16 bits a channel")
        XCTAssertNil(untagged.firstRange(of: Array("gAMA".utf8)))
        XCTAssertNil(untagged.firstRange(of: Array("sRGB".utf8)))
    }

    /// A huge PNG is shrunk while it is decoded, row by row (pass by pass when interlaced): for
    /// every kind libpng's row API gives as the simplified API does, each pixel is the average of
    /// its block of the whole decode (alpha composited onto white first), whatever its depth and
    /// gamma (16-bit tagged linear included).
    func testPNGShrunkWhileDecodedMatchesTheWholeDecodeAveraged() throws {
        let image = SampleImage.marker(width: 203, height: 101)  // not a multiple of the factor
        // (gAMA 1.0 on 8-bit values: a file saved as linear light, brightened to sRGB.)
        let linear8 = SamplePNG.insertingChunk("gAMA", [0, 1, 0x86, 0xA0], into: try SamplePNG.png(image))
        for kind: SamplePNG.PNGKind? in [.rgb, .grayscale, .palette, .rgba(alpha: 128), .rgba(alpha: 0), .rgb16Untagged, .rgb16,
                                        .interlaced(sixteenBit: false), nil] {
            let png = try kind.map { try SamplePNG.png(image, kind: $0) } ?? linear8
            let kind = kind.map { "\($0)" } ?? "8-bit gAMA 1.0"
            let whole = try PNGDecoder.decode(png, maxPixels: 1 << 30)
            let shrunk = try XCTUnwrap(try PNGDecoder.decodeShrinking(png, maxPixels: 1 << 30, minWidth: 40, minHeight: 20), "\(kind)")
            XCTAssertEqual(shrunk.factor, 5, "\(kind)")
            XCTAssertEqual(shrunk.image.width, 41, "\(kind)")
            XCTAssertEqual(shrunk.image.height, 21, "\(kind)")
            var worst = 0
            for oy in 0..<shrunk.image.height {
                for ox in 0..<shrunk.image.width {
                    for c in 0..<3 {
                        var sum = 0, n = 0
                        for y in oy * 5..<min(whole.height, oy * 5 + 5) {
                            for x in ox * 5..<min(whole.width, ox * 5 + 5) { sum += Int(whole.pixels[(y * whole.width + x) * 3 + c]); n += 1 }
                        }
                        let expected = (sum + n / 2) / n
                        worst = max(worst, abs(Int(shrunk.image.pixels[(oy * shrunk.image.width + ox) * 3 + c]) - expected))
                    }
                }
            }
            XCTAssertLessThanOrEqual(worst, 1, "\(kind)")
            // A part of it (a crop's, the last column of blocks included): those blocks, no others.
            for rect in [PixelRect(x: 30, y: 4, width: 11, height: 9), PixelRect(x: 0, y: 0, width: 1, height: 21)] {
                let part = try XCTUnwrap(try PNGDecoder.decodeShrinking(png, maxPixels: 1 << 30, minWidth: 40, minHeight: 20) { w, h in
                    XCTAssertTrue((w, h) == (41, 21))
                    return rect
                })
                XCTAssertTrue((part.decoded.x, part.decoded.y, part.image.width, part.image.height) == (rect.x, rect.y, rect.width, rect.height))
                var differing = 0
                for y in 0..<rect.height {
                    for x in 0..<rect.width * 3 where part.image.pixels[y * rect.width * 3 + x]
                        != shrunk.image.pixels[((rect.y + y) * 41 + rect.x) * 3 + x] { differing += 1 }
                }
                XCTAssertEqual(differing, 0, "\(kind) \(rect)")
            }
        }
        // An interlaced 16-bit PNG: libpng's simplified API (Debian's 1.6.39-2+deb12u6) scrambles
        // its pixels (libpng issue #853), so the source image itself is the reference here.
        let interlaced16 = try XCTUnwrap(try PNGDecoder.decodeShrinking(try SamplePNG.png(image, kind: .interlaced(sixteenBit: true)),
                                                                        maxPixels: 1 << 30, minWidth: 400, minHeight: 400))
        XCTAssertEqual(interlaced16.factor, 1)
        XCTAssertEqual(interlaced16.image.pixels, image.pixels, "every pixel where Adam7 put it")
        XCTAssertEqual(PNGDecoder.size(try SamplePNG.png(image))?.width, 203)
        // Damage and limits fail as the whole decode does; a box larger than the image: factor 1.
        let png = try SamplePNG.png(image)
        XCTAssertThrowsError(try PNGDecoder.decodeShrinking(Array(png.prefix(png.count - 40)), maxPixels: 1 << 30, minWidth: 40, minHeight: 20))
        XCTAssertThrowsError(try PNGDecoder.decodeShrinking(Array(png.prefix(30)), maxPixels: 1 << 30, minWidth: 40, minHeight: 20))
        XCTAssertThrowsError(try PNGDecoder.decodeShrinking(png, maxPixels: 1000, minWidth: 40, minHeight: 20))
        XCTAssertEqual(try PNGDecoder.decodeShrinking(png, maxPixels: 1 << 30, minWidth: 400, minHeight: 400)?.factor, 1)
        // A header claiming 4294967295 x 4294967295 (the product overflows 64 bits): refused, no trap.
        var huge = png
        for i in 16..<24 { huge[i] = 0xFF }
        XCTAssertThrowsError(try ThumbnailRenderer().render(huge, format: .png, orientation: 1, box: .default))
    }

    /// An interlaced 16-bit PNG gives the thumbnail its non-interlaced twin gives (the simplified
    /// API scrambled it: worst difference 110 before it took the row path).
    func testAnInterlaced16BitPNGRendersAsItsNonInterlacedTwin() throws {
        let image = SampleImage.marker(width: 300, height: 200)
        let renderer = ThumbnailRenderer()
        let interlaced = try renderer.renderWithPlan(try SamplePNG.png(image, kind: .interlaced(sixteenBit: true)), format: .png,
                                                    orientation: 1, box: .default)
        let plain = try renderer.render(try SamplePNG.png(image, kind: .rgb16Untagged), format: .png, orientation: 1, box: .default)
        let a = try jpegPixels(interlaced.bytes), b = try jpegPixels(plain)
        var worst = 0
        for i in a.pixels.indices { worst = max(worst, abs(Int(a.pixels[i]) - Int(b.pixels[i]))) }
        XCTAssertLessThanOrEqual(worst, 12, "\(interlaced.plan)")
    }

    /// A PNG takes the row-by-row path for a thumbnail (only its crop's rows and blocks) and
    /// gives the thumbnail its whole decode gives, for every orientation's box.
    func testAPNGTakesTheRowPathToTheSameThumbnail() throws {
        let png = try SamplePNG.png(.marker(width: 1600, height: 1000), kind: .rgba(alpha: 200))
        for orientation in [1, 6] {
            let (viaRows, plan) = try ThumbnailRenderer().renderWithPlan(png, format: .png, orientation: orientation, box: .default)
            XCTAssertEqual(plan.dctScale.1, 2, "1600x1000 shrunk by 2 leaves 800x500, at least twice the 200 box each way: \(plan)")
            XCTAssertTrue(plan.decodedSize == (500, 500), "the crop's blocks only: \(plan)")
            let whole = try PNGDecoder.decode(png, maxPixels: 1 << 30)
            let stored = Orientation.storedSize(width: 200, height: 200, orientation: orientation)
            let reference = Orientation.apply(orientation, to: Resampler.coverAndCrop(whole, width: stored.0, height: stored.1))
            let a = try jpegPixels(viaRows)
            let b = try jpegPixels(FixedSizeJPEG.encode(reference, size: FixedSizeJPEG.size(for: 200, 200), encoder: JPEGEncoder()))
            var worst = 0
            for i in a.pixels.indices { worst = max(worst, abs(Int(a.pixels[i]) - Int(b.pixels[i]))) }
            XCTAssertLessThanOrEqual(worst, 12, "orientation \(orientation)")
        }
    }
}
