
/// Where a photo's capture time came from; the raw value is shown in `user.albumfs.date_source`.
public enum DateSource: String, Sendable, CaseIterable {
    case exifDateTimeOriginal = "exif:DateTimeOriginal"
    case xmpDateCreated = "xmp:photoshop:DateCreated"
    case xmpDateTimeOriginal = "xmp:exif:DateTimeOriginal"
    case exifDateTimeDigitized = "exif:DateTimeDigitized"
    case fileName = "filename"
    case fileModificationTime = "mtime"
}

/// The capture time chosen for a photo, and why.
public struct CaptureDecision: Sendable, Equatable {
    public var time: CaptureTime
    public var source: DateSource
    /// Better sources that were present but refused, e.g. `exif:DateTimeOriginal "0000:00:00 00:00:00" (sentinel)`.
    public var rejected: [String]

    public init(time: CaptureTime, source: DateSource, rejected: [String] = []) {
        self.time = time
        self.source = source
        self.rejected = rejected
    }
}

/// Picks a photo's capture time, strongest source first (docs/rules.md, ../PHOTO-RULES.md).
public struct CaptureDateRules: Sendable {
    /// The instant dates are judged against ("far in the future" is relative to now).
    public var now: Timestamp
    public var fileNamePatterns: [FileNameDatePattern]
    /// Screenshot names in any language, after the patterns.
    public var screenshotNames: ScreenshotNameDate

    /// Dates a little ahead of now are allowed: a camera in a zone east of ours.
    static let futureTolerance: Int64 = 2 * 86_400
    /// Constants some Android phones write instead of a real time: never better than another source.
    static let knownSentinels: [LocalDateTime] = [
        LocalDateTime(year: 2002, month: 12, day: 8, hour: 12),
    ]

    public init(now: Timestamp, fileNamePatterns: [FileNameDatePattern] = FileNameDatePattern.defaults,
                screenshotNames: ScreenshotNameDate = ScreenshotNameDate()) {
        self.now = now
        self.fileNamePatterns = fileNamePatterns
        self.screenshotNames = screenshotNames
    }

    public func decide(_ e: PhotoEvidence, fileName: String, fileMtime: Timestamp) -> CaptureDecision {
        var rejected: [String] = []

        func exif(_ raw: String?, sub: String?, offset: String?, _ source: DateSource) -> CaptureTime? {
            guard let raw, !DateParsing.trimmed(raw).isEmpty else { return nil }
            guard let (local, inlineOffset) = DateParsing.exifDateTime(raw) else {
                rejected.append("\(source.rawValue) \"\(raw.trimmedValue)\" (unreadable)")
                return nil
            }
            var time = CaptureTime(local: local, utcOffsetSeconds: inlineOffset)
            if let sub, let nanos = DateParsing.subSeconds(sub), local.nanosecond == 0 { time.local.nanosecond = nanos }
            if time.utcOffsetSeconds == nil, let offset { time.utcOffsetSeconds = DateParsing.utcOffset(offset) }
            if time.utcOffsetSeconds == nil { time.utcOffsetSeconds = Self.offsetFromGPS(local: time.local, gps: e.gpsDateTimeUTC) }
            if let why = refusal(time) {
                rejected.append("\(source.rawValue) \"\(raw.trimmedValue)\" (\(why))")
                return nil
            }
            return time
        }

        func xmp(_ raw: String?, _ source: DateSource) -> CaptureTime? {
            guard let raw, !DateParsing.trimmed(raw).isEmpty else { return nil }
            guard let (local, offset) = DateParsing.xmpDate(raw) else {
                rejected.append("\(source.rawValue) \"\(raw.trimmedValue)\" (unreadable)")
                return nil
            }
            let time = CaptureTime(local: local, utcOffsetSeconds: offset)
            if let why = refusal(time) {
                rejected.append("\(source.rawValue) \"\(raw.trimmedValue)\" (\(why))")
                return nil
            }
            return time
        }

        if let t = exif(e.dateTimeOriginal, sub: e.subSecTimeOriginal, offset: e.offsetTimeOriginal, .exifDateTimeOriginal) {
            return CaptureDecision(time: t, source: .exifDateTimeOriginal, rejected: rejected)
        }
        if let t = xmp(e.xmpDateCreated, .xmpDateCreated) {
            return CaptureDecision(time: t, source: .xmpDateCreated, rejected: rejected)
        }
        if let t = xmp(e.xmpDateTimeOriginal, .xmpDateTimeOriginal) {
            return CaptureDecision(time: t, source: .xmpDateTimeOriginal, rejected: rejected)
        }
        if let t = exif(e.dateTimeDigitized, sub: e.subSecTimeDigitized, offset: e.offsetTimeDigitized, .exifDateTimeDigitized) {
            return CaptureDecision(time: t, source: .exifDateTimeDigitized, rejected: rejected)
        }
        let named = (fileNamePatterns.lazy.compactMap({ $0.match(fileName) }).first ?? screenshotNames.match(fileName))
            .map { CaptureTime(local: $0) } ?? FileNameInstant.match(fileName).map(Self.inLocalZone)
        if let time = named {
            if let why = refusal(time) {
                rejected.append("filename \"\(fileName)\" (\(why))")
            } else {
                return CaptureDecision(time: time, source: .fileName, rejected: rejected)
            }
        }
        // The last resort is always accepted: a photo must land somewhere.
        return CaptureDecision(time: Self.inLocalZone(fileMtime), source: .fileModificationTime, rejected: rejected)
    }

    /// An instant as the daemon's zone (`TZ`) shows it, that zone's offset kept: the instant stays
    /// exact, the day folder is the local day.
    static func inLocalZone(_ instant: Timestamp) -> CaptureTime {
        let zone = SystemZone().secondsEastOfUTC(at: instant.seconds)
        return CaptureTime(local: instant.local(offsetSeconds: zone), utcOffsetSeconds: zone)
    }

    /// The UTC offset implied by a GPS fix taken at the same moment: local − UTC, when it is a
    /// whole quarter hour (±2 min for clock drift) within ±14 h. A stale fix (minutes or hours
    /// old) gives an odd difference and is ignored.
    static func offsetFromGPS(local: LocalDateTime, gps: String?) -> Int? {
        guard let gps, let (utc, _) = DateParsing.exifDateTime(gps), utc.isValid, utc.year > 1970 else { return nil }
        let diff = local.secondsSinceEpochAsUTC - utc.secondsSinceEpochAsUTC
        let quarter = Int64((Double(diff) / 900).rounded()) * 900
        guard abs(diff - quarter) <= 120, abs(quarter) <= 14 * 3600 else { return nil }
        return Int(quarter)
    }

    /// Why a parsed date cannot be a capture time, or nil if it can.
    func refusal(_ time: CaptureTime) -> String? {
        let l = time.local
        if l.year == 0 && l.month == 0 && l.day == 0 { return "sentinel" }
        guard l.isValid else { return "out of range" }
        if l.year < 1900 { return "before 1900" }
        if l.year == 1970 && l.month == 1 && l.day == 1 { return "1970 epoch" }
        if Self.knownSentinels.contains(LocalDateTime(year: l.year, month: l.month, day: l.day, hour: l.hour,
                                                      minute: l.minute, second: l.second)) {
            return "known sentinel"
        }
        if l.secondsSinceEpochAsUTC - Int64(time.utcOffsetSeconds ?? 0) > now.seconds + Self.futureTolerance {
            return "in the future"
        }
        return nil
    }
}
