@testable import AlbumCore
import Foundation
import XCTest

/// The system's zones read from their TZif files (`ZoneInfo`), against Foundation's (ICU's)
/// reading of the same zones; wall-clock times across daylight saving changes; the place's zone
/// in the capture date rules.
final class ZoneInfoTests: XCTestCase {
    let cache = ZoneInfoCache(folder: "/usr/share/zoneinfo")

    func zone(_ name: String) throws -> ZoneInfo { try XCTUnwrap(cache.zone(named: name), name) }

    /// Every instant's offset is the one Foundation gives, in zones east and west, with and
    /// without daylight saving time, with half- and quarter-hour offsets, through a link.
    func testOffsetsAreFoundationsAtEveryInstant() throws {
        for name in ["Europe/Paris", "America/Los_Angeles", "Asia/Tokyo", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Sydney",
                     "America/Argentina/Buenos_Aires", "Pacific/Fiji", "Arctic/Longyearbyen", "Europe/London"] {
            let ours = try zone(name), theirs = try XCTUnwrap(TimeZone(identifier: name))
            // Every 3 days and 7 hours from 1971 to 2036: both sides of every change within days.
            for instant in stride(from: Int64(31_536_000), to: 2_082_758_400, by: 3 * 86_400 + 7 * 3_600) {
                XCTAssertEqual(ours.secondsEastOfUTC(at: instant), theirs.secondsEastOfUTC(at: instant), "\(name) at \(instant)")
            }
        }
    }

    /// Wall-clock times around Paris's and Los Angeles's changes of 2024: before and after, the
    /// hour that never came (the offset before), the hour that came twice (the first).
    func testWallClockTimesAcrossDaylightSavingChanges() throws {
        let paris = try zone("Europe/Paris"), la = try zone("America/Los_Angeles")
        func at(_ z: ZoneInfo, _ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int = 0) -> Int {
            z.offset(atLocal: LocalDateTime(year: y, month: m, day: d, hour: h, minute: min))
        }
        XCTAssertEqual(at(paris, 2024, 3, 31, 1, 59), 3_600)
        XCTAssertEqual(at(paris, 2024, 3, 31, 2, 30), 3_600, "02:30 never came: the offset before")
        XCTAssertEqual(at(paris, 2024, 3, 31, 3, 0), 7_200)
        XCTAssertEqual(at(paris, 2024, 7, 14, 12), 7_200)
        XCTAssertEqual(at(paris, 2024, 10, 27, 1, 59), 7_200)
        XCTAssertEqual(at(paris, 2024, 10, 27, 2, 30), 7_200, "02:30 came twice: the first")
        XCTAssertEqual(at(paris, 2024, 10, 27, 3, 0), 3_600)
        XCTAssertEqual(at(paris, 2024, 12, 25, 12), 3_600)
        XCTAssertEqual(at(la, 2024, 3, 10, 1, 30), -28_800)
        XCTAssertEqual(at(la, 2024, 3, 10, 3, 30), -25_200)
        XCTAssertEqual(at(la, 2024, 11, 3, 1, 30), -25_200, "the first 01:30")
        XCTAssertEqual(at(la, 2024, 11, 3, 2, 30), -28_800)
        XCTAssertEqual(at(try zone("Asia/Tokyo"), 2024, 7, 1, 12), 32_400)
        // Sydney: clocks go forward in October, back in April.
        XCTAssertEqual(at(try zone("Australia/Sydney"), 2024, 1, 15, 12), 39_600)
        XCTAssertEqual(at(try zone("Australia/Sydney"), 2024, 7, 15, 12), 36_000)
    }

    /// Bytes that are no TZif file, or whose counts or values do not hold together, are no zone;
    /// a name that is a path is never looked up.
    func testDamagedFilesAndPathsAreNoZone() throws {
        let good = try XCTUnwrap(ZoneInfoCache.read("/usr/share/zoneinfo/Europe/Paris"))
        XCTAssertNotNil(ZoneInfo(tzif: good))
        XCTAssertNil(ZoneInfo(tzif: []))
        XCTAssertNil(ZoneInfo(tzif: Array(good.prefix(43))))
        XCTAssertNil(ZoneInfo(tzif: Array(good.prefix(good.count / 2))), "cut short")
        var magic = good
        magic[0] = UInt8(ascii: "X")
        XCTAssertNil(ZoneInfo(tzif: magic))
        var noTypes = good
        noTypes[39] = 0  // the first block's type count's last byte (Paris has fewer than 256)
        XCTAssertNil(ZoneInfo(tzif: noTypes), "no local time type")
        for name in ["../../../etc/passwd", "/etc/localtime", "Europe/../Europe/Paris", "", "Europe/Paris\u{0}", String(repeating: "A", count: 65)] {
            XCTAssertNil(cache.zone(named: name), name)
        }
        XCTAssertNil(cache.zone(named: "Nowhere/Atlantis"))
        XCTAssertEqual(try zone("Arctic/Longyearbyen"), try zone("Europe/Berlin"), "a link is its target's zone")
    }

    /// The place's zone gives a time written without an offset its offset, after an offset
    /// written and one the GPS fix implies, and says so; a Takeout instant is shown in it.
    func testThePlacesZoneComesAfterAWrittenOffsetAndTheGPSFix() throws {
        let rules = CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))
        let tokyo = try zone("Asia/Tokyo"), paris = try zone("Europe/Paris")
        var e = PhotoEvidence()
        e.dateTimeOriginal = "2024:03:31 02:30:00"
        var d = rules.decide(e, fileName: "a.jpg", fileMtime: Timestamp(seconds: 0), placeZone: paris)
        XCTAssertEqual(d.time.isoString, "2024-03-31T02:30:00+01:00")
        XCTAssertTrue(d.offsetFromPlace)
        XCTAssertEqual(d.source, .exifDateTimeOriginal)
        e.dateTimeOriginal = "2024:07:01 12:00:00"
        XCTAssertEqual(rules.decide(e, fileName: "a.jpg", fileMtime: Timestamp(seconds: 0), placeZone: paris).time.isoString, "2024-07-01T12:00:00+02:00")
        XCTAssertEqual(rules.decide(e, fileName: "a.jpg", fileMtime: Timestamp(seconds: 0), placeZone: tokyo).time.isoString, "2024-07-01T12:00:00+09:00")
        let none = rules.decide(e, fileName: "a.jpg", fileMtime: Timestamp(seconds: 0))
        XCTAssertNil(none.time.utcOffsetSeconds, "no place: no offset, as before")
        XCTAssertFalse(none.offsetFromPlace)
        // A camera on home time abroad: the GPS fix tells the clock's offset, which wins.
        e.gpsDateTimeUTC = "2024:07:01 10:00:00"
        d = rules.decide(e, fileName: "a.jpg", fileMtime: Timestamp(seconds: 0), placeZone: tokyo)
        XCTAssertEqual(d.time.isoString, "2024-07-01T12:00:00+02:00")
        XCTAssertFalse(d.offsetFromPlace)
        e.offsetTimeOriginal = "-05:00"
        d = rules.decide(e, fileName: "a.jpg", fileMtime: Timestamp(seconds: 0), placeZone: tokyo)
        XCTAssertEqual(d.time.isoString, "2024-07-01T12:00:00-05:00", "a written offset first")
        XCTAssertFalse(d.offsetFromPlace)
        // A name's date, and the GPS fix's own time, take the place's zone.
        d = rules.decide(PhotoEvidence(), fileName: "IMG_20241027_023000.jpg", fileMtime: Timestamp(seconds: 0), placeZone: paris)
        XCTAssertEqual(d.time.isoString, "2024-10-27T02:30:00+02:00")
        XCTAssertTrue(d.offsetFromPlace)
        var fix = PhotoEvidence()
        fix.gpsDateTimeUTC = "2024:12:31 23:30:00"
        d = rules.decide(fix, fileName: "x.jpg", fileMtime: Timestamp(seconds: 0), placeZone: tokyo)
        XCTAssertEqual(d.source, .gpsDateTime)
        XCTAssertEqual(d.time.isoString, "2025-01-01T08:30:00+09:00", "its local day in Tokyo")
        XCTAssertTrue(d.offsetFromPlace)
        // Takeout's instant in the place's zone, whatever its longitude says.
        var takeout = PhotoEvidence()
        var s = SidecarEvidence(kind: .takeout, relativePath: "x.jpg.json")
        s.takenTime = 1_719_835_200  // 2024-07-01T12:00:00Z
        s.latitude = 48.85
        s.longitude = 2.35
        takeout.sidecar = s
        d = rules.decide(takeout, fileName: "x.jpg", fileMtime: Timestamp(seconds: 0), placeZone: paris)
        XCTAssertEqual(d.time.isoString, "2024-07-01T14:00:00+02:00")
        XCTAssertTrue(d.offsetFromPlace)
        // The mtime is an instant: no zone of the place's.
        XCTAssertFalse(rules.decide(PhotoEvidence(), fileName: "x.jpg", fileMtime: Timestamp(seconds: 1_000_000_000), placeZone: tokyo).offsetFromPlace)
    }
}
