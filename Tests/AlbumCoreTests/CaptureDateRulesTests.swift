@testable import AlbumCore
import XCTest
import Foundation

final class CaptureDateRulesTests: XCTestCase {
    // 2026-12-01T00:00:00Z
    let rules = CaptureDateRules(now: Timestamp(seconds: 1_796_083_200))
    let mtime = Timestamp(seconds: 1_527_854_400)  // 2018-06-01T12:00:00Z

    func decide(_ configure: (inout PhotoEvidence) -> Void, name: String = "photo.jpg") -> CaptureDecision {
        var e = PhotoEvidence()
        configure(&e)
        return rules.decide(e, fileName: name, fileMtime: mtime)
    }

    func testDateTimeOriginalWithSubSecondsAndOffset() {
        let d = decide {
            $0.dateTimeOriginal = "2024:05:17 14:03:04"
            $0.subSecTimeOriginal = "567"
            $0.offsetTimeOriginal = "+02:00"
            $0.dateTimeDigitized = "2024:05:18 00:00:00"
        }
        XCTAssertEqual(d.source, .exifDateTimeOriginal)
        XCTAssertEqual(d.time.isoString, "2024-05-17T14:03:04.567+02:00")
        XCTAssertEqual(d.time.instant(in: TimeZone(identifier: "UTC")!), Timestamp(seconds: 1_715_947_384, nanoseconds: 567_000_000))
    }

    func testCamerasNonStandardDateTimeOriginalStillWins() {
        // A Sanyo's colon form and an HP scanner's blank-padded seconds: the date written on the
        // photo, not the digitized date or the file's mtime.
        let sanyo = decide {
            $0.dateTimeOriginal = "2009:08:01:10:20:30"
            $0.dateTimeDigitized = "2009:08:02 00:00:00"
        }
        XCTAssertEqual(sanyo.source, .exifDateTimeOriginal)
        XCTAssertEqual(sanyo.time.isoString, "2009-08-01T10:20:30")
        let scanner = decide { $0.dateTimeOriginal = "2011:03:04 05:06: 7" }
        XCTAssertEqual(scanner.source, .exifDateTimeOriginal)
        XCTAssertEqual(scanner.time.isoString, "2011-03-04T05:06:07")
    }

    func testWithoutOffsetTheWallClockIsReadInTheLocalZone() {
        let d = decide { $0.dateTimeOriginal = "2024:01:10 08:00:00" }
        XCTAssertNil(d.time.utcOffsetSeconds)
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        XCTAssertEqual(d.time.instant(in: berlin).seconds, 1_704_870_000)  // 07:00Z
        let summer = decide { $0.dateTimeOriginal = "2024:07:10 08:00:00" }
        XCTAssertEqual(summer.time.instant(in: berlin).seconds, 1_720_591_200)  // 06:00Z
    }

    func testAMissingOffsetComesFromTheGPSFix() {
        let d = decide {
            $0.dateTimeOriginal = "2024:05:17 14:03:04"
            $0.gpsDateTimeUTC = "2024:05:17 12:03:05"
        }
        XCTAssertEqual(d.time.utcOffsetSeconds, 7200)
        XCTAssertEqual(d.time.isoString, "2024-05-17T14:03:04+02:00")
        let india = decide {
            $0.dateTimeOriginal = "2024:05:17 14:03:04"
            $0.gpsDateTimeUTC = "2024:05:17 08:33:00"
        }
        XCTAssertEqual(india.time.utcOffsetSeconds, 19800, "quarter hours count: +05:30")
        let stale = decide {
            $0.dateTimeOriginal = "2024:05:17 14:03:04"
            $0.gpsDateTimeUTC = "2024:05:17 11:40:00"
        }
        XCTAssertNil(stale.time.utcOffsetSeconds, "a fix 23 minutes old gives no offset")
        let written = decide {
            $0.dateTimeOriginal = "2024:05:17 14:03:04"
            $0.offsetTimeOriginal = "+03:00"
            $0.gpsDateTimeUTC = "2024:05:17 12:03:05"
        }
        XCTAssertEqual(written.time.utcOffsetSeconds, 10800, "a written offset wins over the GPS")
        XCTAssertNil(decide { $0.dateTimeOriginal = "2024:05:17 14:03:04"; $0.gpsDateTimeUTC = "0000:00:00 00:00:00" }.time.utcOffsetSeconds)
    }

    /// The GPS fix gives an offset only within ±14 h, the widest zone offsets on Earth.
    func testAGPSOffsetBeyondFourteenHoursIsAStaleFix() {
        let kiribati = decide {
            $0.dateTimeOriginal = "2024:05:17 14:00:00"
            $0.gpsDateTimeUTC = "2024:05:17 00:00:00"
        }
        XCTAssertEqual(kiribati.time.utcOffsetSeconds, 50400, "+14:00 exists (Kiribati)")
        XCTAssertNil(decide {
            $0.dateTimeOriginal = "2024:05:17 14:15:00"
            $0.gpsDateTimeUTC = "2024:05:17 00:00:00"
        }.time.utcOffsetSeconds, "+14:15 does not")
        XCTAssertEqual(decide {
            $0.dateTimeOriginal = "2024:05:16 12:00:00"
            $0.gpsDateTimeUTC = "2024:05:17 00:00:00"
        }.time.utcOffsetSeconds, -43200, "-12:00 exists (Baker Island)")
        XCTAssertNil(decide {
            $0.dateTimeOriginal = "2024:05:16 09:45:00"
            $0.gpsDateTimeUTC = "2024:05:17 00:00:00"
        }.time.utcOffsetSeconds, "-14:15 does not")
    }

    /// A date up to two days after now is a camera whose clock is a zone ahead, or a photo taken
    /// just now: kept. One beyond is a wrong clock: refused (now is 2026-12-01T00:00:00Z here).
    func testTwoDaysAheadIsTheLimit() {
        XCTAssertEqual(decide { $0.dateTimeOriginal = "2026:12:02 12:00:00" }.source, .exifDateTimeOriginal, "36 h ahead")
        XCTAssertEqual(decide { $0.dateTimeOriginal = "2026:12:02 23:00:00" }.source, .exifDateTimeOriginal, "47 h ahead")
        let beyond = decide { $0.dateTimeOriginal = "2026:12:03 01:00:00" }
        XCTAssertEqual(beyond.source, .fileModificationTime, "49 h ahead")
        XCTAssertEqual(beyond.rejected.count, 1)
        XCTAssertEqual(decide { $0.dateTimeOriginal = "2026:12:06 00:00:00" }.source, .fileModificationTime)
    }

    func testXMPBeforeDigitized() {
        let d = decide {
            $0.xmpDateCreated = "2015-05-05T05:05:05+05:30"
            $0.dateTimeDigitized = "2016:01:01 00:00:00"
        }
        XCTAssertEqual(d.source, .xmpDateCreated)
        XCTAssertEqual(decide { $0.xmpDateTimeOriginal = "2015-05-05T05:05:05" }.source, .xmpDateTimeOriginal)
    }

    func testSentinelsAndGarbageFallThrough() {
        let d = decide({
            $0.dateTimeOriginal = "0000:00:00 00:00:00"
            $0.dateTimeDigitized = "2002:12:08 12:00:00"
        }, name: "IMG_20190704_101112.jpg")
        XCTAssertEqual(d.source, .fileName, "the Android constant must never beat a file-name date")
        XCTAssertEqual(d.rejected.count, 2)
        for bad in ["    :  :     :  :  ", "2019:13:01 00:00:00", "2019:02:30 00:00:00", "1850:01:01 00:00:00",
                    "1970:01:01 00:00:00", "1970:01:01 08:00:00", "2099:01:01 00:00:00", "2019:05:0"] {
            let r = decide { $0.dateTimeOriginal = bad }
            XCTAssertEqual(r.source, .fileModificationTime, bad)
            XCTAssertEqual(r.rejected.count, 1, bad)
        }
    }

    func testDigitizedWhenNothingBetter() {
        XCTAssertEqual(decide { $0.dateTimeDigitized = "2016:10:10 10:10:10" }.source, .exifDateTimeDigitized)
    }

    /// libc's zone (what the daemon reads times in) agrees with ICU's, summer time included.
    func testSystemZoneAgreesWithFoundation() {
        let zone = SystemZone()
        for instant: Int64 in [0, 1_704_870_000, 1_720_591_200, 1_796_083_200, -1_000_000_000] {
            XCTAssertEqual(zone.secondsEastOfUTC(at: instant), TimeZone.current.secondsEastOfUTC(at: instant), "\(instant)")
        }
    }

    /// The zone's offsets remembered by day give what the zone says, on days with a change (at an
    /// odd second) and without, before 1970 too; a day without one is asked of the zone only
    /// the first time.
    func testDayOffsetsAreTheZones() {
        let change: Int64 = 1_711_846_861, back: Int64 = 1_729_990_799, old: Int64 = -1_000_000_123
        final class Calls { var count = 0 }
        let calls = Calls()
        let zone: (Int64) -> Int = { t in
            calls.count += 1
            return t >= change && t < back ? 7_200 : t < old ? 561 : 3_600
        }
        let days = DayOffsets(zone)
        for center in [change, back, old, 0] {
            for delta in stride(from: Int64(-200_000), through: 200_000, by: 997) + [-1, 0, 1] {
                XCTAssertEqual(days.offset(at: center + delta), zone(center + delta), "\(center + delta)")
            }
        }
        let quiet: Int64 = 1_600_000_000
        _ = days.offset(at: quiet)
        let before = calls.count
        for k in 0..<1_000 { XCTAssertEqual(days.offset(at: quiet + Int64(k)), 3_600) }
        XCTAssertEqual(calls.count, before, "a day without a change: remembered")
    }

    func testMtimeIsTheLastResort() {
        let d = decide { _ in }
        XCTAssertEqual(d.source, .fileModificationTime)
        XCTAssertEqual(d.time.instant(in: SystemZone()), mtime)
    }

    /// Facebook's and WeChat's saved photos: milliseconds since 1970 in the name, the instant kept
    /// exactly, the day the one the daemon's zone shows.
    func testEpochMillisecondNamesGiveTheInstant() {
        let saved = Timestamp(seconds: 1_536_497_261, nanoseconds: 234_000_000)  // 2018-09-09T12:47:41.234Z
        for name in ["FB_IMG_1536497261234.jpg", "mmexport1536497261234.jpg", "fb_img_1536497261234.JPG", "mmexport1536497261234(1).jpg"] {
            let d = decide({ _ in }, name: name)
            XCTAssertEqual(d.source, .fileName, name)
            XCTAssertEqual(d.time.instant(in: SystemZone()), saved, name)
            XCTAssertEqual(d.time.utcOffsetSeconds, SystemZone().secondsEastOfUTC(at: saved.seconds), name)
        }
        for name in ["FB_IMG_153649726123.jpg", "FB_IMG_15364972612345.jpg", "FB_IMG_.jpg", "mmexport.jpg", "IMG_1536497261234.jpg"] {
            XCTAssertEqual(decide({ _ in }, name: name).source, .fileModificationTime, name)
        }
        XCTAssertEqual(decide({ $0.dateTimeOriginal = "2020:01:02 03:04:05" }, name: "FB_IMG_1536497261234.jpg").source,
                       .exifDateTimeOriginal, "EXIF still comes first")
        let future = decide({ _ in }, name: "FB_IMG_4102444800000.jpg")  // 2100
        XCTAssertEqual(future.source, .fileModificationTime)
        XCTAssertTrue(future.rejected.contains { $0.contains("in the future") }, "\(future.rejected)")
        XCTAssertEqual(decide({ _ in }, name: "mmexport0000000000123.jpg").source, .fileModificationTime, "a leading zero: no such time")
    }

    /// A screenshot name in any language dates the photo when nothing in it does, and a
    /// configured screenshot word is honoured too; the patterns still come first.
    func testScreenshotNamesDateAfterThePatterns() {
        let d = decide({ _ in }, name: "Skärmbild 2024-05-17 kl. 14.03.04.png")
        XCTAssertEqual(d.source, .fileName)
        XCTAssertEqual(d.time.local, LocalDateTime(year: 2024, month: 5, day: 17, hour: 14, minute: 3, second: 4))
        XCTAssertEqual(decide({ _ in }, name: "Ekraanipilt 2024-05-17 14.03.04.png").source, .fileModificationTime)
        let estonian = CaptureDateRules(now: rules.now, screenshotNames: ScreenshotNameDate(prefixes: ["Ekraanipilt"]))
        XCTAssertEqual(estonian.decide(PhotoEvidence(), fileName: "Ekraanipilt 2024-05-17 14.03.04.png", fileMtime: mtime).source, .fileName)
        XCTAssertEqual(decide({ $0.dateTimeOriginal = "2020:01:02 03:04:05" }, name: "Skärmbild 2024-05-17 kl. 14.03.04.png").source,
                       .exifDateTimeOriginal)
        let future = decide({ _ in }, name: "Skärmbild 2099-05-17 kl. 14.03.04.png")
        XCTAssertEqual(future.source, .fileModificationTime)
        XCTAssertTrue(future.rejected.contains { $0.hasPrefix("filename") }, "\(future.rejected)")
    }

    func testFutureFileNameDateIsRejected() {
        let d = decide({ _ in }, name: "IMG_20990101_000000.jpg")
        XCTAssertEqual(d.source, .fileModificationTime)
    }

    // The dates a device writes besides the capture dates: the GPS fix's UTC time and IFD0
    // `DateTime`, after the file name and before the mtime.

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
        XCTAssertEqual(decide({ $0.dateTime = "2022:02:03 04:05:06"; $0.gpsDateTimeUTC = "2022:02:03 03:05:06" }, name: "IMG_20210101_101010.jpg").source,
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
