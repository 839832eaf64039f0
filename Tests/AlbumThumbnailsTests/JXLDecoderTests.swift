import AlbumCore
import AlbumSample
@testable import AlbumThumbnails
import XCTest

/// JPEG XL decoding through libjxl, of the project's own encoder's files: what a render worker
/// does with them, in this process.
final class JXLDecoderTests: XCTestCase {
    /// A lossless file decodes to exactly its pixels; one turned by its codestream comes out
    /// upright, as the header's upright size says.
    func testALosslessImageDecodesExactlyAndUpright() throws {
        let marker = SampleImage.marker(width: 48, height: 32)
        for orientation in [1, 6, 3, 8] {
            let data = try SampleJXL.jxl(marker.stored(forOrientation: orientation), lossless: true, orientation: orientation)
            let plan = try JXLDecoder.plan(data, maxPixels: 1 << 20)
            XCTAssertEqual(plan.width, 48, "orientation \(orientation)")
            XCTAssertEqual(plan.height, 32, "orientation \(orientation)")
            let image = try JXLDecoder.decode(data, plan)
            XCTAssertEqual(image.width, 48)
            XCTAssertEqual(image.height, 32)
            XCTAssertEqual(image.pixels, marker.pixels, "orientation \(orientation)")
        }
    }

    /// libjxl's own reading of the size must be the header's (the buffer is the header's).
    func testASizeOtherThanTheHeadersIsRefused() throws {
        let data = try SampleJXL.jxl(.marker(width: 48, height: 32), lossless: true)
        var plan = try JXLDecoder.plan(data, maxPixels: 1 << 20)
        plan.width = 47
        XCTAssertThrowsError(try JXLDecoder.decode(data, plan)) { error in
            XCTAssertEqual((error as? ThumbnailError)?.description, "JPEG XL image of 48x32 where its header says 47x32")
        }
    }

    /// Limits hold before libjxl sees a byte: the pixel limit, then the render's memory.
    func testLimitsAreCheckedFromTheHeaderBeforeDecoding() throws {
        let data = try SampleJXL.jxl(.marker(width: 1000, height: 800))
        XCTAssertThrowsError(try JXLDecoder.plan(data, maxPixels: 799_999)) { error in
            XCTAssertEqual((error as? ThumbnailError)?.description, "JPEG XL image of 1000x800 is over the 799999-pixel limit")
        }
        let small = ThumbnailRenderer(memory: DecodeMemory(limit: 16 << 20))
        XCTAssertThrowsError(try small.render(data, format: .jxl, orientation: 1, box: .default)) { error in
            let need = (data.count + 1000 * 800 * 31 + (1 << 20) - 1) >> 20
            XCTAssertEqual((error as? ThumbnailError)?.description,
                           "a 1000x800 JPEG XL image needs \(need) MB to decode, over the 16 MB a thumbnail may take (-o thumbnail_memory)")
        }
        let rendered = try ThumbnailRenderer(memory: DecodeMemory(limit: 64 << 20)).renderWithPlan(data, format: .jxl, orientation: 1, box: .default)
        XCTAssertEqual(rendered.plan.decodedSize.0, 1000)
        XCTAssertEqual(rendered.plan.decodedSize.1, 800)
    }

    /// A codestream cut short is refused, by the header (a container's) or by libjxl (a bare one's).
    func testACutFileIsRefused() throws {
        let bare = try SampleJXL.jxl(.marker(width: 300, height: 200), lossless: true)
        let cut = Array(bare[..<(bare.count / 2)])
        let plan = try JXLDecoder.plan(cut, maxPixels: 1 << 20)
        XCTAssertThrowsError(try JXLDecoder.decode(cut, plan)) { error in
            XCTAssertEqual((error as? ThumbnailError)?.description, "not a decodable JPEG XL image")
        }
        let container = try SampleJXL.jxl(.marker(width: 300, height: 200), xmp: SampleXMP.xmpPacket([("xmp:CreateDate", "2024-01-02")]))
        XCTAssertThrowsError(try JXLDecoder.plan(Array(container[..<(container.count / 2)]), maxPixels: 1 << 20)) { error in
            XCTAssertEqual((error as? ThumbnailError)?.description, "JPEG XL image cut short: its codestream ends early")
        }
    }
}
