import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import AlbumSystem
import Foundation
import XCTest

/// Android motion photos: the video's range found from the still's XMP or Samsung's trailer,
/// and refused where the bytes do not agree.
final class MotionPhotoTests: FolderTestCase {
    /// The Samsung trailer is looked for where the make says Samsung as cameras write it: any
    /// case, padded with spaces or NULs; a longer or shorter name is another maker.
    func testTheMakeSamsungIsKnownInAnyCaseAndPadding() {
        for make in ["SAMSUNG", "samsung", "Samsung", "  Samsung ", "SAMSUNG\0\0", "\0samsung"] {
            XCTAssertTrue(MotionPhoto.isSamsung(make), make)
        }
        for make in [nil, "", "       ", "Samsun", "Samsungs", "Samsung Electronics", "S AMSUNG", "Apple", "SAMSUNG!"] as [String?] {
            XCTAssertFalse(MotionPhoto.isSamsung(make), make ?? "nil")
        }
    }

    static let still = Result { () throws(EncodeError) in
        SampleJPEG.insertingAPP1(SampleExif.camera("Google", "Pixel 8 Pro", "2023:10:10 08:15:00").payload(),
                               into: try SampleJPEG.jpeg(.marker(width: 64, height: 48)))
    }

    /// `MotionPhoto.locate` over bytes in memory, counting the reads it asks for.
    func locate(_ bytes: [UInt8], make: String? = nil, reads: UnsafeMutablePointer<Int>? = nil) -> MotionPhoto {
        func read(_ offset: Int64, _ count: Int) -> [UInt8] {
            guard offset >= 0, offset < Int64(bytes.count) else { return [] }
            return Array(bytes[Int(offset)..<Int(min(Int64(bytes.count), offset + Int64(count)))])
        }
        let xmp = (try? JPEGHeader(read: { (offset: Int64, count: Int) throws(Errno) in read(offset, count) }))?.xmp
        return MotionPhoto.locate(xmp: xmp, make: make, size: Int64(bytes.count)) { (offset: Int64, count: Int) -> [UInt8] in
            reads?.pointee += 1
            return read(offset, count)
        }
    }

    func testEachLayoutGivesTheVideosExactRange() throws {
        let still = try Self.still.get()
        let clip = try SampleLibrary.motionClip.get()
        for layout in SampleMotionPhoto.MotionPhotoLayout.allCases {
            let bytes = SampleMotionPhoto.motionPhoto(still, video: clip, layout: layout)
            let found = locate(bytes, make: layout == .samsungTrailer ? "samsung" : "Google")
            let range = try XCTUnwrap(found.video, "\(layout): \(found.refusal ?? "")")
            XCTAssertNil(found.refusal, "\(layout)")
            XCTAssertEqual(Array(bytes[Int(range.offset)..<Int(range.offset + range.length)]), clip, "\(layout)")
            let expected: MotionPhoto.Layout = switch layout {
            case .googleContainer: .googleContainer
            case .googleMicroVideo: .googleMicroVideo
            case .samsungTrailer: .samsungTrailer
            }
            XCTAssertEqual(found.layout, expected)
        }
    }

    /// Only a Samsung phone's photo has its last bytes read for a trailer: every other JPEG
    /// without motion XMP costs no read at all.
    func testTheTrailerIsLookedForOnSamsungsPhotosAlone() throws {
        let bytes = SampleMotionPhoto.motionPhoto(try Self.still.get(), video: try SampleLibrary.motionClip.get(), layout: .samsungTrailer)
        var reads = 0
        XCTAssertEqual(locate(bytes, make: "Canon", reads: &reads), .absent)
        XCTAssertEqual(reads, 0)
        XCTAssertEqual(locate(try Self.still.get(), make: "samsung", reads: &reads), .absent)
        XCTAssertEqual(reads, 1, "one read of the last 8 bytes")
        XCTAssertNotNil(locate(bytes, make: " Samsung\0").video, "Make as written, padded")
    }

    /// Offsets that lie: past the end, negative, zero, at bytes that are no MP4. Each is a
    /// photo without motion, with the reason.
    func testHostileXMPOffsetsAreRefusedWithTheirReason() throws {
        let still = try Self.still.get()
        let clip = try SampleLibrary.motionClip.get()
        let total = SampleMotionPhoto.motionPhoto(still, video: clip, layout: .googleMicroVideo).count
        let cases: [(String, SampleMotionPhoto.MotionPhotoLayout, String)] = [
            ("\(total + 1)", .googleMicroVideo, "video range outside the file"),
            ("-\(clip.count)", .googleMicroVideo, "video range outside the file"),
            ("0", .googleMicroVideo, "video range too short"),
            ("\(clip.count + 100)", .googleMicroVideo, "no ftyp box where the video should start"),
            ("\(clip.count - 4)", .googleMicroVideo, "no ftyp box where the video should start"),
            ("99999999999999999999", .googleMicroVideo, ""),
            ("-9223372036854775808", .googleMicroVideo, "video range outside the file"),
            ("9223372036854775807", .googleContainer, "video range outside the file"),
            ("\(total * 2)", .googleContainer, "video range outside the file"),
            ("\(clip.count / 2)", .googleContainer, "no ftyp box where the video should start"),
        ]
        for (length, layout, reason) in cases {
            var bytes = SampleMotionPhoto.motionPhoto(still, video: clip, layout: layout)
            let field = layout == .googleMicroVideo ? "GCamera:MicroVideoOffset=\"\(clip.count)\"" : "Item:Length=\"\(clip.count)\""
            let forged = field.replacingOccurrences(of: "\"\(clip.count)\"", with: "\"\(length)\"")
            bytes = replacing(field, with: forged, in: bytes)
            let found = locate(bytes, make: "Google")
            XCTAssertNil(found.video, "\(layout) \(length)")
            if reason.isEmpty {
                XCTAssertEqual(found, .absent, "an offset that is no number announces nothing")
            } else {
                let prefix = layout == .googleMicroVideo ? "xmp GCamera:MicroVideoOffset" : "xmp Container:Directory"
                XCTAssertEqual(found.refusal, "\(prefix): \(reason)", "\(layout) \(length)")
            }
        }
    }

    /// A Samsung directory that places its block before the file's start, past its end, or at
    /// bytes that are not the block; and a directory length larger than the file.
    func testHostileSamsungTrailersAreRefused() throws {
        let still = try Self.still.get()
        let clip = try SampleLibrary.motionClip.get()
        let good = SampleMotionPhoto.motionPhoto(still, video: clip, layout: .samsungTrailer)
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        // The directory: SEFH at count - 32; its entry's distance back at +16, length at +20.
        let head = good.count - 32
        var backPastStart = good
        backPastStart.replaceSubrange(head + 16..<head + 20, with: le32(head + 10))
        var lengthPastEnd = good
        lengthPastEnd.replaceSubrange(head + 20..<head + 24, with: le32(0x7FFF_FFFF))
        var notTheBlock = good
        notTheBlock.replaceSubrange(head + 16..<head + 20, with: le32(head - 100))
        var hugeDirectory = good
        hugeDirectory.replaceSubrange(good.count - 8..<good.count - 4, with: le32(0xFFFF_FFF0))
        var videoNotMP4 = good
        videoNotMP4.replaceSubrange(still.count + 24 + 4..<still.count + 24 + 8, with: Array("moov".utf8))
        let cases: [([UInt8], String)] = [
            (backPastStart, "video range outside the file"), (lengthPastEnd, "video range outside the file"),
            (notTheBlock, "damaged trailer directory"), (hugeDirectory, "damaged trailer directory"),
            (videoNotMP4, "no ftyp box where the video should start"),
        ]
        for (k, (bytes, reason)) in cases.enumerated() {
            let found = locate(bytes, make: "samsung")
            XCTAssertNil(found.video, "case \(k)")
            XCTAssertEqual(found.refusal, "samsung MotionPhoto_Data: \(reason)", "case \(k)")
        }
    }

    /// The scan keeps the range as evidence, and the refusal among the photo's problems.
    func testTheScanKeepsTheRangeOrTheRefusal() throws {
        let still = try Self.still.get()
        let clip = try SampleLibrary.motionClip.get()
        let good = SampleMotionPhoto.motionPhoto(still, video: clip, layout: .googleContainer)
        let e = try XCTUnwrap(good.withUnsafeBytes { MetadataReader.read(bytes: $0) }).evidence
        XCTAssertEqual(e.motionVideo, ByteRange(offset: Int64(good.count - clip.count), length: Int64(clip.count)))
        XCTAssertEqual(e.problems, [])
        let bad = replacing("Item:Length=\"\(clip.count)\"", with: "Item:Length=\"\(good.count + 1)\"", in: good)
        let refused = try XCTUnwrap(bad.withUnsafeBytes { MetadataReader.read(bytes: $0) }).evidence
        XCTAssertNil(refused.motionVideo)
        XCTAssertEqual(refused.problems, ["motion photo without its video (xmp Container:Directory: video range outside the file)"])
    }

    /// exiftool reads the fixtures' XMP as Google's camera and container properties, and finds
    /// the same video in Samsung's trailer; ffprobe plays the range found as H.264.
    func testOutsideToolsReadTheFixturesAsPhonesWriteThem() throws {
        let still = try Self.still.get()
        let clip = try SampleLibrary.motionClip.get()
        let container = try exiftool(SampleMotionPhoto.motionPhoto(still, video: clip, layout: .googleContainer), "container.jpg")
        XCTAssertEqual(container["XMP-GCamera:MotionPhoto"] as? Int, 1, "\(container)")
        let items = try XCTUnwrap(container["XMP-Container:Directory"] as? [[String: [String: Any]]], "\(container)").compactMap { $0["Item"] }
        XCTAssertEqual(items.map { $0["Semantic"] as? String }, ["Primary", "MotionPhoto"])
        XCTAssertEqual(items.map { $0["Length"] as? Int }, [0, clip.count])
        XCTAssertEqual(items.map { $0["Mime"] as? String }, ["image/jpeg", "video/mp4"])
        let micro = try exiftool(SampleMotionPhoto.motionPhoto(still, video: clip, layout: .googleMicroVideo), "micro.jpg")
        XCTAssertEqual(micro["XMP-GCamera:MicroVideo"] as? Int, 1)
        XCTAssertEqual(micro["XMP-GCamera:MicroVideoOffset"] as? Int, clip.count)
        let samsung = try exiftool(SampleMotionPhoto.motionPhoto(still, video: clip, layout: .samsungTrailer), "samsung.jpg")
        XCTAssertEqual(samsung["Samsung:EmbeddedVideoType"] as? String, "MotionPhoto_Data")
        XCTAssertEqual((samsung["Samsung:EmbeddedVideoFile"] as? String)?.contains("\(clip.count) bytes"), true,
                       "\(samsung["Samsung:EmbeddedVideoFile"] ?? "none")")
        // (ffprobe is not installed here: exiftool reads the range as a QuickTime/MP4 file.)
        let video = try exiftool(clip, "clip.mp4")
        XCTAssertEqual(video["Track1:CompressorID"] as? String, "avc1", "H.264: \(video)")
        XCTAssertEqual(video["Track1:ImageWidth"] as? Int, 96)
        XCTAssertEqual(video["Track1:ImageHeight"] as? Int, 64)
        // 5 frames at 10 a second: FFmpeg's MP4 muxer counts 4 frame durations.
        XCTAssertEqual(video["QuickTime:Duration"] as? Double, 0.4)
    }

    func exiftool(_ bytes: [UInt8], _ name: String) throws -> [String: Any] {
        let path = folder + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let out = try run("/usr/bin/exiftool", ["-j", "-a", "-n", "-G1", "-struct", "-XMP:all", "-Samsung:all", "-QuickTime:all", path])
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: out) as? [[String: Any]])
        return try XCTUnwrap(list.first)
    }

    func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "\(tool) \(arguments)")
        return out
    }

    func replacing(_ text: String, with other: String, in bytes: [UInt8]) -> [UInt8] {
        let (a, b) = (Array(text.utf8), Array(other.utf8))
        guard let at = (0...(bytes.count - a.count)).first(where: { bytes[$0..<$0 + a.count].elementsEqual(a) }) else {
            XCTFail("\(text) not found")
            return bytes
        }
        var out = bytes
        out.replaceSubrange(at..<at + a.count, with: b)
        // The XMP segment's length follows its text.
        return fixingSegmentLength(out, growth: b.count - a.count, around: at)
    }

    /// The APP1 segment holding `at` with its length grown by `growth`.
    func fixingSegmentLength(_ bytes: [UInt8], growth: Int, around at: Int) -> [UInt8] {
        var out = bytes
        var p = 2
        while p + 4 <= out.count, out[p] == 0xFF {
            let length = Int(out[p + 2]) << 8 | Int(out[p + 3])
            if at < p + 2 + length + max(0, growth) {
                let fixed = length + growth
                out[p + 2] = UInt8(fixed >> 8)
                out[p + 3] = UInt8(fixed & 0xFF)
                return out
            }
            p += 2 + length
        }
        return out
    }
}
