import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class EmbeddedPreviewsTests: XCTestCase {
    func testMPFPreviewIsUsedWhenLargeEnough() throws {
        let main = try SampleJPEG.jpeg(.solid(width: 2400, height: 1600, 220, 20, 20))
        let preview = try SampleJPEG.jpeg(.solid(width: 960, height: 640, 20, 200, 20))
        let camera = SampleJPEG.withMPFPreview(main, preview: preview)
        XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: camera)).count, 1)
        let renderer = ThumbnailRenderer()
        let small = try renderer.renderWithPlan(camera, format: .jpeg, orientation: 1, box: .default)
        XCTAssertTrue(small.plan.preview! == (960, 640), "\(small.plan)")
        // A box the preview cannot serve at 2x falls back to the full image.
        let big = try renderer.renderWithPlan(camera, format: .jpeg, orientation: 1, box: ThumbnailBox(width: 600, height: 600)!)
        XCTAssertNil(big.plan.preview, "\(big.plan)")
        // A preview of another shape (letterboxed) is never used.
        let wide = SampleJPEG.withMPFPreview(main, preview: try SampleJPEG.jpeg(.solid(width: 960, height: 540, 20, 200, 20)))
        XCTAssertNil(try renderer.renderWithPlan(wide, format: .jpeg, orientation: 1, box: .default).plan.preview)
        // An Ultra HDR or iPhone HDR photo's gain map (MP type 0) has the photo's shape but is
        // no picture of it: never a preview, whatever its size; the thumbnail is the photo's.
        let gainMap = try SampleJPEG.jpeg(.solid(width: 960, height: 640, 128, 128, 128), kind: .grayscale)
        let hdr = SampleJPEG.withMPFPreview(main, preview: gainMap, type: 0x000000)
        XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: hdr)).count, 0)
        let fromMain = try renderer.renderWithPlan(hdr, format: .jpeg, orientation: 1, box: .default)
        XCTAssertNil(fromMain.plan.preview, "\(fromMain.plan)")
        let pixel = try JPEGStream(bytes: fromMain.bytes).decode(scale: (1, 1)).image.pixels
        XCTAssertEqual(Double(pixel[0]), 220, accuracy: 8, "the photo's red, not the map's grey")
        XCTAssertEqual(Double(pixel[1]), 20, accuracy: 8)
        // Fill bytes before the MPF segment (encoders may write a few) hide nothing.
        let filled = Array(camera[0..<2]) + [0xFF, 0xFF, 0xFF] + Array(camera[2...])
        XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: filled)).count, 1)
        let filledPlan = try renderer.renderWithPlan(filled, format: .jpeg, orientation: 1, box: .default).plan
        XCTAssertEqual(filledPlan.preview?.0, 960, "\(filledPlan)")
        // The full-HD large thumbnail type serves too.
        XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: SampleJPEG.withMPFPreview(main, preview: preview, type: 0x010002))).count, 1)
        // An MP Entry table said to reach past its segment is broken, whatever its first entries
        // say (one more entry than the segment holds; 4 GB of them, which were walked one by one).
        let mpEntry = try XCTUnwrap((0..<camera.count - 4).first { camera[$0] == 0x02 && camera[$0 + 1] == 0xB0 && camera[$0 + 2] == 7 })
        for count: [UInt8] in [[48, 0, 0, 0], [0xF0, 0xFF, 0xFF, 0xFF]] {
            var long = camera
            long.replaceSubrange(mpEntry + 4..<mpEntry + 8, with: count)
            XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: long)).count, 0, "\(count)")
        }
        // A preview whose data is damaged (cut short) stands for nothing: the photo is decoded.
        let damaged = SampleJPEG.withMPFPreview(main, preview: Array(preview.prefix(preview.count / 2)))
        XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: damaged)).count, 1)
        XCTAssertThrowsError(try JPEGStream(bytes: Array(preview.prefix(preview.count / 2))).decode(scale: (1, 8), whole: true))
        let fromPhoto = try renderer.renderWithPlan(damaged, format: .jpeg, orientation: 1, box: .default)
        XCTAssertNil(fromPhoto.plan.preview, "\(fromPhoto.plan)")
        XCTAssertEqual(fromPhoto.bytes, try renderer.render(main, format: .jpeg, orientation: 1, box: .default))
        // Broken MPF offsets are ignored, not followed.
        var broken = camera
        broken[60] ^= 0xFF
        XCTAssertNoThrow(try renderer.render(broken, format: .jpeg, orientation: 1, box: .default))
    }
}
