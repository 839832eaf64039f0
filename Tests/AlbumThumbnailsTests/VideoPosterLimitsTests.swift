import AlbumCore
import AlbumSample
@testable import AlbumThumbnails
import Foundation
import XCTest

/// A video's poster within the limits a render keeps: the frame size its track declares against
/// `-o thumbnail_max_pixels`, and the bytes its decode takes (`VideoPoster.decodingBytes`)
/// against `-o thumbnail_memory`. One pixel or one byte past a limit is refused with its message;
/// at the limit the poster is made.
final class VideoPosterLimitsTests: XCTestCase {
    /// A 320x240 H.264 clip made by the sample's encoder, its size and codec as ffprobe reads them.
    func clip() throws -> [UInt8] {
        let clip = try Encoders.video(.marker(width: 320, height: 240), container: .mov, frames: 3)
        let path = NSTemporaryDirectory() + "albumfs-poster-limits-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).mov"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(clip)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let p = Process(), out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", path]
        p.standardOutput = out
        try p.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertEqual(printed.trimmingCharacters(in: .whitespacesAndNewlines), "h264,320,240")
        return clip
    }

    /// What rendering `clip` answers: the thumbnail, or why not.
    func render(_ clip: [UInt8], maxPixels: Int = 250_000_000, memory: Int = DecodeMemory.defaultLimit) -> Result<[UInt8], ThumbnailError> {
        Result { () throws(ThumbnailError) in
            try ThumbnailRenderer(maxPixels: maxPixels, memory: DecodeMemory(limit: memory))
                .render(clip, format: .video, orientation: 1, box: .default)
        }
    }

    func testAClipOverThePixelLimitIsRefusedAndOneAtItIsRendered() throws {
        let clip = try clip()
        let pixels = 320 * 240
        guard case .failure(let refused) = render(clip, maxPixels: pixels - 1) else { return XCTFail("one pixel over the limit") }
        XCTAssertEqual(refused.description, "video of 320x240 is over the \(pixels - 1)-pixel limit")
        XCTAssertFalse(refused.isReadFailure, "the clip's content, remembered as such")
        let thumbnail = try render(clip, maxPixels: pixels).get()
        XCTAssertEqual(thumbnail.count, 30_000)
        XCTAssertEqual(try JPEGStream(bytes: thumbnail).decode(scale: (1, 1)).image.width, 200)
    }

    func testAClipWhoseDecodeNeedsMoreThanTheMemoryLimitIsRefusedAndOneThatFitsIsRendered() throws {
        let clip = try clip()
        let bytes = 320 * 240 * VideoPoster.bytesPerPixel
        XCTAssertEqual(bytes, 921_600, "a frame's decode: 12 bytes a pixel")
        guard case .failure(let refused) = render(clip, memory: bytes - 1) else { return XCTFail("one byte over the limit") }
        XCTAssertEqual(refused.description,
                       "a 320x240 video needs 1 MB to decode, over the 1 MB a thumbnail may take (-o thumbnail_memory)")
        XCTAssertEqual(try render(clip, memory: bytes).get().count, 30_000)
    }
}
