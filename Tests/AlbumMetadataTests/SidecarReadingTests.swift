import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// XMP and Takeout sidecars read as exiftool reads them; hostile ones refused with a clear reason.
final class SidecarReadingTests: FolderTestCase {
    /// exiftool's reading of `path`'s tags (`-n`: numbers as numbers), as JSON.
    func exiftool(_ path: String) throws -> [String: Any] {
        let p = Process()
        let out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-j", "-n", "-G1", path]
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first)
    }

    func testAnXMPSidecarReadsAsExiftoolReadsIt() throws {
        let text = SidecarWriter.xmp(dates: .init(dateCreated: "2021-03-04T05:06:07+01:00", createDate: "2020-01-01T10:00:00"),
                                     latitude: 48.857, longitude: -2.295, rating: 4, keywords: ["Paris", "Tour & Eiffel"],
                                     description: "Night")
        let path = folder + "/IMG_1.jpg.xmp"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let tool = try exiftool(path)
        XCTAssertEqual(tool["XMP-photoshop:DateCreated"] as? String, "2021:03:04 05:06:07+01:00")
        XCTAssertEqual(tool["XMP-xmp:Rating"] as? Int, 4)
        XCTAssertEqual(tool["XMP-dc:Subject"] as? [String], ["Paris", "Tour & Eiffel"])
        XCTAssertEqual(try XCTUnwrap(tool["XMP-exif:GPSLatitude"] as? Double), 48.857, accuracy: 1e-4)
        XCTAssertEqual(try XCTUnwrap(tool["XMP-exif:GPSLongitude"] as? Double), -2.295, accuracy: 1e-4)

        let s = try XMPSidecar.parse(Array(text.utf8), relativePath: "IMG_1.jpg.xmp").get()
        XCTAssertEqual(s.kind, .xmp)
        XCTAssertEqual(s.xmpDateCreated, "2021-03-04T05:06:07+01:00")
        XCTAssertNil(s.xmpDateTimeOriginal)
        XCTAssertEqual(s.xmpCreateDate, "2020-01-01T10:00:00")
        XCTAssertEqual(s.rating, 4)
        XCTAssertEqual(s.keywords, ["Paris", "Tour & Eiffel"])
        XCTAssertEqual(s.description, "Night")
        XCTAssertEqual(try XCTUnwrap(s.latitude), 48.857, accuracy: 1e-4)
        XCTAssertEqual(try XCTUnwrap(s.longitude), -2.295, accuracy: 1e-4)
    }

    func testXMPCoordinatesInEveryForm() {
        func lat(_ raw: String) -> Double? { XMPSidecar.coordinate(raw, positive: "N", negative: "S", limit: 90) }
        XCTAssertEqual(try XCTUnwrap(lat("48,51.4N")), 48 + 51.4 / 60, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(lat("33,51,36S")), -(33 + 51.0 / 60 + 36.0 / 3600), accuracy: 1e-9)
        XCTAssertEqual(lat("-12.5"), -12.5)
        XCTAssertNil(lat("91,0.0N"))
        XCTAssertNil(lat("48,61.0N"))
        XCTAssertNil(lat("N"))
        XCTAssertNil(lat("1,2,3,4N"))
        XCTAssertNil(lat("inf,0N"))
    }

    func testHostileXMPSidecarsAreRefusedWithAReason() throws {
        XCTAssertEqual(XMPSidecar.parse(Array("just text".utf8), relativePath: "a.xmp").failure, .notXMP)
        let huge = [UInt8](repeating: 0x20, count: XMPSidecar.sizeLimit + 1)
        XCTAssertEqual(XMPSidecar.parse(huge, relativePath: "a.xmp").failure, .tooBig(size: huge.count, limit: XMPSidecar.sizeLimit))
        let outOfRange = Array(SidecarWriter.xmp(rating: 9, keywords: ["a"]).utf8)
        let s = try XCTUnwrap(try? XMPSidecar.parse(outOfRange, relativePath: "a.xmp").get(), "the sidecar is read")
        XCTAssertEqual(s.keywords, ["a"], "the rest of it is read")
        XCTAssertNil(s.rating, "a rating outside -1…5 is none")
        XCTAssertEqual(SidecarFailure.tooBig(size: 2_000_000, limit: 1 << 20).description,
                       "sidecar larger than the 1024 KiB cap, not read")
    }

    func testATakeoutSidecarReadsItsTimePlaceFavouriteAndDescription() throws {
        let text = SidecarWriter.takeout(title: "IMG_1.jpg", takenTime: 1_562_265_000, latitude: 40.7128, longitude: -74.006,
                                         favorited: true, description: "Fourth of \"July\"")
        let path = folder + "/IMG_1.jpg.json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        // exiftool reads JSON files too: the same values.
        let tool = try exiftool(path)
        XCTAssertEqual("\(tool["JSON:PhotoTakenTimeTimestamp"] ?? "")", "1562265000")
        XCTAssertEqual(tool["JSON:Favorited"] as? Int ?? (tool["JSON:Favorited"] as? Bool).map { $0 ? 1 : 0 }, 1)

        let s = try TakeoutSidecar.parse(Array(text.utf8), relativePath: "IMG_1.jpg.json").get()
        XCTAssertEqual(s.kind, .takeout)
        XCTAssertEqual(s.takenTime, 1_562_265_000)
        XCTAssertEqual(s.latitude, 40.7128)
        XCTAssertEqual(s.longitude, -74.006)
        XCTAssertEqual(s.favorited, true)
        XCTAssertEqual(s.description, "Fourth of \"July\"")
        XCTAssertEqual(s.relativePath, "IMG_1.jpg.json")
    }

    func testTakeoutsZeroPlaceIsNoPlaceAndAnOddFieldIsNone() throws {
        let none = try TakeoutSidecar.parse(Array(SidecarWriter.takeout(title: "a.jpg", takenTime: 1_600_000_000).utf8),
                                            relativePath: "a.jpg.json").get()
        XCTAssertNil(none.latitude)
        XCTAssertNil(none.longitude)
        XCTAssertNil(none.favorited)
        XCTAssertNil(none.description, "an empty description is none")
        let odd = try TakeoutSidecar.parse(Array(#"{"photoTakenTime": {"timestamp": 1600000000}, "favorited": "yes", "geoData": 3}"#.utf8),
                                           relativePath: "a.json").get()
        XCTAssertEqual(odd.takenTime, 1_600_000_000, "a number where Takeout writes a string")
        XCTAssertNil(odd.favorited)
        XCTAssertNil(odd.latitude)
        let garbage = try TakeoutSidecar.parse(Array(#"{"photoTakenTime": {"timestamp": "soon"}}"#.utf8), relativePath: "a.json").get()
        XCTAssertNil(garbage.takenTime)
    }

    func testHostileJSONIsRefusedWithAClearReasonAndNoCrash() {
        func failure(_ text: String) -> SidecarFailure? { TakeoutSidecar.parse(Array(text.utf8), relativePath: "a.json").failure }
        XCTAssertEqual(failure("{\"photoTakenTime\": "), .notJSON)
        XCTAssertEqual(failure(""), .notJSON)
        XCTAssertEqual(failure("\u{0}\u{1}binary"), .notJSON)
        XCTAssertEqual(failure("[1, 2, 3]"), .notTakeout)
        XCTAssertEqual(failure("{\"name\": \"a package.json\"}"), .notTakeout)
        XCTAssertEqual(failure("\"a string\""), .notTakeout)
        let deep = String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)
        XCTAssertNotNil(failure(deep), "nested past any sane depth: refused, not a stack overflow")
        let deepObject = "{\"photoTakenTime\":" + String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_001)
        switch TakeoutSidecar.parse(Array(deepObject.utf8), relativePath: "a.json") {
        case .success(let s): XCTAssertNil(s.takenTime, "no timestamp in it")
        case .failure(let f): XCTAssertEqual(f, .notJSON)
        }
        let huge = [UInt8](repeating: 0x20, count: TakeoutSidecar.sizeLimit + 1)
        XCTAssertEqual(TakeoutSidecar.parse(huge, relativePath: "a.json").failure, .tooBig(size: huge.count, limit: TakeoutSidecar.sizeLimit))
        XCTAssertEqual(SidecarFailure.notJSON.description, "sidecar is not valid JSON, not read")
        switch TakeoutSidecar.parse(Array(#"{"photoTakenTime": {"timestamp": "1"}, "description": "\ud800"}"#.utf8), relativePath: "a.json") {
        case .success(let s): XCTAssertEqual(s.takenTime, 1, "a lone surrogate in a field read")
        case .failure(let f): XCTAssertEqual(f, .notJSON, "a lone surrogate refused")
        }
    }
}
