import AlbumCore
import AlbumSample
@testable import AlbumThumbnails
import XCTest

/// Camera RAWs through LibRaw (in this test's process: the fixtures are the project's own): the
/// preview when it covers the box, else a half-size decode; every orientation applied once, from
/// LibRaw's `flip`; sizes refused before any decode.
final class RawImageTests: XCTestCase {
    /// The marker's red quarter lands top-left for each of the eight orientations, from the JPEG
    /// preview and from the half-size decode alike; the scan's orientation (passed as 1: a RAW
    /// decodes upright) is not applied again.
    func testEachOrientationIsAppliedOnceFromLibRawsFlip() throws {
        let renderer = ThumbnailRenderer()
        for o in 1...8 {
            let scene = SampleImage.marker(width: 640, height: 480).stored(forOrientation: o)
            let preview = SampleImage.marker(width: 320, height: 240).stored(forOrientation: o)
            for (kind, dng) in [("preview", try SampleRaw.dng(scene, preview: .jpeg(preview), orientation: o)),
                                ("decode", try SampleRaw.dng(scene, preview: .none, orientation: o))] {
                let r = try renderer.renderWithPlan(dng, format: .raw, orientation: 1, box: .default)
                XCTAssertEqual(r.plan.preview.map { [$0.0, $0.1] }, kind == "preview" ? [preview.width, preview.height] : nil, "\(o) \(kind)")
                let image = try JPEGStream(bytes: r.bytes).decode(scale: (1, 1)).image
                XCTAssertEqual(image.width, 200)
                func mean(_ xs: Range<Int>, _ ys: Range<Int>) -> (r: Int, g: Int) {
                    var r = 0, g = 0
                    for y in ys { for x in xs { r += Int(image.pixels[(y * image.width + x) * 3]); g += Int(image.pixels[(y * image.width + x) * 3 + 1]) } }
                    return (r / (xs.count * ys.count), g / (xs.count * ys.count))
                }
                let topLeft = mean(2..<28, 2..<44), topRight = mean(172..<198, 2..<44), bottomLeft = mean(2..<28, 156..<198)
                XCTAssertGreaterThan(topLeft.r - topLeft.g, 100, "orientation \(o), \(kind): top-left \(topLeft)")
                XCTAssertLessThan(topRight.r - topRight.g, 60, "orientation \(o), \(kind): top-right \(topRight)")
                XCTAssertLessThan(bottomLeft.r - bottomLeft.g, 60, "orientation \(o), \(kind): bottom-left \(bottomLeft)")
            }
        }
    }

    /// A preview smaller than the box gives way to the half-size decode; a RAW over the pixel
    /// limit is refused before anything is unpacked; bytes that are no RAW are LibRaw's error.
    func testPreviewChoiceAndRefusals() throws {
        let dng = try SampleRaw.dng(.marker(width: 640, height: 480), preview: .rgb(.marker(width: 160, height: 120)))
        let r = try ThumbnailRenderer().renderWithPlan(dng, format: .raw, orientation: 1, box: .default)
        XCTAssertNil(r.plan.preview, "160x120 does not cover 200x200: \(r.plan)")
        XCTAssertEqual(r.plan.decodedSize.0, 320, "half of 640")
        XCTAssertThrowsError(try ThumbnailRenderer(maxPixels: 100_000).render(dng, format: .raw, orientation: 1, box: .default)) { error in
            XCTAssertTrue("\(error)".contains("over the 100000-pixel limit"), "\(error)")
        }
        XCTAssertThrowsError(try ThumbnailRenderer().render(Array(repeating: 7, count: 4096), format: .raw, orientation: 1, box: .default)) { error in
            XCTAssertTrue("\(error)".contains("libraw_open_buffer"), "\(error)")
        }
    }
}
