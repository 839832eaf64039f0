import AlbumSystem
import Glibc
import Synchronization

/// A wall-clock date and time as written on a photo, with no time zone attached.
///
/// The day folder of a photo is this date: the calendar day the photographer saw.
///
/// Stored in 20 bytes, not seven `Int`s' 56: every photo of a mounted library keeps one, twice
/// at a scan's peak, when the photo array is copied. Fields are
/// kept as given within ±32,767 (±2^31 for the year and the nanoseconds); a value beyond is
/// clamped there, and stays as invalid as it was (`isValid`, the rules' year bounds).
public struct LocalDateTime: Hashable, Comparable, Sendable {
    private var storedYear: Int32
    private var storedNanosecond: Int32
    private var storedMonth: Int16, storedDay: Int16, storedHour: Int16, storedMinute: Int16, storedSecond: Int16

    public var year: Int { get { Int(storedYear) } set { storedYear = Int32(clamping: newValue) } }
    public var month: Int { get { Int(storedMonth) } set { storedMonth = Int16(clamping: newValue) } }
    public var day: Int { get { Int(storedDay) } set { storedDay = Int16(clamping: newValue) } }
    public var hour: Int { get { Int(storedHour) } set { storedHour = Int16(clamping: newValue) } }
    public var minute: Int { get { Int(storedMinute) } set { storedMinute = Int16(clamping: newValue) } }
    public var second: Int { get { Int(storedSecond) } set { storedSecond = Int16(clamping: newValue) } }
    public var nanosecond: Int { get { Int(storedNanosecond) } set { storedNanosecond = Int32(clamping: newValue) } }

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, nanosecond: Int = 0) {
        storedYear = Int32(clamping: year)
        storedNanosecond = Int32(clamping: nanosecond)
        storedMonth = Int16(clamping: month)
        storedDay = Int16(clamping: day)
        storedHour = Int16(clamping: hour)
        storedMinute = Int16(clamping: minute)
        storedSecond = Int16(clamping: second)
    }

    public static func < (a: LocalDateTime, b: LocalDateTime) -> Bool {
        if (a.year, a.month, a.day) != (b.year, b.month, b.day) { return (a.year, a.month, a.day) < (b.year, b.month, b.day) }
        return (a.hour, a.minute, a.second, a.nanosecond) < (b.hour, b.minute, b.second, b.nanosecond)
    }

    /// Whether every field is inside its calendar range (month 13, day 32, 25:00 are not).
    public var isValid: Bool {
        guard (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute),
              (0...60).contains(second), (0..<1_000_000_000).contains(nanosecond) else { return false }
        return (1...Calendar.daysIn(month: month, year: year)).contains(day)
    }

    /// Seconds since 1970-01-01T00:00:00 if this wall-clock time were UTC.
    public var secondsSinceEpochAsUTC: Int64 {
        Int64(Calendar.daysFromCivil(year: year, month: month, day: day)) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The calendar date, `YYYY-MM-DD`.
    public var dayString: String { "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))" }
    public var monthString: String { "\(pad(year, 4))-\(pad(month, 2))" }
    public var yearString: String { pad(year, 4) }

    /// ISO 8601 without zone: `2024-05-17T14:03:22.120`.
    public var isoString: String {
        var s = "\(dayString)T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        if nanosecond != 0 {
            var frac = pad(nanosecond, 9)
            while frac.hasSuffix("0") { frac.removeLast() }
            s += "." + frac
        }
        return s
    }
}

/// Proleptic Gregorian calendar arithmetic, independent of any time zone database.
enum Calendar {
    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (`civil_from_days`).
    static func civilFromDays(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(abs(value))
    let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
    return value < 0 ? "-" + padded : padded
}

/// A point in time as `stat` reports it: seconds and nanoseconds since the epoch.
///
/// Every value is normalised (nanoseconds in `0..<1_000_000_000`) and held within what one `Int64`
/// of nanoseconds counts (±`maxSeconds`, the years 1678 to 2262), as the index and the views
/// snapshot store times: a file's `stat` time can be any 64-bit value (a hostile or misdated file,
/// another system's share), and a time kept must come back from the index equal to a fresh `stat`
/// of the same file, or the file would be read again on every scan.
public struct Timestamp: Hashable, Comparable, Sendable {
    public private(set) var seconds: Int64
    public private(set) var nanoseconds: Int

    /// The largest whole second held; one below what the views snapshot's reader accepts.
    public static let maxSeconds: Int64 = Int64.max / 1_000_000_000 - 2

    public init(seconds: Int64, nanoseconds: Int = 0) {
        let billion = 1_000_000_000
        let n = min(max(nanoseconds, -billion * billion), billion * billion)
        let carry = n >= 0 ? n / billion : (n + 1) / billion - 1
        let limit = Self.maxSeconds
        let whole = min(max(seconds, -limit), limit) + Int64(carry)
        self.seconds = min(max(whole, -limit), limit)
        self.nanoseconds = n - carry * billion
    }

    /// The current time (`clock_gettime(CLOCK_REALTIME)`).
    public static var now: Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(seconds: Int64(ts.tv_sec), nanoseconds: ts.tv_nsec)
    }

    /// A `stat` time (`st_mtim`, `st_ctim`).
    public init(_ time: timespec) {
        self.init(seconds: Int64(time.tv_sec), nanoseconds: Int(time.tv_nsec))
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }

    /// The same instant as one count of nanoseconds since the epoch (as the index stores times;
    /// years 1678 to 2262), and back.
    public var nanosecondsSinceEpoch: Int64 { seconds * 1_000_000_000 + Int64(nanoseconds) }

    public init(nanosecondsSinceEpoch ns: Int64) {
        self.init(seconds: ns / 1_000_000_000, nanoseconds: Int(ns % 1_000_000_000))
    }

    /// The wall-clock time this instant shows at a fixed UTC offset.
    public func local(offsetSeconds: Int) -> LocalDateTime {
        let shifted = seconds + Int64(offsetSeconds)
        let days = Int((shifted >= 0 ? shifted : shifted - 86_399) / 86_400)
        let secOfDay = Int(shifted - Int64(days) * 86_400)
        let (y, m, d) = Calendar.civilFromDays(days)
        return LocalDateTime(year: y, month: m, day: d, hour: secOfDay / 3600, minute: secOfDay % 3600 / 60,
                             second: secOfDay % 60, nanosecond: nanoseconds)
    }
}

/// An optional `Timestamp` in 8 bytes (nanoseconds since the epoch, `Int64.min` for none), where
/// `Timestamp?` takes 17: for what is kept once per file of a library (a file's ctime when read,
/// in `IndexedFile` and `Photo`).
public struct PackedTimestamp: Equatable, Sendable {
    private var nanoseconds: Int64

    public init(_ time: Timestamp?) { nanoseconds = time?.nanosecondsSinceEpoch ?? .min }

    public var time: Timestamp? { nanoseconds == .min ? nil : Timestamp(nanosecondsSinceEpoch: nanoseconds) }
}

/// When a photo was taken: the wall clock written on it and, when known, its UTC offset.
public struct CaptureTime: Hashable, Sendable {
    public var local: LocalDateTime
    /// `utcOffsetSeconds`, `Int32.min` for none: an `Int?` took 16 bytes with its padding here.
    private var storedOffset: Int32

    /// Seconds east of UTC; nil when the source gave no zone (plain EXIF, file names). Offsets
    /// are within a day (±86,399 s); one beyond is clamped to ±2^31 - 1.
    public var utcOffsetSeconds: Int? {
        get { storedOffset == .min ? nil : Int(storedOffset) }
        set { storedOffset = newValue.map { max(Int32(clamping: $0), .min + 1) } ?? .min }
    }

    public init(local: LocalDateTime, utcOffsetSeconds: Int? = nil) {
        self.local = local
        storedOffset = .min
        self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// The instant, used as `st_mtime` and as the sort key. A time without a zone is read in
    /// `zone` (the daemon's local zone), so `ls -l` shows exactly the time written on the photo.
    public func instant(in zone: some UTCOffsets) -> Timestamp {
        let asUTC = local.secondsSinceEpochAsUTC
        let offset: Int
        if let known = utcOffsetSeconds {
            offset = known
        } else {
            // Ask the zone at the guessed instant, then once more to settle DST edges.
            let guess = zone.secondsEastOfUTC(at: asUTC)
            offset = zone.secondsEastOfUTC(at: asUTC - Int64(guess))
        }
        return Timestamp(seconds: asUTC - Int64(offset), nanoseconds: local.nanosecond)
    }

    /// ISO 8601, with the offset when known: `2024-05-17T14:03:22.12+02:00`.
    public var isoString: String {
        guard let offset = utcOffsetSeconds else { return local.isoString }
        if offset == 0 { return local.isoString + "Z" }
        let sign = offset < 0 ? "-" : "+"
        let a = abs(offset)
        return local.isoString + "\(sign)\(pad(a / 3600, 2)):\(pad(a % 3600 / 60, 2))"
    }
}

/// A time zone's offset from UTC, instant by instant (summer time included).
public protocol UTCOffsets: Sendable {
    /// Seconds east of UTC at `instant` (seconds since the epoch).
    func secondsEastOfUTC(at instant: Int64) -> Int
}

/// The daemon's own zone (`TZ`, else /etc/localtime), as libc's `localtime_r` reads it, its
/// offsets remembered by day (`DayOffsets`).
public struct SystemZone: UTCOffsets {
    public init() {}

    public func secondsEastOfUTC(at instant: Int64) -> Int { Self.days.offset(at: instant) }

    /// libc's answer, asked anew.
    static func libcOffset(at instant: Int64) -> Int {
        var t = time_t(instant)
        var fields = tm()
        guard localtime_r(&t, &fields) != nil else { return 0 }
        return fields.tm_gmtoff
    }

    private static let days = DayOffsets(libcOffset)
}

/// A zone's offsets from UTC by (UTC) day, remembered: a day whose first and last seconds have
/// the same offset has it all day (a zone changes its offset months apart, never twice in a
/// day), so a library's photos ask the zone two or three times per day they were taken on, not
/// twice per photo (`localtime_r` takes a lock and searches the zone's transitions, a good part
/// of deciding a photo). A day with a change is asked every time.
/// Each slot is one atomic word (the day and its offset together), so the scan's reader threads
/// read it with no lock to wait on each other for.
/// (`@unchecked Sendable`: `slots` is read and written only through its atomics; `zone` is a
/// function of its argument alone.)
final class DayOffsets: @unchecked Sendable {
    private let zone: (Int64) -> Int
    /// A direct-mapped table: the day in `slots[day % size]`, its day's low 32 bits and its
    /// offset in the high 32 (`empty`: none).
    private let slots: UnsafeMutablePointer<Atomic<UInt64>>
    private static let size = 4096
    private static let secondsPerDay: Int64 = 86_400
    /// No day: `Int32.min`, which is never stored.
    private static let empty = UInt64(UInt32(bitPattern: Int32.min))

    init(_ zone: @escaping (Int64) -> Int) {
        self.zone = zone
        slots = .allocate(capacity: Self.size)
        for i in 0..<Self.size { (slots + i).initialize(to: Atomic(Self.empty)) }
    }

    deinit {
        slots.deinitialize(count: Self.size)
        slots.deallocate()
    }

    func offset(at instant: Int64) -> Int {
        let (day, slot) = Self.place(instant)
        let day32 = Int32(exactly: day).flatMap { $0 == .min ? nil : $0 }
        let word = slots[slot].load(ordering: .relaxed)
        if let day32, Int32(truncatingIfNeeded: word) == day32 { return Int(Int32(truncatingIfNeeded: word >> 32)) }
        let offset = zone(instant)
        let start = day &* Self.secondsPerDay
        if let day32, let stored = Int32(exactly: offset), zone(start) == offset, zone(start &+ Self.secondsPerDay - 1) == offset {
            slots[slot].store(UInt64(UInt32(bitPattern: stored)) << 32 | UInt64(UInt32(bitPattern: day32)), ordering: .relaxed)
        }
        return offset
    }

    /// The UTC day of `instant` (rounded down, before 1970 too) and its slot in the table.
    private static func place(_ instant: Int64) -> (day: Int64, slot: Int) {
        let day = instant >= 0 ? instant / secondsPerDay : (instant &+ 1) / secondsPerDay &- 1
        return (day, Int(truncatingIfNeeded: day) & (size - 1))
    }
}
