@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// A Live Photo's motion part names the moment of its still in a timed-metadata track: found
/// wherever the track puts it on the movie's timeline, and only there.
final class StillImageTimeTests: FolderTestCase {
    func seconds(_ bytes: [UInt8]) -> Double? {
        StillImageTime.seconds(size: Int64(bytes.count)) { offset, count in
            Array(bytes[Int(min(offset, Int64(bytes.count)))..<min(bytes.count, Int(offset) + count)])
        }
    }

    func motion(_ placement: SampleVideo.StillTimePlacement, stillFrame: Int = 3) throws -> [UInt8] {
        try SampleVideo.livePhotoMotion(.init(opening: .marker(width: 64, height: 48, tint: 20), still: .marker(width: 64, height: 48), stillFrame: stillFrame, count: 8), metadata: [("com.apple.quicktime.make", "Apple")],
                                     placement: placement)
    }

    /// After an empty edit, or after an empty sample: the same moment (frame 3 at 10 a second,
    /// frame 6). A clip without the track names none.
    func testTheMomentIsFoundByEditListAndByEmptySample() throws {
        for placement in [SampleVideo.StillTimePlacement.editList, .emptySample] {
            XCTAssertEqual(try XCTUnwrap(seconds(try motion(placement))), 0.3, accuracy: 0.001, "\(placement)")
            XCTAssertEqual(try XCTUnwrap(seconds(try motion(placement, stillFrame: 6))), 0.6, accuracy: 0.001, "\(placement)")
        }
        XCTAssertNil(seconds(try SampleVideo.video(.marker(width: 64, height: 48), container: .mov)))
        XCTAssertNil(seconds(try SampleVideo.video(.marker(width: 64, height: 48), container: .mp4)))
    }

    /// exiftool, which knows Apple's timed metadata, reads the fixture's track as an iPhone's:
    /// the key's value -1, and with an empty sample first, its time.
    func testExiftoolReadsTheTrackAsAnIPhones() throws {
        let path = folder + "/IMG_0002.MOV"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(try motion(.emptySample))))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-ee", "-s", "-n", "-StillImageTime", "-SampleTime", path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertTrue(text.contains("StillImageTime                  : -1"), text)
        XCTAssertTrue(text.contains("SampleTime                      : 0.3"), text)
    }

    /// A track whose entry declares another key beside it, or another key alone, names no
    /// moment; a file cut anywhere is read without harm, and names the moment only when its
    /// movie box is whole.
    func testOtherKeysAndCutFilesNameNoMoment() throws {
        let whole = try motion(.editList)
        let key = Array("com.apple.quicktime.still-image-time".utf8)
        let at = try XCTUnwrap((0...(whole.count - key.count)).first { whole[$0..<($0 + key.count)].elementsEqual(key) })
        var other = whole
        other[at + key.count - 1] = UInt8(ascii: "X")
        XCTAssertNil(seconds(other), "another key")
        for cut in stride(from: 0, to: whole.count, by: 7) { _ = seconds(Array(whole.prefix(cut))) }
        XCTAssertNil(seconds(Array(whole.prefix(at))))
    }

    /// A damaged edit list (64-bit times at their extremes) or a moment past a day names none,
    /// and never overflows.
    func testExtremeTimesNameNoMoment() {
        let huge = MetadataTrack.Edit(duration: Int64.max, mediaTime: -1)
        var track = MetadataTrack()
        track.mediaScale = 600
        track.edits = [huge, huge, MetadataTrack.Edit(duration: 1, mediaTime: Int64.min)]
        track.sampleTime = Int64.max
        XCTAssertNil(track.seconds(movieScale: 1))
        track.edits = [MetadataTrack.Edit(duration: 90_000, mediaTime: -1)]
        track.sampleTime = 0
        XCTAssertNil(track.seconds(movieScale: 1), "25 hours")
        XCTAssertEqual(track.seconds(movieScale: 1000), 90)
    }

    /// The declaration read from a sample description as ISO/IEC 14496-12 lays it out.
    func testTheDeclarationIsReadFromTheSampleEntry() {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(8 + body.count) + Array(type.utf8) + body }
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func declaration(_ keys: [String]) -> [UInt8] {
            let table = keys.enumerated().flatMap { i, key in
                let inner = box("keyd", Array("mdta".utf8) + Array(key.utf8)) + box("dtyp", be32(0) + be32(65))
                return be32(8 + inner.count) + be32(i + 1) + inner
            }
            return be32(0) + be32(1) + box("mebx", [0, 0, 0, 0, 0, 0, 0, 1] + box("keys", table))
        }
        XCTAssertTrue(MetadataTrack.declaresStillImageTime(declaration([StillImageTime.key])))
        XCTAssertFalse(MetadataTrack.declaresStillImageTime(declaration([StillImageTime.key, "com.apple.quicktime.live-photo-info"])))
        XCTAssertFalse(MetadataTrack.declaresStillImageTime(declaration(["com.apple.quicktime.live-photo-info"])))
        XCTAssertFalse(MetadataTrack.declaresStillImageTime(Array(declaration([StillImageTime.key]).dropLast(3))))
    }
}
