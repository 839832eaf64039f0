import AlbumCore

/// Why something under the library's folder is in no view: what a line of `.albumfs/not-shown`
/// says of it, and what `not_shown_by_reason` counts (docs/status.md). One byte: a mount keeps
/// one per file not shown.
public enum NotShownReason: UInt8, Sendable, CaseIterable, Comparable {
    /// A document (PDF, office, text): not a photo.
    case document
    /// Sound alone: a sound file, or a movie's extension on a file with no video track.
    case sound
    /// An image in a format albumfs does not read yet (WebP, GIF, TIFF, camera RAW, …).
    case imageFormat
    /// A video in a container albumfs does not read (Matroska, AVI, MPEG-TS, …).
    case videoFormat
    /// Metadata kept beside a photo (XMP, Google Takeout's JSON, Apple's AAE): XMP and Takeout's
    /// are read with their photo (`FolderSidecars`), never shown themselves.
    case sidecar
    /// Any other file.
    case other
    /// A photo of a format the mount's options hide (`-o heif=off`).
    case hiddenByOption
    /// Its content could not be understood (`.albumfs/errors` says why).
    case damaged
    /// It could not be opened or read (`.albumfs/errors` says why).
    case unreadable
    /// A file whose name starts with a dot.
    case hiddenFile
    /// A folder whose name starts with a dot: not looked into.
    case hiddenFolder
    /// A NAS's thumbnails, a recycle bin, `lost+found`: not looked into.
    case systemFolder
    /// A folder of an Apple photo library beside its originals (previews, thumbnails): not looked into.
    case applePhotoLibraryFolder
    /// A symbolic link: never followed.
    case link
    /// A FIFO, socket or device.
    case notRegular
    /// A second name of a file shown under its first (a hard link).
    case hardLink
    /// A name that differs from another in the folder only in its Unicode form (`.albumfs/errors`).
    case unicodeTwin

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// The name `not_shown_by_reason` counts it under.
    public var key: String {
        switch self {
        case .document: "documents"
        case .sound: "sound"
        case .imageFormat: "image_formats_not_read"
        case .videoFormat: "video_formats_not_read"
        case .sidecar: "sidecars"
        case .other: "other_files"
        case .hiddenByOption: "hidden_by_option"
        case .damaged: "damaged"
        case .unreadable: "unreadable"
        case .hiddenFile: "hidden_files"
        case .hiddenFolder: "hidden_folders"
        case .systemFolder: "system_folders"
        case .applePhotoLibraryFolder: "photo_library_folders"
        case .link: "links"
        case .notRegular: "special_files"
        case .hardLink: "hard_links"
        case .unicodeTwin: "unicode_twins"
        }
    }

    /// What the line of the file at `path` says after the path.
    public func text(for path: String) -> String {
        let ext = Self.fileExtension(path)
        let named = ext.isEmpty ? "" : " (\(ext))"
        switch self {
        case .document: return "document" + named
        case .sound:
            return ImageFormat.video.extensions.contains(ext) ? "sound (\(ext) with no video track)" : "sound" + named
        case .imageFormat: return "unsupported image format" + named
        case .videoFormat: return "unsupported video format" + named
        case .sidecar: return "sidecar" + named
        case .other: return ext.isEmpty ? "not a photo or video (no extension)" : "not a photo or video" + named
        case .hiddenByOption: return "HEIF image, hidden by -o heif=off"
        case .damaged: return "damaged (.albumfs/errors says why)"
        case .unreadable: return "unreadable (.albumfs/errors says why)"
        case .hiddenFile: return "hidden file (its name starts with a dot)"
        case .hiddenFolder: return "hidden folder (its name starts with a dot), not looked into"
        case .systemFolder: return "NAS, recycle bin or system folder, not looked into"
        case .applePhotoLibraryFolder: return "photo library's previews and thumbnails, not looked into"
        case .link: return "symbolic link, not followed"
        case .notRegular: return "not a regular file (FIFO, socket or device)"
        case .hardLink: return "hard link to a file shown under another name"
        case .unicodeTwin: return "name differs from another only in its Unicode form (.albumfs/errors)"
        }
    }

    /// Why a file read and found to be no photo was not shown, by its name (its content said
    /// only that it is none of the formats read). A movie's extension is on a file the movie
    /// reader found no video track in: sound. A HEIF's is on one that is no photo only because
    /// HEIF images are hidden (shown, one that cannot be read is a damaged photo).
    public init(ignoredFileNamed path: String) {
        let ext = Self.fileExtension(path)
        if ImageFormat.video.extensions.contains(ext) || Self.soundExtensions.contains(ext) {
            self = .sound
        } else if ImageFormat.heif.extensions.contains(ext) {
            self = .hiddenByOption
        } else if Self.imageExtensions.contains(ext) {
            self = .imageFormat
        } else if Self.videoExtensions.contains(ext) {
            self = .videoFormat
        } else if Self.documentExtensions.contains(ext) {
            self = .document
        } else if Self.sidecarExtensions.contains(ext) {
            self = .sidecar
        } else {
            self = .other
        }
    }

    /// The extension of the last component of `path`, lowercased ("" when it has none).
    static func fileExtension(_ path: String) -> String {
        let name = path.nameAfterLastSlash
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.utf8.startIndex else { return "" }
        return name[name.utf8.index(after: dot)...].lowercased()
    }

    static let soundExtensions: Set<String> = ["mp3", "m4a", "aac", "wav", "flac", "ogg", "oga", "opus", "amr", "wma", "aif", "aiff",
                                               "mid", "midi", "caf", "m4b", "ape", "alac"]
    static let imageExtensions: Set<String> = ["bmp", "jp2", "j2k", "psd", "svg", "ico", "tga",
                                               "crw", "x3f", "raw", "rwl", "3fr", "erf", "kdc", "mrw", "iiq", "heics", "apng", "jfif", "xcf"]
    static let videoExtensions: Set<String> = ["avi", "mkv", "webm", "wmv", "mpg", "mpeg", "mts", "m2ts", "ts", "flv", "vob", "ogv",
                                               "asf", "divx", "insv", "lrv"]
    static let documentExtensions: Set<String> = ["pdf", "txt", "md", "rtf", "doc", "docx", "odt", "ods", "odp", "xls", "xlsx",
                                                  "ppt", "pptx", "csv", "html", "htm", "epub", "pages", "numbers", "key", "log"]
    static let sidecarExtensions: Set<String> = ["xmp", "json", "aae", "thm", "pp3", "dop", "on1", "xml"]
}

extension LibraryScanner {
    /// Why the scan shows no photo of `file`, or nil when it shows one.
    public func notShownReason(_ file: IndexedFile) -> NotShownReason? {
        switch file.kind {
        case .photo(let format, _): return rules.shows(format) ? nil : .hiddenByOption
        case .problem(let message): return ReadFailure.isReadFailure(message) ? .unreadable : .damaged
        case .ignored: return NotShownReason(ignoredFileNamed: file.relativePath)
        }
    }
}

/// A file or folder under the library's folder in no view, and why.
public struct NotShownFile: Sendable, Equatable {
    public var path: String
    public var reason: NotShownReason

    public init(path: String, reason: NotShownReason) {
        self.path = path
        self.reason = reason
    }

    /// Its line of `.albumfs/not-shown`, escaped as `.albumfs/errors` lines are, newline included.
    public var line: String { OneLine.problem(path: path, message: reason.text(for: path)) }

    /// `files` counted by reason, in the reasons' order, those with none left out:
    /// `documents 3, sound 1` (`none` for no file).
    public static func countsByReason(_ files: [NotShownFile]) -> String {
        var counts = [Int](repeating: 0, count: NotShownReason.allCases.count)
        for file in files { counts[Int(file.reason.rawValue)] += 1 }
        let said = NotShownReason.allCases.filter { counts[Int($0.rawValue)] > 0 }.map { "\($0.key) \(counts[Int($0.rawValue)])" }
        return said.isEmpty ? "none" : said.joined(separator: ", ")
    }
}
