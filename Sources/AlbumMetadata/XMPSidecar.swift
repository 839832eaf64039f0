import AlbumCore

/// An XMP sidecar (`NAME.xmp`, `NAME.EXT.xmp`) read with the packet reader the files' own XMP
/// uses (`XMPProperties`): dates, GPS, rating, keywords, description.
public enum XMPSidecar {
    /// darktable keeps a photo's whole edit history in its sidecar: tens of KiB are common, a few
    /// hundred rare. Past 1 MiB it is no sidecar worth holding in the daemon's memory.
    public static let sizeLimit = 1 << 20

    public static func parse(_ bytes: [UInt8], relativePath: String) -> Result<SidecarEvidence, SidecarFailure> {
        guard bytes.count <= sizeLimit else { return .failure(.tooBig(size: bytes.count, limit: sizeLimit)) }
        let xmp = String(decoding: bytes, as: UTF8.self)
        guard xmp.utf8.firstRange(of: "x:xmpmeta".utf8) != nil || xmp.utf8.firstRange(of: "rdf:RDF".utf8) != nil else {
            return .failure(.notXMP)
        }
        var s = SidecarEvidence(kind: .xmp, relativePath: relativePath)
        s.xmpDateCreated = XMPProperties.value(of: "photoshop:DateCreated", in: xmp)
        s.xmpDateTimeOriginal = XMPProperties.value(of: "exif:DateTimeOriginal", in: xmp)
        s.xmpCreateDate = XMPProperties.value(of: "xmp:CreateDate", in: xmp)
        s.latitude = XMPProperties.value(of: "exif:GPSLatitude", in: xmp).flatMap { coordinate($0, positive: "N", negative: "S", limit: 90) }
        s.longitude = XMPProperties.value(of: "exif:GPSLongitude", in: xmp).flatMap { coordinate($0, positive: "E", negative: "W", limit: 180) }
        s.rating = XMPProperties.value(of: "xmp:Rating", in: xmp).flatMap { Int($0) }.flatMap { (-1...5).contains($0) ? $0 : nil }
        s.keywords = XMPProperties.items(of: "dc:subject", in: xmp)
        s.description = XMPProperties.value(of: "dc:description", in: xmp)
        return .success(s)
    }

    /// An XMP GPS coordinate in degrees: `DDD,MM.mmk` or `DDD,MM,SSk` (XMP Specification Part 2,
    /// "GPSCoordinate"), `k` the hemisphere; a signed decimal is read too. Nil when it does not
    /// parse or lies beyond `limit`.
    static func coordinate(_ raw: String, positive: Character, negative: Character, limit: Double) -> Double? {
        var text = Substring(raw.trimmingWhitespaceAndNewlines())
        var sign = 1.0
        if let last = text.last, last.uppercased() == String(positive) || last.uppercased() == String(negative) {
            sign = last.uppercased() == String(negative) ? -1 : 1
            text = text.dropLast()
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        let numbers = parts.compactMap { Double($0.trimmingWhitespaceAndNewlines()) }
        guard numbers.count == parts.count, numbers.allSatisfy({ $0.isFinite }),
              numbers.dropFirst().allSatisfy({ (0..<60).contains($0) }) else { return nil }
        let degrees = numbers.enumerated().reduce(0.0) { $0 + $1.element / [1, 60, 3600][$1.offset] }
        guard abs(degrees) <= limit, parts.count == 1 || numbers[0] >= 0 else { return nil }
        return sign * degrees
    }
}

extension Substring {
    func trimmingWhitespaceAndNewlines() -> String { String(self).trimmingWhitespaceAndNewlines() }
}
