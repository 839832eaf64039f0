import AlbumCore
import AlbumSample
@testable import AlbumThumbnails
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
        for placement in [Encoders.StillTimePlacement.editList, .emptySample] {
            let clip = try Encoders.livePhotoMotion(opening: opening, still: still, stillFrame: 3, frames: 8, metadata: [], placement: placement)
            try isStill(try render(clip), "\(placement)")
        }
        let openingOnly = try Encoders.video(of: Array(repeating: opening, count: 3) + Array(repeating: still, count: 5), container: .mov,
                                             metadata: [], rotation: 0)
        let c = try corners(try render(openingOnly))
        XCTAssertTrue(c.bottomRight.r > 170 && c.bottomRight.g < 90, "no track: the first keyframe, the opening \(c)")
        let late = try Encoders.addingStillImageTime(seconds: 30, to: openingOnly)
        try isStill(try render(late), "a moment past the end")
    }
}

/// A clip whose first track is not its video, or with several: its poster is its first *video*
/// track's.
final class SoundFirstVideoPosterTests: XCTestCase {
    /// A `.3gp` as some phones write it, its sound first.
    func testAClipWhoseFirstTrackIsSoundGetsItsVideosPoster() throws {
        let clip = try Encoders.clip(tracks: [.sound, .video(.marker(width: 96, height: 64))])
        XCTAssertEqual(Self.trackHandlers(clip), ["soun", "vide"])
        let thumbnail = try ThumbnailRenderer().render(clip, format: .video, orientation: 1, box: .default)
        XCTAssertEqual(thumbnail.count, 30_000)
    }
}

extension SoundFirstVideoPosterTests {
    /// Of two video tracks, the first is the poster's (the scan takes its size and rotation
    /// from it), though the second is larger and at a higher bit rate (FFmpeg's "best").
    func testTheFirstVideoTrackIsThePosters() throws {
        let clip = try Encoders.clip(tracks: [.sound, .video(.solid(width: 64, height: 64, 220, 20, 20)),
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
