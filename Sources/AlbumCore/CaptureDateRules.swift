
/// Where a photo's capture time came from; the raw value is shown in `user.albumfs.date_source`.
public enum DateSource: String, Sendable, CaseIterable {
    case exifDateTimeOriginal = "exif:DateTimeOriginal"
    case xmpDateCreated = "xmp:photoshop:DateCreated"
    case xmpDateTimeOriginal = "xmp:exif:DateTimeOriginal"
    case quickTimeCreationDate = "quicktime:com.apple.quicktime.creationdate"
    case xmpCreateDate = "xmp:xmp:CreateDate"
    case movieHeader = "quicktime:mvhd"
    case exifDateTimeDigitized = "exif:DateTimeDigitized"
    case fileName = "filename"
    case fileModificationTime = "mtime"
    // (The two below come after `mtime` here only because a views snapshot stores a source by
    // its index; `decide` gives the order.)
    /// GPSDateStamp + GPSTimeStamp (exiftool's Composite `GPSDateTime`): a UTC instant.
    case gpsDateTime = "exif:GPSDateTime"
    /// IFD0 `DateTime` (0x0132, exiftool's `ModifyDate`): the weakest date a device writes.
    case exifDateTime = "exif:DateTime"
    /// A sidecar's XMP dates (`NAME.xmp`, `NAME.EXT.xmp`), named apart from the file's own XMP.
    case sidecarXMPDateCreated = "xmp-sidecar:photoshop:DateCreated"
    case sidecarXMPDateTimeOriginal = "xmp-sidecar:exif:DateTimeOriginal"
    case sidecarXMPCreateDate = "xmp-sidecar:xmp:CreateDate"
    /// Google Takeout's JSON `photoTakenTime.timestamp`: a UTC instant.
    case takeoutPhotoTakenTime = "takeout:photoTakenTime"
}

/// The capture time chosen for a photo, and why.
public struct CaptureDecision: Sendable, Equatable {
    public var time: CaptureTime
    /// Better sources that were present but refused, e.g. `exif:DateTimeOriginal "0000:00:00 00:00:00" (sentinel)`.
    public var rejected: [String]
    // (Last: one byte each, which a photo's next small fields share the padding of.)
    public var source: DateSource
    /// Whether the offset is the photo's place's zone's (`ZoneInfo`): the time was written
    /// without one and the GPS fix gave none (docs/rules.md, "Zones, day folders and order").
    public var offsetFromPlace: Bool

    public init(time: CaptureTime, source: DateSource, rejected: [String] = [], offsetFromPlace: Bool = false) {
        self.time = time
        self.source = source
        self.rejected = rejected
        self.offsetFromPlace = offsetFromPlace
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

    /// The capture time of a photo or video, strongest source first: EXIF DateTimeOriginal, the
    /// QuickTime creation date, XMP's dates, an XMP sidecar's dates, the movie header's time, EXIF
    /// DateTimeDigitized, Google Takeout's photoTakenTime, the file name, the GPS fix's time, IFD0
    /// DateTime, the mtime; a sidecar first of all for a `format` whose sidecar wins
    /// (`ImageFormat.sidecarDatesWin`: docs/rules.md says why).
    ///
    /// - Parameter placeZone: the zone of the photo's place (`PlaceRules`), which gives a time
    ///   written without an offset its offset when the GPS fix gives none.
    public func decide(_ e: PhotoEvidence, fileName: String, fileMtime: Timestamp, format: ImageFormat? = nil,
                       placeZone: ZoneInfo? = nil) -> CaptureDecision {
        decide(e, fileName: fileName, fileMtime: fileMtime, sidecarFirst: format?.sidecarDatesWin ?? false, placeZone: placeZone)
    }

    func decide(_ e: PhotoEvidence, fileName: String, fileMtime: Timestamp, sidecarFirst: Bool, placeZone: ZoneInfo? = nil) -> CaptureDecision {
        var judge = Judge(rules: self, gps: e.gpsDateTimeUTC, placeZone: placeZone)
        if sidecarFirst, let d = judge.sidecarXMP(e.sidecar) ?? judge.takeout(e.sidecar) { return d }
        if let t = judge.exif(e.dateTimeOriginal, sub: e.subSecTimeOriginal, offset: e.offsetTimeOriginal, .exifDateTimeOriginal) {
            return judge.decision(t, .exifDateTimeOriginal)
        }
        // (One by one, not a loop over an array of them: an array per photo of a scan.)
        if let t = judge.iso(e.quickTimeCreationDate, .quickTimeCreationDate) { return judge.decision(t, .quickTimeCreationDate) }
        if let t = judge.iso(e.xmpDateCreated, .xmpDateCreated) { return judge.decision(t, .xmpDateCreated) }
        if let t = judge.iso(e.xmpDateTimeOriginal, .xmpDateTimeOriginal) { return judge.decision(t, .xmpDateTimeOriginal) }
        if let t = judge.iso(e.xmpCreateDate, .xmpCreateDate) { return judge.decision(t, .xmpCreateDate) }
        if !sidecarFirst, let d = judge.sidecarXMP(e.sidecar) { return d }
        if let t = judge.movieHeader(e.movieCreationTime) { return judge.decision(t, .movieHeader) }
        if let t = judge.exif(e.dateTimeDigitized, sub: e.subSecTimeDigitized, offset: e.offsetTimeDigitized, .exifDateTimeDigitized) {
            return judge.decision(t, .exifDateTimeDigitized)
        }
        if !sidecarFirst, let d = judge.takeout(e.sidecar) { return d }
        judge.zoneGaveOffset = false
        let named = (fileNamePatterns.lazy.compactMap({ $0.match(fileName) }).first ?? screenshotNames.match(fileName))
            .map { judge.zoned(CaptureTime(local: $0)) } ?? FileNameInstant.match(fileName).map(Self.inLocalZone)
        if let time = named {
            if let why = refusal(time) {
                judge.rejected.append("filename \"\(fileName)\" (\(why))")
            } else {
                return judge.decision(time, .fileName)
            }
        }
        if let t = judge.gps(e) { return judge.decision(t, .gpsDateTime) }
        if let t = judge.exif(e.dateTime, sub: nil, offset: e.offsetTime, .exifDateTime) { return judge.decision(t, .exifDateTime) }
        // The last resort is always accepted: a photo must land somewhere.
        judge.zoneGaveOffset = false
        return judge.decision(Self.inLocalZone(fileMtime), .fileModificationTime)
    }

    /// Reads one candidate date after another, keeping the ones refused and why.
    private struct Judge {
        let rules: CaptureDateRules
        /// The GPS fix's UTC time, which gives an EXIF date without offset its zone.
        let gps: String?
        /// The photo's place's zone, which gives a time written without an offset its offset.
        let placeZone: ZoneInfo?
        var rejected: [String] = []
        /// Whether the last time read took its offset from `placeZone`.
        var zoneGaveOffset = false

        func decision(_ time: CaptureTime, _ source: DateSource) -> CaptureDecision {
            CaptureDecision(time: time, source: source, rejected: rejected, offsetFromPlace: zoneGaveOffset && time.utcOffsetSeconds != nil)
        }

        /// `time` with the place's zone's offset at its wall-clock time, where it has none.
        mutating func zoned(_ time: CaptureTime) -> CaptureTime {
            zoneGaveOffset = false
            guard time.utcOffsetSeconds == nil, let placeZone else { return time }
            var zoned = time
            zoned.utcOffsetSeconds = placeZone.offset(atLocal: time.local)
            zoneGaveOffset = true
            return zoned
        }

        /// `time` unless the rules refuse it (then noted with `raw`).
        mutating func accepted(_ time: CaptureTime, raw: String, _ source: DateSource) -> CaptureTime? {
            guard let why = rules.refusal(time) else { return time }
            rejected.append("\(source.rawValue) \"\(raw.trimmedValue)\" (\(why))")
            return nil
        }

        mutating func unreadable(_ raw: String, _ source: DateSource) -> CaptureTime? {
            rejected.append("\(source.rawValue) \"\(raw.trimmedValue)\" (unreadable)")
            return nil
        }

        /// An EXIF date (`2023:07:14 18:22:05`) with its sub-seconds and offset fields.
        mutating func exif(_ raw: String?, sub: String?, offset: String?, _ source: DateSource) -> CaptureTime? {
            guard let raw, !DateParsing.trimmed(raw).isEmpty else { return nil }
            guard let (local, inlineOffset) = DateParsing.exifDateTime(raw) else { return unreadable(raw, source) }
            var time = CaptureTime(local: local, utcOffsetSeconds: inlineOffset)
            if let sub, let nanos = DateParsing.subSeconds(sub), local.nanosecond == 0 { time.local.nanosecond = nanos }
            if time.utcOffsetSeconds == nil, let offset { time.utcOffsetSeconds = DateParsing.utcOffset(offset) }
            if time.utcOffsetSeconds == nil { time.utcOffsetSeconds = CaptureDateRules.offsetFromGPS(local: time.local, gps: gps) }
            return accepted(zoned(time), raw: raw, source)
        }

        /// The GPS fix's UTC instant, on the local day its offset gives: a written offset
        /// (`OffsetTime`, then the original's and the digitized one's), else the one IFD0
        /// `DateTime` implies against it (`offsetFromGPS`), else UTC itself (`Z`).
        mutating func gps(_ e: PhotoEvidence) -> CaptureTime? {
            guard let raw = gps, !DateParsing.trimmed(raw).isEmpty else { return nil }
            guard let (utc, _) = DateParsing.exifDateTime(raw), utc.isValid else { return unreadable(raw, .gpsDateTime) }
            let written = [e.offsetTime, e.offsetTimeOriginal, e.offsetTimeDigitized].lazy.compactMap { $0.flatMap(DateParsing.utcOffset) }.first
            let implied = e.dateTime.flatMap(DateParsing.exifDateTime).flatMap { CaptureDateRules.offsetFromGPS(local: $0.0, gps: raw) }
            let instant = utc.secondsSinceEpochAsUTC
            let placed = placeZone.map { $0.secondsEastOfUTC(at: instant) }
            zoneGaveOffset = written == nil && implied == nil && placed != nil
            let offset = written ?? implied ?? placed ?? 0
            let local = Timestamp(seconds: instant).local(offsetSeconds: offset)
            return accepted(CaptureTime(local: local, utcOffsetSeconds: offset), raw: raw, .gpsDateTime)
        }

        /// An ISO 8601 date (XMP's, QuickTime's creation date), or an EXIF-style one.
        mutating func iso(_ raw: String?, _ source: DateSource) -> CaptureTime? {
            guard let raw, !DateParsing.trimmed(raw).isEmpty else { return nil }
            guard let (local, offset) = DateParsing.xmpDate(raw) else { return unreadable(raw, source) }
            return accepted(zoned(CaptureTime(local: local, utcOffsetSeconds: offset)), raw: raw, source)
        }

        /// An XMP sidecar's dates, in the order of the file's own XMP.
        mutating func sidecarXMP(_ s: SidecarEvidence?) -> CaptureDecision? {
            guard let s, s.kind == .xmp else { return nil }
            if let t = iso(s.xmpDateCreated, .sidecarXMPDateCreated) { return decision(t, .sidecarXMPDateCreated) }
            if let t = iso(s.xmpDateTimeOriginal, .sidecarXMPDateTimeOriginal) { return decision(t, .sidecarXMPDateTimeOriginal) }
            if let t = iso(s.xmpCreateDate, .sidecarXMPCreateDate) { return decision(t, .sidecarXMPCreateDate) }
            return nil
        }

        /// Google Takeout's `photoTakenTime`: a UTC instant, on the local day of the zone its
        /// place gives (`CaptureDateRules.takeoutOffset`).
        mutating func takeout(_ s: SidecarEvidence?) -> CaptureDecision? {
            guard let s, s.kind == .takeout, let seconds = s.takenTime else { return nil }
            let source = DateSource.takeoutPhotoTakenTime
            // Years 1900 to 9999: outside, the value is no time a photo was taken.
            guard (-2_208_988_800...253_402_300_799).contains(seconds) else {
                _ = unreadable(String(seconds), source)
                return nil
            }
            let instant = Timestamp(seconds: seconds)
            // The place's zone where there is one; else the longitude's rule.
            zoneGaveOffset = placeZone != nil
            let offset = placeZone?.secondsEastOfUTC(at: seconds) ?? CaptureDateRules.takeoutOffset(at: instant, longitude: s.longitude)
            let time = CaptureTime(local: instant.local(offsetSeconds: offset), utcOffsetSeconds: offset)
            guard let kept = accepted(time, raw: String(seconds), source) else { return nil }
            return decision(kept, source)
        }

        /// A movie header's creation time: an instant (UTC by the specification), shown in the
        /// daemon's zone as an mtime is. Some Android phones write their local time there instead;
        /// it is read as UTC all the same (nothing in the file says which), hours off at worst.
        mutating func movieHeader(_ seconds1904: Int64?) -> CaptureTime? {
            guard let seconds1904 else { return nil }
            let unix = seconds1904 - CaptureDateRules.secondsFrom1904To1970
            let raw = String(seconds1904)
            // Before 1970: a camera whose clock was never set (or counted from 1970 by mistake).
            guard unix > 0 else {
                rejected.append("\(DateSource.movieHeader.rawValue) \"\(raw)\" (before 1970)")
                return nil
            }
            zoneGaveOffset = false
            return accepted(CaptureDateRules.inLocalZone(Timestamp(seconds: unix)), raw: raw, .movieHeader)
        }
    }

    /// 1904-01-01 to 1970-01-01 in seconds: QuickTime's epoch to Unix's.
    public static let secondsFrom1904To1970: Int64 = 2_082_844_800

    /// An instant as the daemon's zone (`TZ`) shows it, that zone's offset kept: the instant stays
    /// exact, the day folder is the local day.
    static func inLocalZone(_ instant: Timestamp) -> CaptureTime {
        let zone = SystemZone().secondsEastOfUTC(at: instant.seconds)
        return CaptureTime(local: instant.local(offsetSeconds: zone), utcOffsetSeconds: zone)
    }

    /// The UTC offset a Takeout instant is shown at: the daemon's zone (`TZ`), unless the photo's
    /// place (`geoData`) lies more than two hours from it by its nautical zone (longitude / 15°,
    /// rounded): a photo taken at home keeps the home zone's daylight saving time and its
    /// country's real offset, one taken abroad lands on its own local day. No place→zone table is
    /// consulted; an offset an hour or two off moves only photos near midnight.
    public static func takeoutOffset(at instant: Timestamp, longitude: Double?, zone daemonZone: some UTCOffsets = SystemZone()) -> Int {
        let zone = daemonZone.secondsEastOfUTC(at: instant.seconds)
        guard let longitude, longitude.isFinite, abs(longitude) <= 180 else { return zone }
        let nautical = Int((longitude / 15).rounded()) * 3600
        return abs(nautical - zone) <= 2 * 3600 ? zone : nautical
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
