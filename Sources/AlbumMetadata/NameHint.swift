import AlbumCore

/// What a file's name says of it, for files whose content cannot say.
struct NameHint {
    /// A photo's extension, of a format shown (a `.heic` that cannot be read is a damaged
    /// photo only where HEIF images are photos).
    let likelyPhoto: Bool
    /// The format that extension names.
    let guessed: ImageFormat

    init(_ relativePath: String, formats: Set<ImageFormat>) {
        let name = relativePath.nameAfterLastSlash
        let dot = name.utf8.lastIndex(of: UInt8(ascii: "."))
        let ext = dot.map { name[name.utf8.index(after: $0)...].lowercased() } ?? ""
        guessed = switch ext {
        // (A JPEG's name first: the RAW list below is searched only for other names.)
        case "jpg", "jpeg", "jpe": .jpeg
        case "png": .png
        case "heic", "heif", "hif", "avif": .heif
        case "mov", "mp4", "m4v", "3gp", "3g2": .video
        case "webp": .webp
        case "gif": .gif
        case "tif", "tiff": .tiff
        case "jxl": .jxl
        case _ where ImageFormat.rawExtensions.contains(ext): .raw
        default: .jpeg
        }
        likelyPhoto = dot != nil && LibraryScanner.photoExtensions.contains(ext) && formats.contains(guessed)
    }
}
