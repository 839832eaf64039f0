/// Parsers for the date strings photos carry. Each returns nil for anything it cannot read
/// completely; range checks (sentinels, future dates) belong to `CaptureDateRules`.
public enum DateParsing {
    /// EXIF `YYYY:MM:DD HH:MM:SS`, and what cameras write instead (exiftool's notes name them):
    /// `-`, `/` or `.` in the date (Rollei, ImpressCam, editors), `T` or a colon between date and
    /// time (Polaroid, Sanyo, Sharp, Vivitar), a blank in place of a field's leading zero
    /// (`14:03: 4`, HP scanners), fractions of a second and a trailing zone. Partial strings and
    /// blanks (`    :  :     :  :  `) give nil; so does a field of one digit with no blank
    /// before it (`14:03:0` is a string cut short as often as an unpadded one).
    public static func exifDateTime(_ raw: String) -> (LocalDateTime, Int?)? {
        if let time = canonicalExifDateTime(raw) { return (time, nil) }
        return scannedExifDateTime(raw)
    }

    /// `exifDateTime` for every form it reads.
    static func scannedExifDateTime(_ raw: String) -> (LocalDateTime, Int?)? {
        var s = Scanner(trimmed(raw))
        guard let y = s.digits(4), s.skip(anyOf: ":-/."), let mo = s.paddedField(), s.skip(anyOf: ":-/."),
              let d = s.paddedField(), s.skip(anyOf: " T:"), let h = s.paddedField(), s.skip(anyOf: ":"),
              let mi = s.paddedField(), s.skip(anyOf: ":"), let sec = s.paddedField(),
              let (nanos, offset) = fractionAndZone(&s) else { return nil }
        return (LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: sec, nanosecond: nanos), offset)
    }

    /// `YYYY:MM:DD HH:MM:SS` and nothing else, what cameras and phones write, read straight from
    /// its bytes: what the scanner below makes of it (the same fields, no fraction, no zone) at a
    /// tenth of the cost (it ran for every photo of a scan: ~0.5 µs each). Nil for anything else,
    /// which the scanner reads.
    static func canonicalExifDateTime(_ raw: String) -> LocalDateTime? {
        raw.utf8.withContiguousStorageIfAvailable { b -> LocalDateTime? in
            guard b.count == 19, b[4] == 0x3A, b[7] == 0x3A, b[10] == 0x20, b[13] == 0x3A, b[16] == 0x3A else { return nil }
            func number(_ at: Int, _ count: Int) -> Int? {
                var value = 0
                for i in at..<at + count {
                    guard let d = b[i].asciiDigit else { return nil }
                    value = value * 10 + d
                }
                return value
            }
            guard let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2), let h = number(11, 2),
                  let mi = number(14, 2), let sec = number(17, 2) else { return nil }
            return LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: sec)
        } ?? nil
    }

    /// What may follow the seconds: `.fraction` and a zone, each optional. Nil if anything else does.
    static func fractionAndZone(_ s: inout Scanner) -> (nanos: Int, offset: Int?)? {
        var nanos = 0
        if s.peek == "." || s.peek == "," {
            _ = s.next()
            guard let n = s.fraction() else { return nil }
            nanos = n
        }
        guard !s.atEnd else { return (nanos, nil) }
        guard let offset = utcOffset(String(s.rest)) else { return nil }
        return (nanos, offset)
    }

    /// EXIF `SubSecTime*`: digits of a decimal fraction of a second (`"12"` is 0.12 s).
    public static func subSeconds(_ raw: String) -> Int? {
        var s = Scanner(trimmed(raw))
        guard let n = s.fraction(), s.atEnd else { return nil }
        return n
    }

    /// EXIF `OffsetTime*` or an ISO zone: `+02:00`, `-0530`, `Z`. Seconds east of UTC.
    public static func utcOffset(_ raw: String) -> Int? {
        var s = Scanner(trimmed(raw))
        if s.peek == "Z" || s.peek == "z" { _ = s.next(); return s.atEnd ? 0 : nil }
        guard let sign = s.next(), sign == "+" || sign == "-", let h = s.digits(2) else { return nil }
        // ISO 8601 allows the hours alone (`+02`); some phones and editors write that.
        let m: Int
        if s.atEnd {
            m = 0
        } else {
            _ = s.skip(anyOf: ":")
            guard let minutes = s.digits(2), s.atEnd else { return nil }
            m = minutes
        }
        guard h <= 14, m < 60 else { return nil }
        let value = h * 3600 + m * 60
        return sign == "-" ? -value : value
    }

    /// XMP dates (ISO 8601): `2024-05-17T14:03:22.12+02:00`, `2024-05-17T14:03`, `2024-05-17`.
    /// A date without a time is noon, so no zone shift can move it to another day. Some writers
    /// put EXIF's form in XMP (`2024:05:17 14:03:22`): read as EXIF's, as exiftool does.
    public static func xmpDate(_ raw: String) -> (LocalDateTime, Int?)? {
        isoDate(raw) ?? exifDateTime(raw)
    }

    static func isoDate(_ raw: String) -> (LocalDateTime, Int?)? {
        var s = Scanner(trimmed(raw))
        guard let y = s.digits(4), s.skip(anyOf: "-"), let mo = s.digits(2), s.skip(anyOf: "-"),
              let d = s.digits(2) else { return nil }
        if s.atEnd { return (LocalDateTime(year: y, month: mo, day: d, hour: 12), nil) }
        guard s.skip(anyOf: "T "), let h = s.digits(2), s.skip(anyOf: ":"), let mi = s.digits(2) else { return nil }
        var sec = 0
        if s.peek == ":" {
            _ = s.next()
            guard let v = s.digits(2) else { return nil }
            sec = v
        }
        guard let (nanos, offset) = fractionAndZone(&s) else { return nil }
        return (LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: sec, nanosecond: nanos), offset)
    }

    /// `raw` without leading and trailing blanks and NULs (EXIF pads fixed-size fields with both).
    /// Works on UTF-8 bytes: every character trimmed is ASCII, and comparing `Character`s would
    /// cost a grapheme-breaking step each (this runs several times per photo in a scan).
    static func trimmed(_ raw: String) -> Substring {
        let bytes = raw.utf8
        func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0 || b == 0x09 || b == 0x0A }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }) else { return raw[raw.endIndex...] }
        let last = bytes.lastIndex(where: { !isBlank($0) })!
        return raw[first...last]
    }
}

/// A tiny cursor over ASCII text; every reader returns nil instead of consuming on mismatch.
/// It steps over UTF-8 bytes (no Unicode decoding per step): everything it matches is ASCII, and a
/// byte of a multi-byte character never equals one.
struct Scanner {
    private var bytes: Substring.UTF8View

    init(_ s: Substring) { bytes = s.utf8 }

    var atEnd: Bool { bytes.isEmpty }
    /// The next character when it is ASCII; any other byte gives a non-ASCII stand-in.
    var peek: Character? { bytes.first.map { Character(Unicode.Scalar($0)) } }
    var rest: Substring { Substring(bytes) }

    mutating func next() -> Character? {
        guard let c = peek else { return nil }
        bytes.removeFirst()
        return c
    }

    /// Exactly `count` ASCII digits.
    mutating func digits(_ count: Int) -> Int? {
        var value = 0
        var probe = bytes
        for _ in 0..<count {
            guard let d = probe.first?.asciiDigit else { return nil }
            value = value * 10 + d
            probe.removeFirst()
        }
        bytes = probe
        return value
    }

    /// A two-digit field: two ASCII digits, or a blank and one digit (writers that pad with a
    /// blank, not a zero).
    mutating func paddedField() -> Int? {
        if let value = digits(2) { return value }
        var probe = bytes
        guard probe.first == 0x20 else { return nil }
        probe.removeFirst()
        guard let d = probe.first?.asciiDigit else { return nil }
        probe.removeFirst()
        bytes = probe
        return d
    }

    /// One to `max` ASCII digits.
    mutating func digits(upTo max: Int) -> Int? {
        var value = 0, n = 0
        while n < max, let d = bytes.first?.asciiDigit {
            value = value * 10 + d
            bytes.removeFirst()
            n += 1
        }
        return n == 0 ? nil : value
    }

    /// A run of digits read as a decimal fraction, in nanoseconds.
    mutating func fraction() -> Int? {
        var nanos = 0, n = 0
        while let d = bytes.first?.asciiDigit {
            if n < 9 { nanos = nanos * 10 + d }
            n += 1
            bytes.removeFirst()
        }
        guard n > 0 else { return nil }
        for _ in n..<max(n, 9) { nanos *= 10 }
        return nanos
    }

    /// One of the ASCII characters of `set`.
    mutating func skip(anyOf set: StaticString) -> Bool {
        guard let c = bytes.first else { return false }
        let found = set.withUTF8Buffer { $0.contains(c) }
        if found { bytes.removeFirst() }
        return found
    }

    /// A literal, compared without regard to ASCII case.
    mutating func literal(_ text: some StringProtocol) -> Bool {
        var probe = bytes
        for expected in text.utf8 {
            guard let c = probe.first, c.asciiLowercased == expected.asciiLowercased else { return false }
            probe.removeFirst()
        }
        bytes = probe
        return true
    }
}

extension UInt8 {
    var asciiDigit: Int? { (48...57).contains(self) ? Int(self &- 48) : nil }
    var asciiLowercased: UInt8 { (65...90).contains(self) ? self &+ 32 : self }
}
