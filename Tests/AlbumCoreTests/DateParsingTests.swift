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
                     "signal-2024-01-05-123456.jpg", "signal-2024-01-05-12-34-56-789.jpg", "photo_2024-01-05_12-34-56.jpg"] {
            XCTAssertEqual(parse(name), t, name)
        }
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
