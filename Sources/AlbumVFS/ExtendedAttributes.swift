import AlbumCore

/// The `user.albumfs.*` attributes that explain every decision about a photo (docs/xattrs.md).
enum ExtendedAttributes {
    /// The one namespace albumfs answers in; the others are not supported at all.
    static let namespace = "user."
    static let prefix = "user.albumfs."

    /// - Parameters:
    ///   - livePartner: the mount-relative `by-date/` path of its Live Photo partner.
    ///   - rawPartner: the same of its RAW+JPEG partner: named `raw` on the JPEG (its RAW),
    ///     `raw_of` on the RAW (the JPEG it is the raw of).
    static func of(_ photo: Photo, sourceRoot: String, livePartner: String? = nil, rawPartner: String? = nil) -> [(String, String)] {
        var list: [(String, String)] = [
            ("source", sourceRoot + "/" + photo.relativePath),
            ("capture_time", photo.capture.time.isoString),
            ("date_source", photo.capture.source.rawValue),
        ]
        if !photo.capture.rejected.isEmpty { list.append(("date_rejected", photo.capture.rejected.joined(separator: "; "))) }
        list.append(("screenshot", photo.screenshot.description))
        list.append(("format", photo.format.rawValue))
        list.append(("orientation", String(photo.orientation)))
        if let rating = photo.rating { list.append(("rating", "\(rating) (\(photo.ratingSource.name))")) }
        if let livePartner { list.append(("live_photo", livePartner)) }
        if let rawPartner { list.append((photo.format == .raw ? "raw_of" : "raw", rawPartner)) }
        if !photo.problems.isEmpty { list.append(("problems", photo.problems.joined(separator: "; "))) }
        return list.map { (prefix + $0.0, $0.1) }
    }
}
