/// What a photo's sidecar says: an XMP file beside it (darktable, digiKam, Lightroom,
/// RawTherapee) or Google Takeout's JSON, as raw as it was written.
///
/// The rules (`CaptureDateRules`) place a sidecar's dates among the file's own; keeping the raw
/// strings lets `user.albumfs.date_rejected` quote what was refused.
public struct SidecarEvidence: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// An XMP sidecar, `NAME.xmp` or `NAME.EXT.xmp`.
        case xmp
        /// Google Takeout's JSON, `NAME.EXT.json`, `NAME.EXT.supplemental-metadata.json`, ….
        case takeout
    }

    public var kind: Kind
    /// The sidecar's path, relative to the library's folder.
    public var relativePath: String
    /// XMP `photoshop:DateCreated`, `exif:DateTimeOriginal`, `xmp:CreateDate`, as written.
    public var xmpDateCreated: String?
    public var xmpDateTimeOriginal: String?
    public var xmpCreateDate: String?
    /// Takeout's `photoTakenTime.timestamp`: seconds since 1970 UTC.
    public var takenTime: Int64?
    /// Degrees north and east (Takeout's `geoData`, XMP's `exif:GPSLatitude`/`GPSLongitude`).
    public var latitude: Double?
    public var longitude: Double?
    /// XMP `xmp:Rating` (-1 rejected, 0 none, 1–5 stars).
    public var rating: Int?
    /// Takeout's `favorited`.
    public var favorited: Bool?
    /// XMP `dc:subject` items.
    public var keywords: [String] = []
    /// Takeout's `description`, XMP `dc:description`.
    public var description: String?

    public init(kind: Kind, relativePath: String) {
        self.kind = kind
        self.relativePath = relativePath
    }

    /// Whether it says anything the rules or the attributes use.
    public var isEmpty: Bool {
        xmpDateCreated == nil && xmpDateTimeOriginal == nil && xmpCreateDate == nil && takenTime == nil && latitude == nil
            && longitude == nil && rating == nil && favorited == nil && keywords.isEmpty && description == nil
    }
}
