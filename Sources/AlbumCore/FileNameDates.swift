/// Dates written in file names by phones, cameras and screenshot tools.
///
/// Each pattern is matched at the start of the name. In a pattern `{Y}` is four digits, `{M}`
/// `{D}` `{h}` `{m}` `{s}` two, `{H}` one or two, `{f}` three digits of milliseconds, `{p}` an
/// optional `AM`/`PM` after a space (macOS 13 and later put a narrow no-break space there); any
/// other character must be there, ASCII case ignored.
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
        // Screen recordings: macOS, Samsung, Pixel, Xiaomi, Huawei, iOS 17's Files.
        "Screen Recording {Y}-{M}-{D} at {H}.{m}.{s}{p}",
        "Screen_Recording_{Y}{M}{D}-{h}{m}{s}",
        "screen-{Y}{M}{D}-{h}{m}{s}",
        "Screenrecorder-{Y}-{M}-{D}-{h}-{m}-{s}",
        "SVID_{Y}{M}{D}_{h}{m}{s}",
        "ScreenRecording_{M}-{D}-{Y} {h}-{m}-{s}",
        "Bildschirmfoto {Y}-{M}-{D} um {h}.{m}.{s}",
        "Bildschirmfoto vom {Y}-{M}-{D} um {h}.{m}.{s}",
        "Captura de pantalla {Y}-{M}-{D} a las {h}.{m}.{s}",
        // WhatsApp Desktop and Web, saving a photo of a chat.
        "WhatsApp Image {Y}-{M}-{D} at {H}.{m}.{s}{p}",
        // Messengers' saved photos: Signal (newer versions with separators and milliseconds),
        // Telegram Desktop.
        "signal-{Y}-{M}-{D}-{h}-{m}-{s}",
        "signal-{Y}-{M}-{D}-{h}{m}{s}",
        "photo_{Y}-{M}-{D}_{h}-{m}-{s}",
        "{Y}-{M}-{D} {h}.{m}.{s}",
        "{Y}{M}{D}_{h}{m}{s}",
        // OneDrive's camera upload (`20240105_123456789_iOS.jpg`), the Windows Camera app, DJI drones.
        "{Y}{M}{D}_{h}{m}{s}{f}",
        "WIN_{Y}{M}{D}_{h}_{m}_{s}",
        "DJI_{Y}{M}{D}{h}{m}{s}",
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
                pm = s.meridiem()
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

/// Names that carry an instant, not a wall-clock time: milliseconds since 1970 UTC, thirteen
/// digits, as Facebook (`FB_IMG_1536497261234.jpg`) and WeChat (`mmexport1536497261234.jpg`)
/// name the photos they save on a phone. Both apps strip EXIF, so the name is all that dates such
/// a photo; its mtime is when it was saved, or copied.
public enum FileNameInstant {
    /// The name prefixes, ASCII case ignored.
    public static let prefixes = ["FB_IMG_", "mmexport"]
    static let digits = 13

    /// The instant the name spells, or nil if it has none.
    public static func match(_ name: String) -> Timestamp? {
        var s = Scanner(Substring(name))
        // A thirteen-digit number (no leading zero): 2001-09-09 or later, so never the epoch.
        guard prefixes.contains(where: { s.literal($0) }), let ms = s.digits(digits), ms >= 1_000_000_000_000 else { return nil }
        // Not followed by another digit: a longer number is no such time.
        if let next = s.peek, next.isASCII, next.isNumber { return nil }
        return Timestamp(seconds: Int64(ms / 1000), nanoseconds: ms % 1000 * 1_000_000)
    }
}

/// The date and time in a screenshot's name, in whatever language the system that took it spoke:
/// a screenshot word (ScreenshotRules' name prefixes, compared the same way), then within a few
/// characters the date `{Y}-{M}-{D}`, then a few characters with no digit (` at `, ` à `, ` um `,
/// ` kl. `, ` в `, ` 오후 `, `下午`), then the time `{H}.{m}.{s}` (or with `:` or `-`, or `{h}{m}{s}`
/// run together), then an optional AM/PM.
///
/// Why not one pattern per language: macOS alone names screenshots in ~40 languages
/// (`Capture d’écran 2024-05-17 à 14.03.04`, `Skärmavbild 2024-05-17 kl. 14.03.04`,
/// `截屏2024-05-17 下午2.03.04`), Windows and phones in as many again, and the words between
/// the date and the time are all that differs.
public struct ScreenshotNameDate: Sendable {
    public var prefixes: [String]

    public init(prefixes: [String] = ScreenshotRules.defaultNamePrefixes) {
        self.prefixes = prefixes
    }

    /// Characters allowed between the screenshot word and the date (` from `, ` vom `).
    static let maxBeforeDate = 8
    /// Characters allowed between the date and the time.
    static let maxBeforeTime = 12
    /// Words for the afternoon and the morning written before the time (Korean, Chinese, Japanese).
    static let afternoon = ["오후", "下午", "午後"]
    static let morning = ["오전", "上午", "午前"]

    /// The wall-clock time the name spells, or nil if it is no screenshot name with a real date
    /// and time.
    public func match(_ name: String) -> LocalDateTime? {
        guard let prefix = ScreenshotRules.prefix(of: name, among: prefixes) else { return nil }
        // Characters, as the prefix was compared (an accent composed or not is one Character).
        var rest = Substring(name).dropFirst(prefix.count)
        guard let dateStart = rest.prefix(Self.maxBeforeDate + 1).firstIndex(where: \.isASCIIDigit) else { return nil }
        rest = rest[dateStart...]
        var s = Scanner(rest)
        guard let y = s.digits(4), s.literal("-"), let mo = s.digits(2), s.literal("-"), let d = s.digits(2) else { return nil }
        let afterDate = s.rest
        guard let timeStart = afterDate.prefix(Self.maxBeforeTime + 1).firstIndex(where: \.isASCIIDigit),
              timeStart > afterDate.startIndex else { return nil }
        let between = afterDate[..<timeStart]
        var pm: Bool? = Self.afternoon.contains { between.contains($0) } ? true : Self.morning.contains { between.contains($0) } ? false : nil
        s = Scanner(afterDate[timeStart...])
        guard var h = s.digits(upTo: 2) else { return nil }
        let separator = [".", ":", "-"].first { s.literal($0) }
        guard let mi = s.digits(2), separator.map({ s.literal($0) }) ?? true, let sec = s.digits(2) else { return nil }
        if let next = s.peek, next.isASCII, next.isNumber { return nil }
        if let written = s.meridiem() { pm = written }
        if let pm {
            guard (1...12).contains(h) else { return nil }
            h = h % 12 + (pm ? 12 : 0)
        }
        let t = LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi, second: sec)
        return t.isValid ? t : nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Scanner {
    /// An AM or PM after a space (ASCII, no-break or the narrow no-break space of macOS 13 and
    /// later): true for PM, false for AM, nil (nothing consumed) when there is none.
    mutating func meridiem() -> Bool? {
        var probe = self
        guard probe.literal(" ") || probe.literal("\u{00A0}") || probe.literal("\u{202F}") else { return nil }
        if probe.literal("AM") || probe.literal("a.m.") { self = probe; return false }
        if probe.literal("PM") || probe.literal("p.m.") { self = probe; return true }
        return nil
    }
}

extension FileNameDatePattern: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(value) }
}
