import AlbumCore
import AlbumSample
@testable import AlbumThumbnails
import XCTest

/// An embedded preview with a black band its photo has not: the photo itself is decoded.
final class PreviewBandsTests: XCTestCase {
    /// `image` with its bottom `rows` rows black.
    func banded(_ image: SampleImage, bottom rows: Int) -> SampleImage {
        var out = image
        for i in ((image.height - rows) * image.width * 3)..<out.pixels.count { out.pixels[i] = 0 }
        return out
    }

    func rgb(_ image: SampleImage) -> RGBImage { RGBImage(width: image.width, height: image.height, pixels: image.pixels) }

    func testABlackBandOverALitPictureIsDoubtfulAndADarkPictureIsNot() {
        let grey = SampleImage.solid(width: 120, height: 90, 128, 128, 128)
        XCTAssertFalse(PreviewBands.doubtful(rgb(grey)))
        XCTAssertTrue(PreviewBands.doubtful(rgb(banded(grey, bottom: 15))), "a sixth, at the bottom")
        var top = banded(grey, bottom: 0)
        for i in 0..<(10 * 120 * 3) { top.pixels[i] = 3 }
        XCTAssertTrue(PreviewBands.doubtful(rgb(top)), "at the top")
        XCTAssertFalse(PreviewBands.doubtful(rgb(banded(grey, bottom: 2))), "a few rows: an edge, not a band")
        XCTAssertFalse(PreviewBands.doubtful(rgb(SampleImage.solid(width: 120, height: 90, 0, 0, 0))), "all black")
        XCTAssertFalse(PreviewBands.doubtful(rgb(banded(SampleImage.solid(width: 120, height: 90, 20, 20, 20), bottom: 15))), "a dark picture")
    }

    /// A camera HEIF whose embedded thumbnail has a black band over its bottom sixth (same aspect
    /// ratio, another picture) gets its thumbnail from the primary image: no band. A clean
    /// thumbnail still stands for the image.
    func testAHEIFsThumbnailWithABlackBandGivesWayToTheImage() throws {
        let renderer = ThumbnailRenderer()
        let grey = SampleImage.solid(width: 800, height: 600, 128, 128, 128)
        let padded = try SampleHEIF.heif(grey, quality: 90, layout: .init(thumbnail: 400, thumbnailShows: banded(grey, bottom: 100)))
        let r = try renderer.renderWithPlan(padded, format: .heif, orientation: 1, box: .default)
        XCTAssertNil(r.plan.preview, "\(r.plan)")
        let image = try JPEGStream(bytes: r.bytes).decode(scale: (1, 1)).image
        let bottom = image.pixels[(190 * 200 * 3)...].reduce(0) { $0 + Int($1) } / (10 * 200 * 3)
        XCTAssertGreaterThan(bottom, 100, "the image's grey, not the thumbnail's band")
        let clean = try SampleHEIF.heif(grey, quality: 90, layout: .init(thumbnail: 400))
        XCTAssertNotNil(try renderer.renderWithPlan(clean, format: .heif, orientation: 1, box: .default).plan.preview)
    }

    /// The same for a JPEG's MPF preview: one with a black band over its bottom sixth gives way
    /// to the photo; a clean one stands for it.
    func testAJPEGsPreviewWithABlackBandGivesWayToThePhoto() throws {
        let renderer = ThumbnailRenderer()
        let grey = SampleImage.solid(width: 2400, height: 1600, 128, 128, 128)
        let main = try SampleJPEG.jpeg(grey)
        let small = SampleImage.solid(width: 960, height: 640, 128, 128, 128)
        let padded = SampleJPEG.withMPFPreview(main, preview: try SampleJPEG.jpeg(banded(small, bottom: 107)))
        let r = try renderer.renderWithPlan(padded, format: .jpeg, orientation: 1, box: .default)
        XCTAssertNil(r.plan.preview, "\(r.plan)")
        let image = try JPEGStream(bytes: r.bytes).decode(scale: (1, 1)).image
        let bottom = image.pixels[(190 * 200 * 3)...].reduce(0) { $0 + Int($1) } / (10 * 200 * 3)
        XCTAssertGreaterThan(bottom, 100, "the photo's grey, not the preview's band")
        let clean = SampleJPEG.withMPFPreview(main, preview: try SampleJPEG.jpeg(small))
        XCTAssertNotNil(try renderer.renderWithPlan(clean, format: .jpeg, orientation: 1, box: .default).plan.preview)
    }

}
