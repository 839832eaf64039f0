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

extension SidecarEvidence {
    /// The attributes a photo with this sidecar shows (docs/xattrs.md), names and values in turn:
    /// `sidecar` (its name), then `favorited`, `keywords` (joined by `, `) and `description`
    /// where it says them. (Its rating is the photo's `rating`, with its source: `FavoriteRules`.)
    public var attributes: [String] {
        var list = ["sidecar", String(relativePath.nameAfterLastSlash)]
        if let favorited { list += ["favorited", favorited ? "yes" : "no"] }
        if !keywords.isEmpty { list += ["keywords", keywords.joined(separator: ", ")] }
        if let description { list += ["description", description] }
        return list
    }

    /// One text for the index and the packed records: a line per field, `key:value`, a keyword
    /// a line of its own; `\` and newlines in a value escaped. Read back by `init?(encoded:)`.
    public var encoded: String {
        var lines = [kind.rawValue, relativePath].map(Self.escaped)
        func add(_ key: String, _ value: String?) { if let value { lines.append(key + ":" + Self.escaped(value)) } }
        add("dc", xmpDateCreated); add("dto", xmpDateTimeOriginal); add("cd", xmpCreateDate)
        add("t", takenTime.map { String($0) }); add("lat", latitude.map { "\($0)" }); add("lon", longitude.map { "\($0)" })
        add("r", rating.map { String($0) }); add("f", favorited.map { $0 ? "1" : "0" }); add("d", description)
        for keyword in keywords { add("k", keyword) }
        return lines.joined(separator: "\n")
    }

    /// The evidence `encoded` wrote; nil for a text it did not write.
    public init?(encoded: String) {
        let lines = encoded.split(separator: "\n", omittingEmptySubsequences: false).map { Self.unescaped($0) }
        guard lines.count >= 2, let kind = Kind(rawValue: lines[0]) else { return nil }
        self.init(kind: kind, relativePath: lines[1])
        for line in lines.dropFirst(2) {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = String(line[line.index(after: colon)...])
            switch line[..<colon] {
            case "dc": xmpDateCreated = value
            case "dto": xmpDateTimeOriginal = value
            case "cd": xmpCreateDate = value
            case "t": takenTime = Int64(value)
            case "lat": latitude = Double(value)
            case "lon": longitude = Double(value)
            case "r": rating = Int(value)
            case "f": favorited = value == "1"
            case "d": description = value
            case "k": keywords.append(value)
            default: return nil
            }
        }
    }

    private static func escaped(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\n") }) else { return value }
        var out = ""
        for ch in value {
            switch ch {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(ch)
            }
        }
        return out
    }

    private static func unescaped(_ line: Substring) -> String {
        guard line.contains("\\") else { return String(line) }
        var out = ""
        var escaping = false
        for ch in line {
            if escaping {
                out.append(ch == "n" ? "\n" : ch)
                escaping = false
            } else if ch == "\\" {
                escaping = true
            } else {
                out.append(ch)
            }
        }
        return out
    }
}
