import AlbumCore
import AlbumSample
@testable import AlbumThumbnails
import Foundation
import XCTest

/// A video's poster: its first keyframe, or for a Live Photo's motion part the frame at the
/// moment its still was taken, which may lie frames after the keyframe.
final class VideoPosterTests: XCTestCase {
    /// The mean red and green of a thumbnail's top-left corner (the marker's red quarter) and of
    /// its bottom-right one.
    func corners(_ thumbnail: [UInt8]) throws -> (topLeft: (r: Int, g: Int), bottomRight: (r: Int, g: Int)) {
        let image = try JPEGStream(bytes: thumbnail).decode(scale: (1, 1)).image
        func mean(_ xs: Range<Int>, _ ys: Range<Int>) -> (r: Int, g: Int) {
            var r = 0, g = 0
            for y in ys { for x in xs { r += Int(image.pixels[(y * image.width + x) * 3]); g += Int(image.pixels[(y * image.width + x) * 3 + 1]) } }
            return (r / (xs.count * ys.count), g / (xs.count * ys.count))
        }
        return (mean(2..<28, 2..<44), mean(172..<198, 156..<198))
    }

    func render(_ clip: [UInt8]) throws -> [UInt8] {
        try ThumbnailRenderer().render(clip, format: .video, orientation: 1, box: .default)
    }

    /// The still's frame, shown after an opening turned round (its red corner bottom-right):
    /// found by an edit list and by an empty sample, three frames after the keyframe, and the
    /// clip's last frame when the moment lies past its end. The same clip without the track
    /// shows its opening (the check can fail).
    func testALivePhotosPosterIsTheFrameAtItsStillImageTime() throws {
        let still = SampleImage.marker(width: 320, height: 240)
        let opening = still.stored(forOrientation: 3)
        func isStill(_ thumbnail: [UInt8], _ what: String) throws {
            let c = try corners(thumbnail)
            XCTAssertTrue(c.topLeft.r > 170 && c.topLeft.g < 90, "\(what): top-left \(c.topLeft)")
            XCTAssertTrue(c.bottomRight.r - c.bottomRight.g < 100, "\(what): bottom-right \(c.bottomRight)")
        }
        for placement in [SampleVideo.StillTimePlacement.editList, .emptySample] {
            let clip = try SampleVideo.livePhotoMotion(.init(opening: opening, still: still, stillFrame: 3, count: 8), metadata: [], placement: placement)
            try isStill(try render(clip), "\(placement)")
        }
        let openingOnly = try SampleVideo.video(of: Array(repeating: opening, count: 3) + Array(repeating: still, count: 5), container: .mov,
                                             metadata: [], rotation: 0)
        let c = try corners(try render(openingOnly))
        XCTAssertTrue(c.bottomRight.r > 170 && c.bottomRight.g < 90, "no track: the first keyframe, the opening \(c)")
        let late = try SampleVideo.addingStillImageTime(seconds: 30, to: openingOnly)
        try isStill(try render(late), "a moment past the end")
    }
}

/// A clip whose first track is not its video, or with several: its poster is its first *video*
/// track's.
final class SoundFirstVideoPosterTests: XCTestCase {
    /// A `.3gp` as some phones write it, its sound first.
    func testAClipWhoseFirstTrackIsSoundGetsItsVideosPoster() throws {
        let clip = try SampleVideo.clip(tracks: [.sound, .video(.marker(width: 96, height: 64))])
        XCTAssertEqual(Self.trackHandlers(clip), ["soun", "vide"])
        let thumbnail = try ThumbnailRenderer().render(clip, format: .video, orientation: 1, box: .default)
        XCTAssertEqual(thumbnail.count, 30_000)
    }
}

extension SoundFirstVideoPosterTests {
    /// Of two video tracks, the first is the poster's (the scan takes its size and rotation
    /// from it), though the second is larger and at a higher bit rate (FFmpeg's "best").
    func testTheFirstVideoTrackIsThePosters() throws {
        let clip = try SampleVideo.clip(tracks: [.sound, .video(.solid(width: 64, height: 64, 220, 20, 20)),
                                              .video(.marker(width: 320, height: 240))], container: "mp4")
        XCTAssertEqual(Self.trackHandlers(clip), ["soun", "vide", "vide"])
        let thumbnail = try ThumbnailRenderer().render(clip, format: .video, orientation: 1, box: .default)
        let image = try JPEGStream(bytes: thumbnail).decode(scale: (1, 1)).image
        var sum = (0, 0, 0)
        for i in stride(from: 0, to: image.pixels.count, by: 3) {
            sum.0 += Int(image.pixels[i]); sum.1 += Int(image.pixels[i + 1]); sum.2 += Int(image.pixels[i + 2])
        }
        let n = image.pixels.count / 3
        XCTAssertTrue(sum.0 / n > 180 && sum.1 / n < 60 && sum.2 / n < 60, "the first video track's red: \((sum.0 / n, sum.1 / n, sum.2 / n))")
    }

    /// The handler types of `movie`'s tracks, in order (each track's first `hdlr`: its media's).
    static func trackHandlers(_ movie: [UInt8]) -> [String] {
        var handlers: [String] = []
        var at = 0
        func find(_ type: String, from: Int) -> Int? {
            (from..<max(from, movie.count - 4)).first { movie[$0..<($0 + 4)].elementsEqual(type.utf8) }
        }
        while let trak = find("trak", from: at), let hdlr = find("hdlr", from: trak), hdlr + 16 <= movie.count {
            handlers.append(String(decoding: movie[(hdlr + 12)..<(hdlr + 16)], as: UTF8.self))
            at = hdlr
        }
        return handlers
    }
}

/// A video's poster within the limits a render keeps: the frame size its track declares against
/// `-o thumbnail_max_pixels`, and the bytes its decode takes (`VideoPoster.decodingBytes`)
/// against `-o thumbnail_memory`. One pixel or one byte past a limit is refused with its message;
/// at the limit the poster is made.
final class VideoPosterLimitsTests: XCTestCase {
    /// A 320x240 H.264 clip made by the sample's encoder, its size and codec as ffprobe reads them.
    func clip() throws -> [UInt8] {
        let clip = try SampleVideo.video(.marker(width: 320, height: 240), container: .mov, frames: 3)
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
