@testable import AlbumCore
import XCTest

final class DateParsingTests: XCTestCase {
    func testExifDateTime() throws {
        let (t, offset) = try XCTUnwrap(DateParsing.exifDateTime("2024:05:17 14:03:04"))
        XCTAssertEqual(t, LocalDateTime(year: 2024, month: 5, day: 17, hour: 14, minute: 3, second: 4))
        XCTAssertNil(offset)
        XCTAssertNotNil(DateParsing.exifDateTime("2024-05-17 14:03:04\0"), "dashes and a trailing NUL")
        XCTAssertNotNil(DateParsing.exifDateTime("2024:05:17T14:03:04"))
        XCTAssertEqual(DateParsing.exifDateTime("2024/05/17 14:03:04")?.0, t, "slashes (some cameras and editors)")
        XCTAssertEqual(DateParsing.exifDateTime("2024.05.17 14:03:04")?.0, t, "dots")
        XCTAssertEqual(DateParsing.exifDateTime("2024:05:17 14:03:04+02:00")?.1, 7200)
        XCTAssertEqual(DateParsing.exifDateTime("2024:05:17 14:03:04.25")?.0.nanosecond, 250_000_000)
    }

    /// The canonical form's short cut reads what the general scanner reads, and nothing it would
    /// not: every 19-byte string near the form (each byte of a valid date replaced in turn by
    /// others), and all-digit fields of every value.
    func testTheCanonicalShortCutAgreesWithTheScanner() {
        let base = Array("2024:05:17 14:03:04".utf8)
        var checked = 0, taken = 0
        for at in base.indices {
            for byte: UInt8 in [0x00, 0x20, 0x2D, 0x2F, 0x2E, 0x3A, 0x54, 0x30, 0x39, 0x41, 0x7F, 0xC3] {
                var bytes = base
                bytes[at] = byte
                let text = String(decoding: bytes, as: UTF8.self)
                if let fast = DateParsing.canonicalExifDateTime(text) {
                    taken += 1
                    let scanned = DateParsing.scannedExifDateTime(text)
                    XCTAssertEqual(scanned?.0, fast, text)
                    XCTAssertNil(scanned?.1 ?? nil, text)
                }
                XCTAssertEqual(DateParsing.exifDateTime(text).map { "\($0.0) \($0.1 as Any)" },
                               DateParsing.scannedExifDateTime(text).map { "\($0.0) \($0.1 as Any)" }, text)
                checked += 1
            }
        }
        for text in ["0000:00:00 00:00:00", "9999:99:99 99:99:99", "1970:01:01 00:00:00", "2024:02:30 25:61:61"] {
            XCTAssertEqual(DateParsing.canonicalExifDateTime(text), DateParsing.scannedExifDateTime(text)?.0, text)
            XCTAssertNotNil(DateParsing.canonicalExifDateTime(text), text)
        }
        XCTAssertNil(DateParsing.canonicalExifDateTime("2024:05:17 14:03:04 "), "a blank after: the scanner's")
        XCTAssertNil(DateParsing.canonicalExifDateTime("2024:05:17 14:03:0"))
        XCTAssertGreaterThan(taken, 20)
        XCTAssertGreaterThan(checked, 200)
    }

    /// What real cameras write instead of the standard form (exiftool's notes on them).
    func testExifDateTimeAsCamerasMisWriteIt() throws {
        let t = LocalDateTime(year: 2024, month: 5, day: 7, hour: 4, minute: 3, second: 2)
        for written in ["2024:05:07:04:03:02",  // colon between date and time: Polaroid, Sanyo, Sharp, Vivitar
                        "2024:05:07 04:03: 2",  // blank for the seconds' leading zero: HP scanners
                        "2024: 5: 7  4: 3: 2",  // every field blank-padded
                        "2024:05:07T04:03:02"] {
            XCTAssertEqual(DateParsing.exifDateTime(written)?.0, t, written)
        }
        XCTAssertEqual(DateParsing.exifDateTime("2024:05:07:04:03:02+02:00")?.1, 7200, "a zone after the colon form")
        for bad in ["2024:05:07:04:03", "2024:05:07 04:03:  2", "2024:05:07 4:03:02", "2024:05:07 04:03: x",
                    "2024:05:07 04:03: 2x", "2024:05:07;04:03:02"] {
            XCTAssertNil(DateParsing.exifDateTime(bad), bad)
        }
    }

    func testExifDateTimeRejectsPartialAndBlank() {
        for bad in ["", "    :  :     :  :  ", "2024:05:17", "2024:05:17 14:03", "2024:05:17 14:03:0", "2024:5:17 14:03:04",
                    "garbage", "2024:05:17 14:03:04 junk"] {
            XCTAssertNil(DateParsing.exifDateTime(bad), bad)
        }
    }

    func testSubSecondsAndOffsets() {
        XCTAssertEqual(DateParsing.subSeconds("5"), 500_000_000)
        XCTAssertEqual(DateParsing.subSeconds("567"), 567_000_000)
        XCTAssertEqual(DateParsing.subSeconds("123456789123"), 123_456_789)
        XCTAssertNil(DateParsing.subSeconds("  "))
        XCTAssertNil(DateParsing.subSeconds("12a"))
        XCTAssertEqual(DateParsing.utcOffset("+02:00"), 7200)
        XCTAssertEqual(DateParsing.utcOffset("-05:30"), -19800)
        XCTAssertEqual(DateParsing.utcOffset("-0530"), -19800)
        XCTAssertEqual(DateParsing.utcOffset("Z"), 0)
        XCTAssertEqual(DateParsing.utcOffset("+02"), 7200, "ISO 8601 allows the hours alone")
        XCTAssertEqual(DateParsing.utcOffset("-11"), -39600)
        XCTAssertNil(DateParsing.utcOffset("+2"))
        XCTAssertNil(DateParsing.utcOffset("+02:"))
        XCTAssertNil(DateParsing.utcOffset("+15"))
        XCTAssertNil(DateParsing.utcOffset("+25:00"))
        XCTAssertNil(DateParsing.utcOffset("   :  "))
    }

    func testXMPDates() throws {
        let (t, o) = try XCTUnwrap(DateParsing.xmpDate("2015-05-05T05:05:05.5+05:30"))
        XCTAssertEqual(t, LocalDateTime(year: 2015, month: 5, day: 5, hour: 5, minute: 5, second: 5, nanosecond: 500_000_000))
        XCTAssertEqual(o, 19800)
        XCTAssertEqual(DateParsing.xmpDate("2015-05-05T05:05")?.0.minute, 5)
        XCTAssertEqual(DateParsing.xmpDate("2015-05-05")?.0.hour, 12, "a date alone is noon")
        XCTAssertNil(DateParsing.xmpDate("2015-05"))
        XCTAssertEqual(DateParsing.xmpDate("2015:05:05 05:05:05")?.0, LocalDateTime(year: 2015, month: 5, day: 5, hour: 5, minute: 5, second: 5),
                       "EXIF's form, as some writers put it in XMP")
        XCTAssertEqual(DateParsing.xmpDate("2015:05:05 05:05:05+02:00")?.1, 7200)
        for bad in ["2015:05:05", "2015:05:05 05:05", "    :  :     :  :  ", "05/05/2015 05:05:05"] {
            XCTAssertNil(DateParsing.xmpDate(bad), bad)
        }
    }

    func testFileNamePatterns() {
        func parse(_ name: String) -> LocalDateTime? {
            FileNameDatePattern.defaults.lazy.compactMap { $0.match(name) }.first
        }
        XCTAssertEqual(parse("IMG_20190704_101112.jpg"), LocalDateTime(year: 2019, month: 7, day: 4, hour: 10, minute: 11, second: 12))
        XCTAssertEqual(parse("VID_20190704_101112.mp4")?.day, 4)
        XCTAssertEqual(parse("PXL_20231001_123456789.jpg"), LocalDateTime(year: 2023, month: 10, day: 1, hour: 12, minute: 34, second: 56, nanosecond: 789_000_000))
        XCTAssertEqual(parse("Screenshot_20201215-090626.png"), LocalDateTime(year: 2020, month: 12, day: 15, hour: 9, minute: 6, second: 26))
        XCTAssertEqual(parse("Screenshot_20201215-090626_Chrome.png")?.second, 26)
        XCTAssertEqual(parse("Screenshot_2021-03-04-05-06-07-123_com.miui.home.png")?.hour, 5)
        XCTAssertEqual(parse("Screenshot 2023-01-05 at 12.34.56.png")?.hour, 12)
        XCTAssertEqual(parse("Screen Shot 2019-01-05 at 1.23.45 PM.png")?.hour, 13)
        XCTAssertEqual(parse("Screen Shot 2019-01-05 at 12.23.45 AM.png")?.hour, 0)
        XCTAssertEqual(parse("Screenshot From 2017-05-21 12-24-03.png")?.minute, 24)
        XCTAssertEqual(parse("Screenshot 2024-01-15 103045.png")?.second, 45)
        XCTAssertEqual(parse("2018-02-03 04.05.06.jpg")?.month, 2)
        XCTAssertEqual(parse("IMG-20200101-WA0001.jpg"), LocalDateTime(year: 2020, month: 1, day: 1))
        XCTAssertEqual(parse("20240517_090000.jpg")?.day, 17)
        XCTAssertEqual(parse("Screenshot_20240105_123456.png")?.minute, 34)
        let t = LocalDateTime(year: 2024, month: 1, day: 5, hour: 12, minute: 34, second: 56)
        for name in ["MVIMG_20240105_123456.jpg", "PANO_20240105_123456.jpg", "IMG20240105123456.jpg", "IMG20240105123456_01.jpg",
                     "Screenshot 2024-01-05 12.34.56.png", "Screenshot_2024-01-05_12-34-56.png",
                     "signal-2024-01-05-123456.jpg", "signal-2024-01-05-12-34-56-789.jpg", "photo_2024-01-05_12-34-56.jpg",
                     "WIN_20240105_12_34_56_Pro.jpg", "DJI_20240105123456_0001_D.JPG"] {
            XCTAssertEqual(parse(name), t, name)
        }
        // OneDrive's camera upload: milliseconds after the seconds, then the phone's system.
        XCTAssertEqual(parse("20240105_123456789_iOS.jpg"),
                       LocalDateTime(year: 2024, month: 1, day: 5, hour: 12, minute: 34, second: 56, nanosecond: 789_000_000))
        XCTAssertNil(parse("20240105_1234567890_iOS.jpg"), "a tenth digit")
    }

    /// macOS 13 and later write a narrow no-break space before AM/PM: the hour must still turn.
    func testAfternoonAfterANarrowNoBreakSpace() {
        func parse(_ name: String) -> LocalDateTime? {
            FileNameDatePattern.defaults.lazy.compactMap { $0.match(name) }.first
        }
        XCTAssertEqual(parse("Screenshot 2023-01-05 at 1.02.03\u{202F}PM.png")?.hour, 13)
        XCTAssertEqual(parse("Screenshot 2023-01-05 at 12.02.03\u{202F}AM.png")?.hour, 0)
        XCTAssertEqual(parse("Screen Shot 2019-01-05 at 1.23.45\u{00A0}PM.png")?.hour, 13)
        XCTAssertEqual(parse("WhatsApp Image 2021-03-14 at 18.22.41.jpeg"),
                       LocalDateTime(year: 2021, month: 3, day: 14, hour: 18, minute: 22, second: 41))
        XCTAssertEqual(parse("WhatsApp Image 2023-01-05 at 1.02.03 PM (1).jpeg")?.hour, 13)
        XCTAssertEqual(parse("WhatsApp Image 2023-10-17 at 14.05.33_4f1b2c3d.jpg")?.minute, 5)
    }

    /// Screenshot names in the languages macOS, Windows and phones write, by the screenshot word
    /// and the date and time around whatever words stand between them.
    func testScreenshotNamesInEveryLanguage() {
        let matcher = ScreenshotNameDate()
        let t = LocalDateTime(year: 2024, month: 5, day: 17, hour: 14, minute: 3, second: 4)
        for name in ["Capture d’écran 2024-05-17 à 14.03.04.png", "Capture d'écran 2024-05-17 à 14.03.04.png",
                     "Capture d\u{2019}e\u{301}cran 2024-05-17 a\u{300} 14.03.04.png",  // decomposed accents (macOS HFS+)
                     "Schermafbeelding 2024-05-17 om 14.03.04.png", "Schermata 2024-05-17 alle 14.03.04.png",
                     "Captura de Tela 2024-05-17 às 14.03.04.png", "Captura de ecrã 2024-05-17, às 14.03.04.png",
                     "Skärmbild 2024-05-17 kl. 14.03.04.png", "Skjermbilde 2024-05-17 kl. 14.03.04.png",
                     "Zrzut ekranu 2024-05-17 o 14.03.04.png", "Снимок экрана 2024-05-17 в 14.03.04.png",
                     "スクリーンショット 2024-05-17 14.03.04.png", "截屏2024-05-17 14.03.04.png", "截屏2024-05-17 下午2.03.04.png",
                     "스크린샷 2024-05-17 오후 2.03.04.png", "Screenshot 2024-05-17 at 2.03.04 p.m..png",
                     "Captura de pantalla 2024-05-17 140304.png", "Bildschirmfoto 2024-05-17 um 14:03:04.png",
                     "Képernyőkép 2024-05-17 14-03-04.png", "SCREENSHOT 2024-05-17 at 14.03.04.png",
                     "屏幕快照 2024-05-17 下午2.03.04.png", "Στιγμιότυπο οθόνης 2024-05-17 14.03.04.png"] {
            XCTAssertEqual(matcher.match(name), t, name)
        }
        XCTAssertEqual(matcher.match("스크린샷 2024-05-17 오전 12.03.04.png")?.hour, 0)
        XCTAssertEqual(matcher.match("截屏2024-05-17 上午9.03.04.png")?.hour, 9)
        for name in ["Screenshot (12).png", "Screenshot 2024-05-17.png", "Screenshot 2024-05-17 (2).png",
                     "Screenshot 2024-05-17 at 25.03.04.png", "Screenshot 2024-02-30 at 14.03.04.png",
                     "Screenshot 2024-05-17 at 14.03.045.png", "Screenshot 2024-05-17 at 14.03-04.png",
                     "Screenshot 2024-05-17 somewhere far away 14.03.04.png", "Screenshot of a receipt 2024-05-17 14.03.04.png",
                     "Screenshotting 2024-05-17 14.03.04.png", "holiday 2024-05-17 14.03.04.png", "스크린샷 2024-05-17 오후 13.03.04.png"] {
            XCTAssertNil(matcher.match(name), name)
        }
        XCTAssertEqual(ScreenshotNameDate(prefixes: ["Ekraanipilt"]).match("Ekraanipilt 2024-05-17 14.03.04.png"), t,
                       "the prefixes configured for screenshots")
    }

    func testFileNamePatternsValidate() {
        func parse(_ name: String) -> LocalDateTime? {
            FileNameDatePattern.defaults.lazy.compactMap { $0.match(name) }.first
        }
        XCTAssertNil(parse("IMG_20191304_101112.jpg"), "month 13")
        XCTAssertNil(parse("IMG_20190230_101112.jpg"), "30 February")
        XCTAssertNil(parse("IMG_20190704_251112.jpg"), "hour 25")
        XCTAssertNil(parse("IMG_201907041_101112.jpg"), "too many digits")
        XCTAssertNil(parse("IMG_1234.JPG"))
        XCTAssertNil(parse("IMG1234.JPG"))
        XCTAssertNil(parse("IMG202401051234567.jpg"), "a fifteenth digit")
        XCTAssertNil(parse("holiday.jpg"))
    }

    /// The scanner steps over UTF-8 bytes: non-ASCII text must never pass for a digit or a
    /// separator, and a non-ASCII literal in a pattern must still match itself.
    func testNonASCIIText() throws {
        for bad in ["２０２４:05:17 14:03:04", "2024:05:17 14:03:04é", "2024：05:17 14:03:04", "2024:05:17\u{00A0}14:03:04"] {
            XCTAssertNil(DateParsing.exifDateTime(bad), bad)
        }
        XCTAssertNil(DateParsing.utcOffset("−02:00"), "a minus sign is not a hyphen")
        XCTAssertEqual(DateParsing.exifDateTime("\0 2024:05:17 14:03:04 \0\0")?.0.second, 4, "blanks and NULs trimmed")
        let pattern = FileNameDatePattern("Captura de ecrã {Y}-{M}-{D} às {h}.{m}.{s}")
        XCTAssertEqual(pattern.match("Captura de ecrã 2024-05-17 às 14.03.04.png"),
                       LocalDateTime(year: 2024, month: 5, day: 17, hour: 14, minute: 3, second: 4))
        XCTAssertEqual(pattern.match("CAPTURA DE ECRã 2024-05-17 ÀS 14.03.04.png"), nil, "non-ASCII letters compare exactly")
        XCTAssertNil(pattern.match("Captura de ecra 2024-05-17 às 14.03.04.png"))
    }
}
