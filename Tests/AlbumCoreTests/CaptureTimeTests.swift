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

    /// A `stat` time can be any 64-bit value; a Timestamp holds what the index's nanoseconds
    /// hold, normalised, so every one comes back from the index equal to itself and none traps.
    func testTimesPastWhatNanosecondsHoldAreClampedAndRoundTrip() {
        let year2400 = Timestamp(seconds: 13_569_465_600, nanoseconds: 5)
        XCTAssertEqual(year2400.seconds, Timestamp.maxSeconds)
        XCTAssertEqual(year2400.local(offsetSeconds: 0).year, 2262)
        XCTAssertEqual(Timestamp(seconds: .min).seconds, -Timestamp.maxSeconds)
        XCTAssertEqual(Timestamp(seconds: .max, nanoseconds: .max).seconds, Timestamp.maxSeconds)
        XCTAssertEqual(Timestamp(seconds: 5, nanoseconds: -1), Timestamp(seconds: 4, nanoseconds: 999_999_999))
        XCTAssertEqual(Timestamp(seconds: 5, nanoseconds: 2_500_000_000), Timestamp(seconds: 7, nanoseconds: 500_000_000))
        let edges: [Timestamp] = [year2400, Timestamp(seconds: .min, nanoseconds: .min), Timestamp(seconds: .max, nanoseconds: .max),
                                  Timestamp(seconds: -1_000_000_000, nanoseconds: 500_000_000), Timestamp(seconds: -1, nanoseconds: 1),
                                  Timestamp(seconds: 0), Timestamp(seconds: 1_715_947_384, nanoseconds: 999_999_999)]
        for t in edges {
            XCTAssertTrue((0..<1_000_000_000).contains(t.nanoseconds), "\(t)")
            XCTAssertEqual(Timestamp(nanosecondsSinceEpoch: t.nanosecondsSinceEpoch), t, "\(t)")
            XCTAssertEqual(PackedTimestamp(t).time, t, "\(t)")
        }
        XCTAssertLessThan(Timestamp(seconds: -1, nanoseconds: 1), Timestamp(seconds: 0))
    }

    /// Every photo keeps a capture time: it is packed (20 + 4 bytes, not 56 + 16), and what it
    /// holds reads back as it was given.
    func testCaptureTimesArePackedAndReadBackAsGiven() {
        XCTAssertLessThanOrEqual(MemoryLayout<LocalDateTime>.stride, 20)
        XCTAssertLessThanOrEqual(MemoryLayout<CaptureTime>.stride, 24)
        let t = LocalDateTime(year: 2024, month: 5, day: 17, hour: 23, minute: 59, second: 60, nanosecond: 999_999_999)
        XCTAssertEqual([t.year, t.month, t.day, t.hour, t.minute, t.second, t.nanosecond], [2024, 5, 17, 23, 59, 60, 999_999_999])
        var edited = t
        edited.nanosecond = 120_000_000
        edited.year = -44
        XCTAssertEqual([edited.year, edited.nanosecond], [-44, 120_000_000])
        XCTAssertLessThan(edited, t)
        XCTAssertLessThan(LocalDateTime(year: 2024, month: 5, day: 17, nanosecond: 1), LocalDateTime(year: 2024, month: 5, day: 17, second: 1))
        // Garbage stays garbage: clamped, never trapping, still invalid.
        let garbage = LocalDateTime(year: 2024, month: 70_000, day: 1, second: 1 << 40, nanosecond: Int.max)
        XCTAssertEqual([garbage.month, garbage.second, garbage.nanosecond], [32_767, 32_767, Int(Int32.max)])
        XCTAssertFalse(garbage.isValid)
        XCTAssertEqual(LocalDateTime(year: Int.max, month: 1, day: 1).year, Int(Int32.max))
        // Offsets: none, zero, east, west, each kept apart.
        for offset in [nil, 0, 19_800, -34_200, 86_399] as [Int?] {
            XCTAssertEqual(CaptureTime(local: t, utcOffsetSeconds: offset).utcOffsetSeconds, offset)
        }
        XCTAssertNotEqual(CaptureTime(local: t, utcOffsetSeconds: nil), CaptureTime(local: t, utcOffsetSeconds: 0))
        XCTAssertEqual(CaptureTime(local: t, utcOffsetSeconds: Int(Int32.min)).utcOffsetSeconds, Int(Int32.min) + 1, "not taken for none")
    }
}
