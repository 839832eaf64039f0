import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// Videos written by FFmpeg's libraries (AlbumSample's encoder) as phones write them, their
/// metadata checked against exiftool's reading of the same file.
final class VideoHeaderTests: FolderTestCase {
    func write(_ bytes: [UInt8], _ name: String) -> String {
        let path = folder + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    func read(_ bytes: [UInt8], name: String = "v.mov") throws -> FileMetadata? {
        try MetadataReader.read(SourceFile(path: write(bytes, name)), name: name)
    }

    /// exiftool's values (`-s3`, one per tag asked, in order; `-n`: numbers as written).
    func exiftool(_ path: String, _ tags: [String]) throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-s3", "-n", "-f"] + tags.map { "-" + $0 } + [path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text.split(separator: "\n").map(String.init)
    }

    static let iPhoneKeys = [
        ("creation_time", "2023-06-15T21:20:11Z"),
        ("com.apple.quicktime.creationdate", "2023-06-15T14:20:11-0700"),
        ("com.apple.quicktime.content.identifier", "5E1A9C2B-3D4F-4A6B-8C7D-9E0F1A2B3C4D"),
        ("com.apple.quicktime.make", "Apple"),
        ("com.apple.quicktime.model", "iPhone 15 Pro"),
    ]

    /// An iPhone's MOV: Keys metadata (creation date with its zone, content identifier, make and
    /// model), the movie header's time, a portrait clip stored sideways (rotation 90): read as
    /// exiftool reads them.
    func testAnIPhoneMOVsKeysMovieHeaderAndRotation() throws {
        let mov = try SampleVideo.video(.marker(width: 64, height: 48), container: .mov, metadata: Self.iPhoneKeys, rotation: 90)
        let path = write(mov, "IMG_0001.MOV")
        let meta = try XCTUnwrap(try MetadataReader.read(SourceFile(path: path), name: "IMG_0001.MOV"))
        XCTAssertEqual(meta.format, .video)
        let e = meta.evidence
        let tool = try exiftool(path, ["CreationDate", "ContentIdentifier", "Make", "Model", "Rotation", "ImageWidth", "ImageHeight"])
        XCTAssertEqual(tool[0], "2023:06:15 14:20:11-07:00", "exiftool's reading of what was written")
        XCTAssertEqual(e.quickTimeCreationDate, "2023-06-15T14:20:11-0700")
        XCTAssertEqual(e.contentIdentifier, tool[1])
        XCTAssertEqual(e.make, tool[2])
        XCTAssertEqual(e.model, tool[3])
        XCTAssertEqual(tool[4], "90")
        XCTAssertEqual(e.orientation, 6, "rotation 90 is EXIF's orientation 6")
        XCTAssertEqual(e.pixelWidth, Int(tool[5]))
        XCTAssertEqual(e.pixelHeight, Int(tool[6]))
        // 2023-06-15T21:20:11Z in seconds since 1904.
        XCTAssertEqual(e.movieCreationTime, 1_686_864_011 + CaptureDateRules.secondsFrom1904To1970)
        XCTAssertEqual(e.problems, [])
    }

    /// An Android phone's MP4: the movie header's time alone; XMP appended in a `uuid` box
    /// (exiftool's and Adobe's way) gives `xmp:CreateDate`.
    func testAnAndroidMP4sMovieHeaderAndXMP() throws {
        let mp4 = try SampleVideo.video(.marker(width: 64, height: 48), container: .mp4, metadata: [("creation_time", "2022-01-02T03:04:05Z")])
        let plain = try XCTUnwrap(try read(mp4, name: "VID_1.mp4"))
        XCTAssertEqual(plain.format, .video)
        XCTAssertEqual(plain.evidence.movieCreationTime, 1_641_092_645 + CaptureDateRules.secondsFrom1904To1970)
        XCTAssertNil(plain.evidence.quickTimeCreationDate)
        XCTAssertEqual(plain.evidence.orientation, 1)
        let tagged = SampleVideo.appendingXMP([("xmp:CreateDate", "2021-05-06T07:08:09+02:00")], to: mp4)
        let path = write(tagged, "VID_2.mp4")
        XCTAssertEqual(try exiftool(path, ["XMP:CreateDate"]), ["2021:05:06 07:08:09+02:00"])
        XCTAssertEqual(try XCTUnwrap(try MetadataReader.read(SourceFile(path: path), name: "VID_2.mp4")).evidence.xmpCreateDate,
                       "2021-05-06T07:08:09+02:00")
    }

    /// No creation time written: the movie header's 0 means none.
    func testAMovieHeaderTimeOfZeroIsNone() throws {
        let mp4 = try SampleVideo.video(.marker(width: 32, height: 32), container: .mp4)
        let meta = try XCTUnwrap(try read(mp4, name: "clip.mp4"))
        XCTAssertNil(meta.evidence.movieCreationTime)
    }

    /// Sound alone (`.m4a`, brand `M4A `) is no video; nor is an MP4 of sound named `.mp4`.
    func testSoundOnlyIsNoVideo() throws {
        let m4a = try SampleVideo.soundOnly()
        XCTAssertEqual(try exiftool(write(m4a, "a.m4a"), ["MajorBrand"]), ["M4A"])
        XCTAssertNil(try read(m4a, name: "voice.m4a"))
        var renamed = m4a
        renamed.replaceSubrange(8..<12, with: Array("isom".utf8))  // as Android's recorder brands it
        XCTAssertNil(try read(renamed, name: "voice.mp4"))
    }

    /// A MOV cut short loses its movie box (written last): a damaged video, saying so; every
    /// prefix of a clip reads without a crash.
    func testAMOVCutShortIsADamagedVideo() throws {
        let mov = try SampleVideo.video(.marker(width: 64, height: 48), container: .mov, metadata: Self.iPhoneKeys)
        let cut = try XCTUnwrap(try read(Array(mov.prefix(mov.count / 2))))
        XCTAssertEqual(cut.format, .video)
        XCTAssertEqual(cut.evidence.problems, ["header truncated", "no movie box (moov): cut short?"])
        for length in stride(from: 8, to: mov.count, by: 97) {
            _ = MetadataReader.read(bytes: UnsafeRawBufferPointer(start: mov, count: length))
        }
    }

    /// A movie whose first video chunk `stco` places past the file's end (its media data lost,
    /// its movie box kept) has no frame to decode, known from its header: its thumbnail is not
    /// listed. The same movie whole has one.
    func testAMovieWhoseSamplesLiePastTheEndIsKnownUnrenderable() throws {
        let movie = try SampleVideo.video(.marker(width: 96, height: 64), container: .mp4)
        let whole = try XCTUnwrap(try read(movie, name: "whole.mp4"))
        XCTAssertFalse(whole.evidence.problems.contains(Unrenderable.samplesPastEnd), "\(whole.evidence.problems)")
        let lost = SampleVideo.movingChunks(of: movie, by: 1 << 30)
        let m = try XCTUnwrap(try read(lost, name: "lost.mp4"))
        XCTAssertTrue(m.evidence.problems.contains(Unrenderable.samplesPastEnd), "\(m.evidence.problems)")
        XCTAssertTrue(Unrenderable.any(m.evidence.problems, format: .video))
        XCTAssertEqual(m.evidence.pixelWidth, 96, "its header still read")
    }

    /// A `.3gp` whose first track is sound: its size is its video track's, read as exiftool
    /// reads it.
    func testAClipWhoseFirstTrackIsSoundHasItsVideosSize() throws {
        let clip = try SampleVideo.clip(tracks: [.sound, .video(.marker(width: 96, height: 64))])
        let m = try XCTUnwrap(try read(clip, name: "VID_0001.3gp"))
        XCTAssertEqual(m.format, .video)
        XCTAssertEqual(m.evidence.pixelWidth, 96)
        XCTAssertEqual(m.evidence.pixelHeight, 64)
        XCTAssertEqual(m.evidence.problems, [])
        XCTAssertEqual(try exiftool(folder + "/VID_0001.3gp", ["ImageWidth", "ImageHeight"]), ["96", "64"])
    }


    /// A Live Photo as iPhones write it by default: the HEIC's identifier comes from the maker
    /// note in its EXIF item, the HEVC movie's from its Keys; one value, as exiftool reads both.
    func testTheHEICLivePhotoPairsIdentifierIsReadFromBothParts() throws {
        let items = try SampleLibrary.items()
        for name in ["IMG_1410.HEIC", "IMG_1410.MOV"] {
            let item = try XCTUnwrap(items.first { $0.path == "iPhone/" + name })
            let path = write(item.bytes, name)
            let meta = try XCTUnwrap(try MetadataReader.read(SourceFile(path: path), name: name))
            XCTAssertEqual(meta.format, name.hasSuffix(".MOV") ? .video : .heif)
            // (exiftool names Apple's maker note tag 0x0011 MediaGroupUUID.)
            let tool = try exiftool(path, [name.hasSuffix(".MOV") ? "ContentIdentifier" : "MediaGroupUUID"])
            XCTAssertEqual(tool, [SampleLibrary.heicLiveIdentifier], name)
            XCTAssertEqual(meta.evidence.contentIdentifier, SampleLibrary.heicLiveIdentifier, name)
        }
    }
}

/// Keys values as the devices type them: Android's capture rate a 32-bit float, Apple's playback
/// intent an 8-bit integer; a type albumfs does not know gives no value.
final class KeysValueTests: XCTestCase {
    func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = 8 + body.count
        return [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + body
    }

    func meta(_ items: [(key: String, type: UInt8, value: [UInt8])]) -> [UInt8] {
        var keys: [UInt8] = [0, 0, 0, 0, 0, 0, 0, UInt8(items.count)]
        for item in items { keys += box("mdta", Array(item.key.utf8)) }
        var list: [UInt8] = []
        for (k, item) in items.enumerated() {
            let data = box("data", [0, 0, 0, item.type, 0, 0, 0, 0] + item.value)
            list += box(String(decoding: [0, 0, 0, UInt8(k + 1)], as: UTF8.self), data)
        }
        return box("hdlr", [0, 0, 0, 0, 0, 0, 0, 0] + Array("mdta".utf8) + [UInt8](repeating: 0, count: 13)) + box("keys", keys) + box("ilst", list)
    }

    func testNumbersAreReadAsDecimalText() {
        let values = MetadataBoxes.keyed(meta([
            ("com.android.capture.fps", 23, [0x43, 0x70, 0, 0]),  // 240.0 as a big-endian float
            ("com.apple.quicktime.full-frame-rate-playback-intent", 75, [0]),
            ("signed", 21, [0xFF, 0xFE]),
            ("double", 24, [0x3F, 0xF8, 0, 0, 0, 0, 0, 0]),  // 1.5
            ("com.apple.quicktime.make", 1, Array("Apple".utf8)),
            ("picture", 13, [0xFF, 0xD8]),
        ]))
        XCTAssertEqual(values["com.android.capture.fps"], "240.0")
        XCTAssertEqual(values["com.apple.quicktime.full-frame-rate-playback-intent"], "0")
        XCTAssertEqual(values["signed"], "-2")
        XCTAssertEqual(values["double"], "1.5")
        XCTAssertEqual(values["com.apple.quicktime.make"], "Apple")
        XCTAssertNil(values["picture"], "a JPEG cover is no text")
        XCTAssertNil(MetadataBoxes.value(23, [1, 2, 3]), "a float of three bytes")
    }
}

/// A video's position: an iPhone's QuickTime Keys location, as exiftool reads it. (An Android
/// MP4's `udta/©xyz` atom is not read: docs/rules.md, "Places".)
final class VideoLocationTests: FolderTestCase {
    func exiftoolCoordinates(_ path: String) throws -> String {
        let p = Process(), out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-n", "-s3", "-GPSCoordinates", path]
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "exiftool \(path)")
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testAnIPhoneClipsLocationIsRead() throws {
        let frame = SampleImage.marker(width: 96, height: 64)
        let clips: [(String, SampleVideo.VideoContainer, (String, String), Double, Double)] = [
            ("iphone-kyoto.mov", .mov, ("com.apple.quicktime.location.ISO6709", "+35.0116+135.7681/"), 35.0116, 135.7681),
            ("iphone.mov", .mov, ("com.apple.quicktime.location.ISO6709", "-33.8568+151.2153+005.000/"), -33.8568, 151.2153),
        ]
        for (name, container, tag, latitude, longitude) in clips {
            let path = folder + "/" + name
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(try SampleVideo.video(frame, container: container, metadata: [tag]))))
            let coordinates = try exiftoolCoordinates(path)
            XCTAssertTrue(coordinates.hasPrefix("\(latitude) \(longitude)"), "exiftool: \(coordinates)")
            let e = try XCTUnwrap(try MetadataReader.read(SourceFile(path: path))).evidence
            XCTAssertEqual(e.gpsLatitude, latitude, name)
            XCTAssertEqual(e.gpsLongitude, longitude, name)
        }
        let plain = folder + "/plain.mp4"
        XCTAssertTrue(FileManager.default.createFile(atPath: plain, contents: Data(try SampleVideo.video(frame, container: .mp4))))
        XCTAssertEqual(try exiftoolCoordinates(plain), "", "exiftool finds no position in the plain clip")
        XCTAssertNil(try XCTUnwrap(try MetadataReader.read(SourceFile(path: plain))).evidence.gpsLatitude)
    }
}
