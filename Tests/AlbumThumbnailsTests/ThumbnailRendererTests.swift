import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class ThumbnailRendererTests: XCTestCase {
    func testDCTFactorLeavesAtLeastOneAndAHalfTimesTheBox() {
        // 12 MP 4:3 for a 200x200 box: 1/8 gives 500x375 (≥ 1.5 x 200 high).
        XCTAssertTrue(ThumbnailRenderer.dctFactor(width: 4000, height: 3000, boxWidth: 200, boxHeight: 200) == (1, 8))
        // 6 MP 4:3: 1/8 gives 375x282 (< 1.5 x 200), 1/4 gives 750x563.
        XCTAssertTrue(ThumbnailRenderer.dctFactor(width: 3000, height: 2250, boxWidth: 200, boxHeight: 200) == (1, 4))
        // 24 MP 3:2: 1/8 gives 750x500.
        XCTAssertTrue(ThumbnailRenderer.dctFactor(width: 6000, height: 4000, boxWidth: 200, boxHeight: 200) == (1, 8))
        // Small sources are never enlarged in the DCT.
        XCTAssertTrue(ThumbnailRenderer.dctFactor(width: 300, height: 200, boxWidth: 200, boxHeight: 200) == (1, 1))
        for (w, h) in [(4000, 3000), (6000, 4000), (3024, 4032), (1000, 100), (100, 1000), (2000, 1500)] {
            let f = ThumbnailRenderer.dctFactor(width: w, height: h, boxWidth: 200, boxHeight: 200)
            let sw = JPEGStream.scaled(w, f), sh = JPEGStream.scaled(h, f)
            let cover = max(200.0 / Double(w), 200.0 / Double(h))
            XCTAssertTrue(f == (1, 1) || (Double(sw) >= 1.5 * cover * Double(w) - 1 && Double(sh) >= 1.5 * cover * Double(h) - 1), "\(w)x\(h) → \(f)")
            // The largest reduction that does: the next one down leaves less.
            let smaller = JPEGStream.scalingFactors.filter { Double($0.0) / Double($0.1) < Double(f.0) / Double(f.1) }
                .max { Double($0.0) / Double($0.1) < Double($1.0) / Double($1.1) }
            if let smaller { XCTAssertLessThan(Double(JPEGStream.scaled(h, smaller)), 1.5 * cover * Double(h) + 1, "\(w)x\(h)") }
        }
    }

    func testRenderIsExactlyTheBoxAndSizeForManyShapes() throws {
        let renderer = ThumbnailRenderer()
        for (w, h) in [(640, 480), (480, 640), (1000, 100), (37, 900), (16, 16), (3000, 2000)] {
            for box in [ThumbnailBox.default, ThumbnailBox(width: 400, height: 300)!] {
                let jpeg = try SampleJPEG.jpeg(.marker(width: w, height: h))
                let out = try renderer.render(jpeg, format: .jpeg, orientation: 6, box: box)
                XCTAssertEqual(out.count, box.width == 200 ? 30_000 : 90_000, "W x H x 3/4 bytes")
                XCTAssertTrue(dimensions(out)! == (box.width, box.height), "\(w)x\(h) in \(box)")
            }
        }
    }

    func testBadInputsThrow() {
        let renderer = ThumbnailRenderer(maxPixels: 10_000)
        XCTAssertThrowsError(try renderer.render([], format: .jpeg, orientation: 1, box: .default))
        XCTAssertThrowsError(try renderer.render([0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0], format: .jpeg, orientation: 1, box: .default))
        XCTAssertThrowsError(try renderer.render([UInt8](try SampleJPEG.jpeg(.marker(width: 64, height: 64))[0..<400]), format: .jpeg, orientation: 1, box: .default))
        XCTAssertThrowsError(try renderer.render(try SampleJPEG.jpeg(.marker(width: 200, height: 100)), format: .jpeg, orientation: 1, box: .default),
                             "over the pixel limit")
        XCTAssertThrowsError(try renderer.render([UInt8](try SamplePNG.png(.marker(width: 64, height: 64))[0..<60]), format: .png, orientation: 1, box: .default))
        XCTAssertThrowsError(try renderer.render(try SamplePNG.png(.marker(width: 200, height: 100)), format: .png, orientation: 1, box: .default))
    }

    /// A desktop thumbnail fits its side: a camera's 160x120 preview serves the 128 px `normal`
    /// one (its longer side covers it), not the 256 px `large` one, made from the photo itself.
    /// (Preview and photo differ in colour, so the pixels say which was decoded.)
    func testADesktopThumbnailFitsFromA160x120Preview() throws {
        let main = try SampleJPEG.jpeg(.solid(width: 1600, height: 1200, 220, 20, 20))
        let camera = SampleJPEG.withMPFPreview(main, preview: try SampleJPEG.jpeg(.solid(width: 160, height: 120, 20, 20, 220)))
        let path = NSTemporaryDirectory() + "albumfs-fit-\(getpid()).jpg"
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(camera)))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let renderer = ThumbnailRenderer()
        let normal = try renderer.fitting(file: fd, size: camera.count, format: .jpeg, orientation: 1, side: 128)
        XCTAssertEqual([normal.width, normal.height], [128, 96])
        XCTAssertGreaterThan(normal.pixels[2], 150, "blue: the preview's pixels")
        let large = try renderer.fitting(file: fd, size: camera.count, format: .jpeg, orientation: 1, side: 256)
        XCTAssertEqual([large.width, large.height], [256, 192])
        XCTAssertGreaterThan(large.pixels[0], 150, "red: the photo's own")
    }
}
