import AlbumCore

/// The `user.albumfs.*` attributes that explain every decision about a photo (docs/xattrs.md).
enum ExtendedAttributes {
    /// The one namespace albumfs answers in; the others are not supported at all.
    static let namespace = "user."
    static let prefix = "user.albumfs."

    /// - Parameter partner: the mount-relative `by-date/` path of its Live Photo partner, or of
    ///   its motion photo's still or video (`MotionPhotos`).
    static func of(_ photo: Photo, sourceRoot: String, partner: String? = nil) -> [(String, String)] {
        var list: [(String, String)] = [
            ("source", sourceRoot + "/" + photo.sourcePath),
            ("capture_time", photo.capture.time.isoString),
            ("date_source", photo.capture.source.rawValue),
        ]
        if !photo.capture.rejected.isEmpty { list.append(("date_rejected", photo.capture.rejected.joined(separator: "; "))) }
        list.append(("screenshot", photo.screenshot.description))
        list.append(("format", photo.format.rawValue))
        list.append(("orientation", String(photo.orientation)))
        if let partner { list.append((photo.motionVideo != nil ? "motion_photo" : "live_photo", partner)) }
        if !photo.problems.isEmpty { list.append(("problems", photo.problems.joined(separator: "; "))) }
        return list.map { (prefix + $0.0, $0.1) }
    }
}
