import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import XCTest

/// GIF headers from the project's own encoder (giflib's), also read by ImageMagick in the mount test.
final class GIFHeaderTests: XCTestCase {
    func testAGIFIsKnownByItsSignatureAndSizedByItsScreen() throws {
        let still = try SampleGIF.gif([.marker(width: 123, height: 45)])
        let animated = try SampleGIF.gif([.marker(width: 123, height: 45), .solid(width: 123, height: 45, 0, 0, 255)], interlaced: true)
        for bytes in [still, animated] {
            XCTAssertEqual(FormatSniffer.sniff(bytes), .gif)
            let read = try XCTUnwrap(bytes.withUnsafeBytes { MetadataReader.read(bytes: $0) })
            XCTAssertEqual(read.format, .gif)
            XCTAssertEqual(read.evidence.pixelWidth, 123)
            XCTAssertEqual(read.evidence.pixelHeight, 45)
            XCTAssertEqual(read.evidence.problems, [])
        }
        XCTAssertNil(FormatSniffer.sniff(Array("GIF90a..".utf8)), "no such version")
        let cut = try XCTUnwrap(Array(still.prefix(9)).withUnsafeBytes { MetadataReader.read(bytes: $0) })
        XCTAssertEqual(cut.format, .gif)
        XCTAssertNil(cut.evidence.pixelWidth)
        XCTAssertFalse(cut.evidence.problems.isEmpty, "cut inside its screen descriptor")
    }
}
