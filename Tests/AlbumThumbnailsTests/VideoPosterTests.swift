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
