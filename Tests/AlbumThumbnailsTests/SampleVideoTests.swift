import AlbumCore
import AlbumSample
@testable import AlbumThumbnails
import Foundation
import XCTest

/// The sample's videos are what phones write, as ffprobe (FFmpeg's own reader, not albumfs's)
/// sees them: H.264 and HEVC streams of the frame size encoded, an iPhone clip turned by its
/// track's matrix, a Live Photo's motion part with its content identifier and still-image-time
/// track; and albumfs renders a poster from each codec.
final class SampleVideoTests: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-videofixtures-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// ffprobe's streams and format tags of `bytes`.
    func probe(_ bytes: [UInt8], _ name: String) throws -> (streams: [[String: Any]], tags: [String: Any]) {
        let path = folder + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let p = Process(), out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", path]
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "ffprobe \(name)")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let format = try XCTUnwrap(json["format"] as? [String: Any])
        return (try XCTUnwrap(json["streams"] as? [[String: Any]]), format["tags"] as? [String: Any] ?? [:])
    }

    func video(_ streams: [[String: Any]]) throws -> [String: Any] {
        try XCTUnwrap(streams.first { $0["codec_type"] as? String == "video" }, "a video stream")
    }

    /// The display matrix's rotation ffprobe reports (counter-clockwise degrees, as FFmpeg counts).
    func rotation(_ stream: [String: Any]) -> Int? {
        (stream["side_data_list"] as? [[String: Any]])?.compactMap { $0["rotation"] as? Int }.first
    }

    /// H.264, but the HEIC Live Photo's movie: HEVC, as iPhones record by default.
    func testTheSamplesVideosAreH264OfTheirFrameAndTheIPhonesIsTurned() throws {
        let items = try SampleLibrary.items()
        let movies = items.filter { [".mov", ".mp4"].contains(($0.path as NSString).pathExtension.lowercased().prepending(".")) && !$0.path.hasPrefix("Damaged/") }
        XCTAssertGreaterThanOrEqual(movies.count, 6, "the sample's videos")
        for item in movies {
            let probed = try probe(item.bytes, item.path.replacingOccurrences(of: "/", with: "-"))
            let stream = try video(probed.streams)
            XCTAssertEqual(stream["codec_name"] as? String, item.path == "iPhone/IMG_1410.MOV" ? "hevc" : "h264", item.path)
            let size = [stream["width"] as? Int ?? 0, stream["height"] as? Int ?? 0]
            XCTAssertTrue([[96, 64], [64, 96], [64, 128]].contains(size), "\(item.path): \(size)")
        }
        let iPhone = try XCTUnwrap(items.first { $0.path == SampleLibrary.movPath })
        let stream = try video(try probe(iPhone.bytes, "iphone.mov").streams)
        XCTAssertEqual([stream["width"] as? Int, stream["height"] as? Int], [64, 96], "stored sideways")
        XCTAssertEqual(rotation(stream), -90, "shown turned a quarter clockwise")
    }

    func testALivePhotosMotionPartCarriesItsIdentifierAndStillTimeTrack() throws {
        let motion = try XCTUnwrap(try SampleLibrary.items().first { $0.path == "iPhone/IMG_1402.MOV" })
        let probed = try probe(motion.bytes, "live.mov")
        XCTAssertEqual(probed.tags["com.apple.quicktime.content.identifier"] as? String, "8D1A2C3E-4F5B-4C6D-9E7F-0A1B2C3D4E5F")
        XCTAssertEqual(try video(probed.streams)["codec_name"] as? String, "h264")
        XCTAssertTrue(probed.streams.contains { $0["codec_type"] as? String == "data" && ($0["codec_tag_string"] as? String) == "mebx" },
                      "the still-image-time metadata track: \(probed.streams.map { $0["codec_tag_string"] ?? "?" })")
    }

    /// The HEIC + MOV pair as iPhones write it by default: ffprobe reads the movie's identifier,
    /// its HEVC stream and still-image-time track; exiftool reads the HEIC's maker note identifier.
    func testTheHEICLivePhotoPairCarriesOneIdentifierInBothParts() throws {
        let items = try SampleLibrary.items()
        let movie = try XCTUnwrap(items.first { $0.path == "iPhone/IMG_1410.MOV" })
        let probed = try probe(movie.bytes, "live-hevc.mov")
        XCTAssertEqual(probed.tags["com.apple.quicktime.content.identifier"] as? String, SampleLibrary.heicLiveIdentifier)
        XCTAssertEqual(try video(probed.streams)["codec_name"] as? String, "hevc")
        XCTAssertTrue(probed.streams.contains { ($0["codec_tag_string"] as? String) == "mebx" }, "the still-image-time track")
        let still = try XCTUnwrap(items.first { $0.path == "iPhone/IMG_1410.HEIC" })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("albumfs-live-\(getpid()).heic").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(still.bytes)))
        let exiftool = Process()
        exiftool.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        // (exiftool names Apple's tag 0x0011 MediaGroupUUID: the content identifier iOS writes.)
        exiftool.arguments = ["-s3", "-MediaGroupUUID", "-FileType", file]
        let out = Pipe()
        exiftool.standardOutput = out
        try exiftool.run()
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        exiftool.waitUntilExit()
        XCTAssertEqual(said.split(separator: "\n").map(String.init), [SampleLibrary.heicLiveIdentifier, "HEIC"])
    }

    /// HEVC, as iPhones record by default: ffprobe reads the stream, and the poster shows the frame.
    func testAnHEVCClipIsWrittenAndItsPosterRendered() throws {
        let clip = try SampleVideo.video(.solid(width: 320, height: 240, 30, 60, 220), container: .mov, rotation: 90, codec: .hevc)
        let stream = try video(try probe(clip, "hevc.mov").streams)
        XCTAssertEqual(stream["codec_name"] as? String, "hevc")
        XCTAssertEqual([stream["width"] as? Int, stream["height"] as? Int], [320, 240])
        XCTAssertEqual(rotation(stream), -90)
        let poster = try ThumbnailRenderer().render(clip, format: .video, orientation: 1, box: .default)
        let image = try JPEGStream(bytes: poster).decode(scale: (1, 1)).image
        XCTAssertEqual([image.width, image.height], [200, 200])
        let middle = (100 * image.width + 100) * 3
        let pixel = (Int(image.pixels[middle]), Int(image.pixels[middle + 1]), Int(image.pixels[middle + 2]))
        XCTAssertTrue(abs(pixel.0 - 30) < 20 && abs(pixel.1 - 60) < 20 && abs(pixel.2 - 220) < 20, "the clip's blue: \(pixel)")
    }
}

private extension String {
    func prepending(_ prefix: String) -> String { prefix + self }
}
