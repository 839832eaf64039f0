@testable import AlbumCore
import XCTest

final class CaptureTimeTests: XCTestCase {
    func testCivilRoundTrip() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let (y, m, d) = Calendar.civilFromDays(days)
            XCTAssertEqual(Calendar.daysFromCivil(year: y, month: m, day: d), days)
        }
        XCTAssertEqual(Calendar.daysFromCivil(year: 1970, month: 1, day: 1), 0)
        XCTAssertEqual(Calendar.daysFromCivil(year: 2000, month: 3, day: 1), 11_017)
    }

    func testValidity() {
        XCTAssertTrue(LocalDateTime(year: 2020, month: 2, day: 29).isValid)
        XCTAssertFalse(LocalDateTime(year: 2019, month: 2, day: 29).isValid)
        XCTAssertFalse(LocalDateTime(year: 1900, month: 2, day: 29).isValid)
        XCTAssertTrue(LocalDateTime(year: 2000, month: 2, day: 29).isValid)
        XCTAssertFalse(LocalDateTime(year: 2020, month: 0, day: 1).isValid)
        XCTAssertFalse(LocalDateTime(year: 2020, month: 4, day: 31).isValid)
    }

    func testISOStrings() {
        let t = CaptureTime(local: LocalDateTime(year: 2024, month: 5, day: 17, hour: 14, minute: 3, second: 22, nanosecond: 120_000_000),
                            utcOffsetSeconds: -19800)
        XCTAssertEqual(t.isoString, "2024-05-17T14:03:22.12-05:30")
        XCTAssertEqual(CaptureTime(local: LocalDateTime(year: 2024, month: 5, day: 17), utcOffsetSeconds: 0).isoString, "2024-05-17T00:00:00Z")
        XCTAssertEqual(Timestamp(seconds: 1_715_947_384).local(offsetSeconds: 7200).isoString, "2024-05-17T14:03:04")
        XCTAssertEqual(Timestamp(seconds: -1).local(offsetSeconds: 0).isoString, "1969-12-31T23:59:59")
    }
}
