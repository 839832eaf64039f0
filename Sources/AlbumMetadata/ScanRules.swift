import AlbumCore

/// How the scanner decides dates and screenshots, and which formats are photos.
public struct ScanRules: Sendable {
    public var dates: CaptureDateRules
    public var screenshots: ScreenshotRules
    /// The zone a capture time without an offset is read in (the daemon's local zone).
    public var zone: any UTCOffsets
    /// The formats shown. HEIF is read by every scan, and hidden with `-o heif=off`: being a
    /// decision, not evidence, changing it needs no file read again.
    public var formats: Set<ImageFormat> { didSet { shown = Self.mask(formats) } }
    public var favorites = FavoriteRules()
    /// `formats` as one bit a format (`ImageFormat.bit`): asked of every file a scan reads, where
    /// the set hashes the format's name.
    private var shown: UInt16 = 0

    public static let defaultFormats: Set<ImageFormat> = [.jpeg, .png, .heif, .video, .webp, .gif, .tiff, .jxl, .raw]

    /// The date rule reads screenshot names with the screenshot rule's words (`-o screenshot_names`).
    public init(dates: CaptureDateRules, screenshots: ScreenshotRules = ScreenshotRules(), zone: any UTCOffsets = SystemZone(),
                formats: Set<ImageFormat> = defaultFormats) {
        var dates = dates
        dates.screenshotNames = ScreenshotNameDate(prefixes: screenshots.namePrefixes)
        self.dates = dates
        self.screenshots = screenshots
        self.zone = zone
        self.formats = formats
        shown = Self.mask(formats)
    }

    /// Whether photos of `format` are shown (`formats`).
    public func shows(_ format: ImageFormat) -> Bool { shown & format.bit != 0 }

    private static func mask(_ formats: Set<ImageFormat>) -> UInt16 { formats.reduce(0) { $0 | $1.bit } }
}

/// A file that could not be read or understood, and why.
public struct ScanProblem: Sendable, Equatable {
    public var relativePath: String
    public var message: String

    public init(relativePath: String, message: String) {
        self.relativePath = relativePath
        self.message = message
    }
}

/// The files a scan compares its walk with (what the index or the mount knows), by relative path.
public protocol KnownFiles {
    var isEmpty: Bool { get }
    /// What is known of the file at `relativePath`, for a scan to reuse if unchanged; nil for a
    /// file unknown, or to be read again.
    func known(_ relativePath: String) -> IndexedFile?
    /// Every path known (those `known` answers nil for among them).
    func forEachPath(_ body: (String) -> Void)
}

extension KnownFiles {
    /// The known paths grouped by their folder ("" the library's own).
    func pathsByFolder() -> [Substring: [String]] {
        var folders: [Substring: [String]] = [:]
        forEachPath { path in
            let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
            folders[slash.map { path[..<$0] } ?? "", default: []].append(path)
        }
        return folders
    }
}

extension Dictionary: KnownFiles where Key == String, Value == IndexedFile {
    public func known(_ relativePath: String) -> IndexedFile? { self[relativePath] }
    public func forEachPath(_ body: (String) -> Void) { keys.forEach(body) }
}

extension ScanRules {
    /// The decisions the rules make of a file's evidence (`PhotoDecisions`): its capture time, its
    /// screenshot verdict (a recording's, for a video), its orientation (1 for a format decoded
    /// upright), and the problems met reading it.
    /// - Parameter placeZone: the zone of its place (`PlaceRules.zone`), which dates a time
    ///   written without an offset.
    func decisions(_ e: PhotoEvidence, format: ImageFormat, relativePath: String, fileMtime: Timestamp,
                   placeZone: ZoneInfo?) -> PhotoDecisions {
        let fileName = String(relativePath.nameAfterLastSlash)
        let capture = dates.decide(e, fileName: fileName, fileMtime: fileMtime, format: format, placeZone: placeZone)
        let folders = { relativePath.split(separator: "/").dropLast().map(String.init) }
        let shot = format == .video ? screenshots.decideRecording(e, fileName: fileName, folders: folders())
            : screenshots.decide(e, fileName: fileName, folders: folders())
        let orientation = format.decodesUpright ? 1 : e.orientation.flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
        return PhotoDecisions(capture: capture, captureInstant: capture.time.instant(in: zone), screenshot: shot,
                              orientation: orientation, problems: e.problems)
    }
}
