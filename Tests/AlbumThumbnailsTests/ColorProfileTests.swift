import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class ColorProfileTests: XCTestCase {
    /// A photo's RGB colour profile goes into its thumbnail unchanged, pixels as they were
    /// (vipsthumbnail's default): from a JPEG's APP2 segments, a PNG's `iCCP` chunk (both the
    /// whole decode and the row path), a camera JPEG whose preview is decoded.
    func testTheOriginalsColourProfileIsCarriedIntoTheThumbnail() throws {
        let p3 = SampleICC.iccProfile(description: "Display P3 (albumfs test)")
        XCTAssertNotNil(ColorProfile(p3))
        let image = SampleImage.marker(width: 600, height: 400)
        let plainJPEG = try SampleJPEG.jpeg(image)
        let renderer = ThumbnailRenderer()
        let plain = try renderer.render(plainJPEG, format: .jpeg, orientation: 1, box: .default)
        XCTAssertNil(try carriedProfile(plain))
        let tagged = try renderer.renderWithPlan(SampleJPEG.insertingICCProfile(p3, into: plainJPEG), format: .jpeg, orientation: 6, box: .default)
        XCTAssertEqual(try carriedProfile(tagged.bytes), p3)
        XCTAssertEqual(tagged.plan.profileBytes, p3.count, "\(tagged.plan)")
        XCTAssertEqual(tagged.bytes.count, 30_000)
        XCTAssertTrue(tagged.plan.description.hasSuffix("its \(p3.count)-byte ICC profile kept"), tagged.plan.description)
        // Same pixels as the untagged photo's thumbnail (rotated alike).
        let upright = try renderer.render(plainJPEG, format: .jpeg, orientation: 6, box: .default)
        XCTAssertTrue(try JPEGStream(bytes: tagged.bytes).decode(scale: (1, 1)).image.pixels
                      == JPEGStream(bytes: upright).decode(scale: (1, 1)).image.pixels, "same pixels")
        // PNG: decoded whole, and on the row path.
        let png = try SamplePNG.png(.marker(width: 1200, height: 800), kind: .tagged(iccProfile: p3))
        XCTAssertEqual(try carriedProfile(try renderer.render(png, format: .png, orientation: 1, box: .default)), p3)
        var rowPath = ThumbnailRenderer()
        rowPath.shrinkPNGAbovePixels = 0
        let shrunk = try rowPath.renderWithPlan(png, format: .png, orientation: 1, box: .default)
        XCTAssertEqual(shrunk.plan.dctScale.1, 2, "\(shrunk.plan)")
        XCTAssertEqual(try carriedProfile(shrunk.bytes), p3)
        // A camera JPEG rendered from its MPF preview keeps the main image's profile.
        let main = SampleJPEG.insertingICCProfile(p3, into: try SampleJPEG.jpeg(.solid(width: 2400, height: 1600, 220, 20, 20)))
        let camera = SampleJPEG.withMPFPreview(main, preview: try SampleJPEG.jpeg(.solid(width: 960, height: 640, 20, 200, 20)))
        let fromPreview = try renderer.renderWithPlan(camera, format: .jpeg, orientation: 1, box: .default)
        XCTAssertNotNil(fromPreview.plan.preview)
        XCTAssertEqual(try carriedProfile(fromPreview.bytes), p3)
    }

    /// Profiles a thumbnail must not carry: not RGB (CMYK ink values, grey), too large for its
    /// size, or not an ICC profile at all. The thumbnail is made anyway, untagged.
    func testProfilesThatCannotDescribeTheThumbnailAreLeftOut() throws {
        let image = SampleImage.marker(width: 600, height: 400)
        let jpeg = try SampleJPEG.jpeg(image)
        var wrongSize = SampleICC.iccProfile(description: "wrong size")
        wrongSize[3] ^= 0x10
        var notICC = SampleICC.iccProfile(description: "no acsp")
        notICC[36] = UInt8(ascii: "x")
        let cases: [(String, [UInt8])] = [
            ("CMYK", SampleICC.iccProfile(description: "ink", colourSpace: "CMYK")),
            ("GRAY", SampleICC.iccProfile(description: "grey", colourSpace: "GRAY")),
            ("over a quarter of 30,000 bytes", SampleICC.iccProfile(description: String(repeating: "x", count: 7_600))),
            ("size field wrong", wrongSize),
            ("no acsp signature", notICC),
        ]
        for (why, profile) in cases {
            let out = try ThumbnailRenderer().renderWithPlan(SampleJPEG.insertingICCProfile(profile, into: jpeg), format: .jpeg,
                                                             orientation: 1, box: .default)
            XCTAssertNil(try carriedProfile(out.bytes), why)
            XCTAssertEqual(out.plan.profileBytes, 0, why)
            XCTAssertEqual(out.bytes.count, 30_000, why)
        }
        // Just under the quarter: carried.
        let largest = SampleICC.iccProfile(description: String(repeating: "x", count: 7_000))
        XCTAssertLessThanOrEqual(largest.count, 7_500)
        let out = try ThumbnailRenderer().render(SampleJPEG.insertingICCProfile(largest, into: jpeg), format: .jpeg, orientation: 1, box: .default)
        XCTAssertEqual(try carriedProfile(out), largest)
    }

    /// A camera set to Adobe RGB writes no profile, only EXIF's ColorSpace "uncalibrated" and
    /// InteropIndex "R03" (DCF): its thumbnail carries an Adobe RGB (1998) profile. sRGB (1 and
    /// R98), half the signal, or a real profile beside it: not that one.
    func testAnAdobeRGBCameraJPEGWithoutAProfileIsTaggedSo() throws {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 600, height: 400))
        func tagged(space: UInt16?, index: String?, order: ExifWriter.ByteOrder = .intel) -> [UInt8] {
            var w = ExifWriter(order: order)
            w.ifd0[0x010F] = .ascii("Canon")
            w.exif[0x9003] = .ascii("2024:05:17 14:03:04")
            if let space { w.exif[0xA001] = .short(space) }
            if let index { w.interop[0x0001] = .ascii(index) }
            return SampleJPEG.insertingAPP1(w.payload(), into: jpeg)
        }
        let adobe = ColorProfile.adobeRGB1998.bytes
        XCTAssertEqual(ColorProfile(adobe)?.bytes, adobe, "a valid RGB profile")
        for order in [ExifWriter.ByteOrder.intel, .motorola] {
            let out = try ThumbnailRenderer().render(tagged(space: 0xFFFF, index: "R03", order: order), format: .jpeg, orientation: 1, box: .default)
            XCTAssertEqual(try carriedProfile(out), adobe, "\(order)")
        }
        for (why, original) in [("sRGB", tagged(space: 1, index: "R98")), ("no InteropIndex", tagged(space: 0xFFFF, index: nil)),
                                ("R03 but ColorSpace sRGB", tagged(space: 1, index: "R03")), ("no EXIF", jpeg)] {
            let out = try ThumbnailRenderer().render(original, format: .jpeg, orientation: 1, box: .default)
            XCTAssertNil(try carriedProfile(out), why)
        }
        let p3 = SampleICC.iccProfile(description: "Display P3 (albumfs test)")
        let both = SampleJPEG.insertingICCProfile(p3, into: tagged(space: 0xFFFF, index: "R03"))
        XCTAssertEqual(try carriedProfile(try ThumbnailRenderer().render(both, format: .jpeg, orientation: 1, box: .default)), p3,
                       "a profile the camera wrote wins")
        // EXIF whose pointers lead nowhere says nothing (and reads nothing out of bounds).
        let exif = try XCTUnwrap(try JPEGHeaderSegments(Original(bytes: tagged(space: 0xFFFF, index: "R03"))).exif)
        XCTAssertTrue(ExifColorSpace.isAdobeRGB(exif))
        let needed = try XCTUnwrap(exif.firstRange(of: Array("R03".utf8))).upperBound
        for cut in 0..<needed { XCTAssertFalse(ExifColorSpace.isAdobeRGB(Array(exif.prefix(cut))), "cut at \(cut)") }
        for i in 6..<exif.count {
            var broken = exif
            broken[i] = 0xFF
            _ = ExifColorSpace.isAdobeRGB(broken)
        }
    }
}
