@testable import AlbumCore
import XCTest

/// The dates a device writes besides the capture dates: the GPS fix's UTC time and IFD0
/// `DateTime`, after the file name and before the mtime (docs/rules.md).
final class WeakDeviceDatesTests: XCTestCase {
    let rules = CaptureDateRules(now: Timestamp(seconds: 1_796_083_200))  // 2026-12-01T00:00:00Z
    let mtime = Timestamp(seconds: 1_527_854_400)  // 2018-06-01T12:00:00Z

    func decide(_ name: String = "photo.heic", _ configure: (inout PhotoEvidence) -> Void) -> CaptureDecision {
        var e = PhotoEvidence()
        configure(&e)
        return rules.decide(e, fileName: name, fileMtime: mtime)
    }

    func testGPSTimeTakesItsOffsetFromDateTimeAndBeatsIt() {
        // A phone HEIF with IFD0 DateTime and GPS only: the GPS instant, on the day DateTime's
        // implied offset gives (23:30 in New York is the next day in UTC).
        let d = decide {
            $0.dateTime = "2023:10:11 23:30:10"
            $0.gpsDateTimeUTC = "2023:10:12 04:30:09"
        }
        XCTAssertEqual(d.source, .gpsDateTime)
        XCTAssertEqual(d.time.isoString, "2023-10-11T23:30:09-05:00")
        XCTAssertEqual(d.time.local.day, 11)
    }

    func testGPSTimeWithAWrittenOffsetOrNoneIsSaidInUTC() {
        let written = decide { $0.gpsDateTimeUTC = "2023:10:12 04:30:09"; $0.offsetTime = "+09:00" }
        XCTAssertEqual(written.source, .gpsDateTime)
        XCTAssertEqual(written.time.isoString, "2023-10-12T13:30:09+09:00")
        let alone = decide { $0.gpsDateTimeUTC = "2023:10:12 04:30:09" }
        XCTAssertEqual(alone.source, .gpsDateTime)
        XCTAssertEqual(alone.time.isoString, "2023-10-12T04:30:09Z")
    }

    func testDateTimeIsTheWeakestWrittenDate() {
        let d = decide { $0.dateTime = "2022:02:03 04:05:06"; $0.offsetTime = "+01:00" }
        XCTAssertEqual(d.source, .exifDateTime)
        XCTAssertEqual(d.time.isoString, "2022-02-03T04:05:06+01:00")
        // Every stronger source beats both.
        XCTAssertEqual(decide("IMG_20210101_101010.jpg") { $0.dateTime = "2022:02:03 04:05:06"; $0.gpsDateTimeUTC = "2022:02:03 03:05:06" }.source,
                       .fileName)
        XCTAssertEqual(decide { $0.dateTimeDigitized = "2020:01:01 10:00:00"; $0.dateTime = "2022:02:03 04:05:06" }.source, .exifDateTimeDigitized)
        XCTAssertEqual(decide { $0.xmpCreateDate = "2020-01-01T10:00:00"; $0.gpsDateTimeUTC = "2022:02:03 03:05:06" }.source, .xmpCreateDate)
    }

    func testRefusedOnesAreSaidAndTheMtimeStillDecides() {
        let d = decide { $0.dateTime = "0000:00:00 00:00:00"; $0.gpsDateTimeUTC = "1970:01:01 00:00:00" }
        XCTAssertEqual(d.source, .fileModificationTime)
        XCTAssertEqual(d.rejected, ["exif:GPSDateTime \"1970:01:01 00:00:00\" (1970 epoch)", "exif:DateTime \"0000:00:00 00:00:00\" (sentinel)"])
    }
}
