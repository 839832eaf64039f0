@testable import AlbumCore
import Foundation
import XCTest

/// Where a sidecar's dates sit among the file's own (docs/rules.md, "Sidecars").
final class SidecarDateRulesTests: XCTestCase {
    // 2026-12-01T00:00:00Z
    let rules = CaptureDateRules(now: Timestamp(seconds: 1_796_083_200))
    let mtime = Timestamp(seconds: 1_527_854_400)  // 2018-06-01T12:00:00Z

    func decide(_ format: ImageFormat? = .jpeg, name: String = "photo.jpg", _ configure: (inout PhotoEvidence) -> Void) -> CaptureDecision {
        var e = PhotoEvidence()
        configure(&e)
        return rules.decide(e, fileName: name, fileMtime: mtime, format: format)
    }

    func xmpSidecar(created: String? = nil, original: String? = nil, create: String? = nil) -> SidecarEvidence {
        var s = SidecarEvidence(kind: .xmp, relativePath: "photo.jpg.xmp")
        s.xmpDateCreated = created
        s.xmpDateTimeOriginal = original
        s.xmpCreateDate = create
        return s
    }

    func takeout(_ seconds: Int64, longitude: Double? = nil) -> SidecarEvidence {
        var s = SidecarEvidence(kind: .takeout, relativePath: "photo.jpg.json")
        s.takenTime = seconds
        s.longitude = longitude
        s.latitude = longitude.map { _ in 10 }
        return s
    }

    func testAnXMPSidecarDatesAPhotoWithoutDatesAndLosesToItsOwnEXIF() {
        let alone = decide { $0.sidecar = xmpSidecar(created: "2021-03-04T05:06:07+01:00", create: "2020-01-01T00:00:00") }
        XCTAssertEqual(alone.source, .sidecarXMPDateCreated)
        XCTAssertEqual(alone.source.rawValue, "xmp-sidecar:photoshop:DateCreated")
        XCTAssertEqual(alone.time.isoString, "2021-03-04T05:06:07+01:00")
        XCTAssertEqual(decide { $0.sidecar = xmpSidecar(original: "2019-02-03T04:05:06") }.source, .sidecarXMPDateTimeOriginal)
        XCTAssertEqual(decide { $0.sidecar = xmpSidecar(create: "2019-02-03T04:05:06") }.source, .sidecarXMPCreateDate)
        let exif = decide {
            $0.dateTimeOriginal = "2010:01:02 03:04:05"
            $0.sidecar = xmpSidecar(created: "2021-03-04T05:06:07+01:00")
        }
        XCTAssertEqual(exif.source, .exifDateTimeOriginal, "a JPEG's own EXIF beats its sidecar (MWG)")
        let embedded = decide {
            $0.xmpCreateDate = "2011-01-01T00:00:00"
            $0.sidecar = xmpSidecar(created: "2021-03-04T05:06:07")
        }
        XCTAssertEqual(embedded.source, .xmpCreateDate, "the file's own XMP beats its sidecar's")
        let digitized = decide {
            $0.dateTimeDigitized = "2012:01:01 00:00:00"
            $0.sidecar = xmpSidecar(create: "2021-03-04T05:06:07")
        }
        XCTAssertEqual(digitized.source, .sidecarXMPCreateDate, "a sidecar's capture date beats the file's digitized date")
    }

    func testARefusedSidecarDateIsSaidAndTheNextSourceTaken() {
        let d = decide(name: "IMG_20200102_030405.jpg") { $0.sidecar = xmpSidecar(created: "0000-00-00T00:00:00", original: "garbage") }
        XCTAssertEqual(d.source, .fileName)
        XCTAssertEqual(d.rejected.count, 2, "\(d.rejected)")
        XCTAssertTrue(d.rejected[1].hasPrefix("xmp-sidecar:exif:DateTimeOriginal \"garbage\""), "\(d.rejected)")
    }

    func testTakeoutBeatsTheNameAndTheMtimeButNotTheFilesCaptureDate() {
        // 2019-07-04T18:30:00Z.
        let instant: Int64 = 1_562_265_000
        let named = decide(name: "IMG_20180101_000000.jpg") { $0.sidecar = takeout(instant) }
        XCTAssertEqual(named.source, .takeoutPhotoTakenTime)
        XCTAssertEqual(named.source.rawValue, "takeout:photoTakenTime")
        XCTAssertEqual(named.time.instant(in: TimeZone(identifier: "UTC")!), Timestamp(seconds: instant), "the instant is kept exactly")
        let exif = decide {
            $0.dateTimeOriginal = "2010:01:02 03:04:05"
            $0.sidecar = takeout(instant)
        }
        XCTAssertEqual(exif.source, .exifDateTimeOriginal)
        let video = decide(.video, name: "clip.mp4") {
            $0.movieCreationTime = 3_600_000_000
            $0.sidecar = takeout(instant)
        }
        XCTAssertEqual(video.source, .movieHeader, "the file's own instant beats the export's")
        let future = decide { $0.sidecar = takeout(4_000_000_000) }
        XCTAssertEqual(future.source, .fileModificationTime)
        XCTAssertEqual(future.rejected, ["takeout:photoTakenTime \"4000000000\" (in the future)"])
        let absurd = decide { $0.sidecar = takeout(Int64.max) }
        XCTAssertEqual(absurd.source, .fileModificationTime)
        XCTAssertEqual(absurd.rejected, ["takeout:photoTakenTime \"\(Int64.max)\" (unreadable)"])
    }

    func testTakeoutsZoneIsTheDaemonsNearHomeAndThePlacesAbroad() {
        let paris = TimeZone(identifier: "Europe/Paris")!
        let july = Timestamp(seconds: 1_562_265_000)  // 2019-07-04T18:30:00Z
        XCTAssertEqual(CaptureDateRules.takeoutOffset(at: july, longitude: nil, zone: paris), 7200, "no place: the daemon's zone")
        XCTAssertEqual(CaptureDateRules.takeoutOffset(at: july, longitude: -3.7, zone: paris), 7200, "Madrid: home's zone, with its DST")
        XCTAssertEqual(CaptureDateRules.takeoutOffset(at: july, longitude: -74.0, zone: paris), -5 * 3600, "New York: the nautical zone")
        XCTAssertEqual(CaptureDateRules.takeoutOffset(at: july, longitude: 139.7, zone: paris), 9 * 3600, "Tokyo")
        XCTAssertEqual(CaptureDateRules.takeoutOffset(at: july, longitude: .nan, zone: paris), 7200)
        XCTAssertEqual(CaptureDateRules.takeoutOffset(at: july, longitude: 500, zone: paris), 7200)
    }

    func testAFormatWhoseSidecarWinsTakesTheSidecarFirst() {
        // A camera RAW is the one format whose sidecar wins (MWG); the rule keyed on the format holds.
        XCTAssertEqual(ImageFormat.allCases.filter { $0.sidecarDatesWin }, [.raw])
        var e = PhotoEvidence()
        e.dateTimeOriginal = "2010:01:02 03:04:05"
        e.sidecar = xmpSidecar(created: "2021-03-04T05:06:07")
        XCTAssertEqual(rules.decide(e, fileName: "a.nef", fileMtime: mtime, sidecarFirst: true).source, .sidecarXMPDateCreated)
        XCTAssertEqual(rules.decide(e, fileName: "a.nef", fileMtime: mtime, sidecarFirst: false).source, .exifDateTimeOriginal)
        e.sidecar = takeout(1_562_265_000)
        XCTAssertEqual(rules.decide(e, fileName: "a.nef", fileMtime: mtime, sidecarFirst: true).source, .takeoutPhotoTakenTime)
        e.sidecar = xmpSidecar()
        XCTAssertEqual(rules.decide(e, fileName: "a.nef", fileMtime: mtime, sidecarFirst: true).source, .exifDateTimeOriginal,
                       "a sidecar without a date gives way to the file's")
    }
}
