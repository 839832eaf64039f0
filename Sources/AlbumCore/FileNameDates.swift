/// Dates written in file names by phones, cameras and screenshot tools.
///
/// Each pattern is matched at the start of the name. In a pattern `{Y}` is four digits, `{M}`
/// `{D}` `{h}` `{m}` `{s}` two, `{H}` one or two, `{f}` three digits of milliseconds, `{p}` an
/// optional ` AM`/` PM`; any other character must be there, ASCII case ignored.
public struct FileNameDatePattern: Sendable, Hashable {
    public let pattern: String
    public init(_ pattern: String) { self.pattern = pattern }

    /// The default list, from ../PHOTO-RULES.md and the tools named there.
    public static let defaults: [FileNameDatePattern] = [
        "PXL_{Y}{M}{D}_{h}{m}{s}{f}",
        "IMG_{Y}{M}{D}_{h}{m}{s}",
        "VID_{Y}{M}{D}_{h}{m}{s}",
        // Android's other camera modes, and OPPO/OnePlus/realme cameras (no separators).
        "MVIMG_{Y}{M}{D}_{h}{m}{s}",
        "PANO_{Y}{M}{D}_{h}{m}{s}",
        "IMG{Y}{M}{D}{h}{m}{s}",
        "IMG-{Y}{M}{D}-WA",
        "VID-{Y}{M}{D}-WA",
        "Screenshot_{Y}-{M}-{D}-{h}-{m}-{s}",
        "Screenshot_{Y}{M}{D}-{h}{m}{s}",
        "Screenshot_{Y}{M}{D}_{h}{m}{s}",
        "Screenshot {Y}-{M}-{D} at {H}.{m}.{s}{p}",
        "Screen Shot {Y}-{M}-{D} at {H}.{m}.{s}{p}",
        "Screenshot from {Y}-{M}-{D} {h}-{m}-{s}",
        "Screenshot from {Y}-{M}-{D} at {H}.{m}.{s}",
        "Screenshot {Y}-{M}-{D} {h}{m}{s}",
        "Screenshot {Y}-{M}-{D} {h}.{m}.{s}",    // ChromeOS
        "Screenshot_{Y}-{M}-{D}_{h}-{m}-{s}",    // Xfce
        "Bildschirmfoto {Y}-{M}-{D} um {h}.{m}.{s}",
        "Bildschirmfoto vom {Y}-{M}-{D} um {h}.{m}.{s}",
        "Captura de pantalla {Y}-{M}-{D} a las {h}.{m}.{s}",
        // Messengers' saved photos: Signal (newer versions with separators and milliseconds),
        // Telegram Desktop.
        "signal-{Y}-{M}-{D}-{h}-{m}-{s}",
        "signal-{Y}-{M}-{D}-{h}{m}{s}",
        "photo_{Y}-{M}-{D}_{h}-{m}-{s}",
        "{Y}-{M}-{D} {h}.{m}.{s}",
        "{Y}{M}{D}_{h}{m}{s}",
    ]

    /// The wall-clock time the name spells, or nil if the name does not fit or is no real date.
    public func match(_ name: String) -> LocalDateTime? {
        var s = Scanner(Substring(name))
        var y: Int?, mo: Int?, d: Int?, h = 0, mi = 0, sec = 0, ms = 0
        var pm: Bool?
        var p = Substring(pattern).unicodeScalars
        while let c = p.first {
            p.removeFirst()
            guard c == "{" else {
                guard s.literal(String(c)) else { return nil }
                continue
            }
            let field = p.prefix { $0 != "}" }
            p.removeFirst(field.count + 1)
            switch String(String.UnicodeScalarView(field)) {
            case "Y": guard let v = s.digits(4) else { return nil }; y = v
            case "M": guard let v = s.digits(2) else { return nil }; mo = v
            case "D": guard let v = s.digits(2) else { return nil }; d = v
            case "h": guard let v = s.digits(2) else { return nil }; h = v
            case "H": guard let v = s.digits(upTo: 2) else { return nil }; h = v
            case "m": guard let v = s.digits(2) else { return nil }; mi = v
            case "s": guard let v = s.digits(2) else { return nil }; sec = v
            case "f": guard let v = s.digits(3) else { return nil }; ms = v
            case "p":
                if s.literal(" AM") { pm = false } else if s.literal(" PM") { pm = true }
            default: return nil
            }
        }
        // A date must not run on into more digits ("IMG_201907041" is not a date).
        if pattern.hasSuffix("}"), let next = s.peek, next.isASCII, next.isNumber { return nil }
        if let pm {
            guard (1...12).contains(h) else { return nil }
            h = h % 12 + (pm ? 12 : 0)
        }
        guard let y, let mo, let d else { return nil }
        let t = LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: sec, nanosecond: ms * 1_000_000)
        return t.isValid ? t : nil
    }
}

extension FileNameDatePattern: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(value) }
}
