/// Parsers for the date strings photos carry. Each returns nil for anything it cannot read
/// completely; range checks (sentinels, future dates) belong to `CaptureDateRules`.
public enum DateParsing {
    /// EXIF `YYYY:MM:DD HH:MM:SS` (also `-` in the date, `T` between, an optional trailing zone).
    /// Partial strings and blanks (`    :  :     :  :  `) give nil.
    public static func exifDateTime(_ raw: String) -> (LocalDateTime, Int?)? {
        var s = Scanner(trimmed(raw))
        guard let y = s.digits(4), s.skip(anyOf: ":-"), let mo = s.digits(2), s.skip(anyOf: ":-"),
              let d = s.digits(2), s.skip(anyOf: " T"), let h = s.digits(2), s.skip(anyOf: ":"),
              let mi = s.digits(2), s.skip(anyOf: ":"), let sec = s.digits(2),
              let (nanos, offset) = fractionAndZone(&s) else { return nil }
        return (LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: sec, nanosecond: nanos), offset)
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
        _ = s.skip(anyOf: ":")
        guard let m = s.digits(2), s.atEnd, h <= 14, m < 60 else { return nil }
        let value = h * 3600 + m * 60
        return sign == "-" ? -value : value
    }

    /// XMP dates (ISO 8601): `2024-05-17T14:03:22.12+02:00`, `2024-05-17T14:03`, `2024-05-17`.
    /// A date without a time is noon, so no zone shift can move it to another day.
    public static func xmpDate(_ raw: String) -> (LocalDateTime, Int?)? {
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

    static func trimmed(_ raw: String) -> Substring {
        var sub = Substring(raw)
        while let c = sub.first, c == " " || c == "\0" || c == "\t" || c == "\n" { sub.removeFirst() }
        while let c = sub.last, c == " " || c == "\0" || c == "\t" || c == "\n" { sub.removeLast() }
        return sub
    }
}

/// A tiny cursor over ASCII text; every reader returns nil instead of consuming on mismatch.
struct Scanner {
    private var chars: Substring.UnicodeScalarView

    init(_ s: Substring) { chars = s.unicodeScalars }

    var atEnd: Bool { chars.isEmpty }
    var peek: Character? { chars.first.map(Character.init) }
    var rest: Substring { Substring(chars) }

    mutating func next() -> Character? {
        guard let c = chars.first else { return nil }
        chars.removeFirst()
        return Character(c)
    }

    /// Exactly `count` ASCII digits.
    mutating func digits(_ count: Int) -> Int? {
        var value = 0
        var probe = chars
        for _ in 0..<count {
            guard let c = probe.first, let d = c.asciiDigit else { return nil }
            value = value * 10 + d
            probe.removeFirst()
        }
        chars = probe
        return value
    }

    /// One to `max` ASCII digits.
    mutating func digits(upTo max: Int) -> Int? {
        var value = 0, n = 0
        while n < max, let c = chars.first, let d = c.asciiDigit {
            value = value * 10 + d
            chars.removeFirst()
            n += 1
        }
        return n == 0 ? nil : value
    }

    /// A run of digits read as a decimal fraction, in nanoseconds.
    mutating func fraction() -> Int? {
        var nanos = 0, n = 0
        while let c = chars.first, let d = c.asciiDigit {
            if n < 9 { nanos = nanos * 10 + d }
            n += 1
            chars.removeFirst()
        }
        guard n > 0 else { return nil }
        for _ in n..<max(n, 9) { nanos *= 10 }
        return nanos
    }

    mutating func skip(anyOf set: String) -> Bool {
        guard let c = chars.first, set.unicodeScalars.contains(c) else { return false }
        chars.removeFirst()
        return true
    }

    /// A literal, compared without regard to ASCII case.
    mutating func literal(_ text: String) -> Bool {
        var probe = chars
        for expected in text.unicodeScalars {
            guard let c = probe.first, c.asciiLowercased == expected.asciiLowercased else { return false }
            probe.removeFirst()
        }
        chars = probe
        return true
    }
}

extension Unicode.Scalar {
    var asciiDigit: Int? { (48...57).contains(value) ? Int(value - 48) : nil }
    var asciiLowercased: UInt32 { (65...90).contains(value) ? value + 32 : value }
}
