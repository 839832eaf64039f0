import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

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
        let clips: [(String, Encoders.VideoContainer, (String, String), Double, Double)] = [
            ("iphone-kyoto.mov", .mov, ("com.apple.quicktime.location.ISO6709", "+35.0116+135.7681/"), 35.0116, 135.7681),
            ("iphone.mov", .mov, ("com.apple.quicktime.location.ISO6709", "-33.8568+151.2153+005.000/"), -33.8568, 151.2153),
        ]
        for (name, container, tag, latitude, longitude) in clips {
            let path = folder + "/" + name
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(try Encoders.video(frame, container: container, metadata: [tag]))))
            let coordinates = try exiftoolCoordinates(path)
            XCTAssertTrue(coordinates.hasPrefix("\(latitude) \(longitude)"), "exiftool: \(coordinates)")
            let e = try XCTUnwrap(try MetadataReader.read(SourceFile(path: path))).evidence
            XCTAssertEqual(e.gpsLatitude, latitude, name)
            XCTAssertEqual(e.gpsLongitude, longitude, name)
        }
        let plain = folder + "/plain.mp4"
        XCTAssertTrue(FileManager.default.createFile(atPath: plain, contents: Data(try Encoders.video(frame, container: .mp4))))
        XCTAssertEqual(try exiftoolCoordinates(plain), "", "exiftool finds no position in the plain clip")
        XCTAssertNil(try XCTUnwrap(try MetadataReader.read(SourceFile(path: plain))).evidence.gpsLatitude)
    }
}
