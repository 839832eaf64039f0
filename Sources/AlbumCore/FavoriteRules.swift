/// Where a photo's rating came from (`user.albumfs.rating`).
public enum RatingSource: UInt8, Sendable {
    case none = 0
    /// XMP `xmp:Rating` in the file: Lightroom, digiKam, darktable, Windows write it.
    case xmp = 1
    /// EXIF IFD0 `Rating` (0x4746): Windows writes it beside the XMP one, as do some cameras.
    case exif = 2
    /// `xmp:Rating` in the photo's XMP sidecar (darktable, digiKam, Lightroom's sidecars).
    case sidecar = 3

    public var name: String {
        switch self {
        case .none: "none"
        case .xmp: "xmp:Rating"
        case .exif: "exif:Rating"
        case .sidecar: "xmp-sidecar:Rating"
        }
    }
}

/// Which photos are favourites: a rating at or above the threshold (`-o favorite_rating=N`), or
/// a favourite mark (Google Takeout's `favorited`, which sidecars give) (docs/rules.md, "Favourites").
public struct FavoriteRules: Sendable {
    public static let defaultThreshold = 4
    /// The lowest rating that makes a favourite, 1–5.
    public var threshold: Int

    public init(threshold: Int = defaultThreshold) { self.threshold = threshold }

    /// The photo's rating, -1 (rejected) to 5, and where it came from: its XMP sidecar's first
    /// (where an editor keeps what it changed: the file itself is never rewritten, as MWG has it),
    /// then the file's XMP (the editors' own; Windows writes the two alike), then EXIF. A value
    /// out of range is no rating, and 0 is "not rated", as every writer means it.
    public static func rating(_ e: PhotoEvidence) -> (rating: Int, source: RatingSource)? {
        if let value = e.sidecar?.rating, (-1...5).contains(value), value != 0 { return (value, .sidecar) }
        if let text = e.xmpRating?.trimmedValue, let value = Double(text), value.isFinite, (-1...5).contains(value), value != 0 {
            return (Int(value.rounded(.down)), .xmp)
        }
        if let value = e.exifRating, (1...5).contains(value) { return (value, .exif) }
        return nil
    }

    /// Whether a photo rated `rating` (nil: not rated) and marked `favorited` is a favourite.
    public func isFavorite(rating: Int?, favorited: Bool?) -> Bool {
        favorited == true || (rating ?? 0) >= threshold
    }
}
