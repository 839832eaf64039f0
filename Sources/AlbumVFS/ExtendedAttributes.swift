import AlbumCore

/// The `user.albumfs.*` attributes that explain every decision about a photo (docs/xattrs.md).
enum ExtendedAttributes {
    /// The one namespace albumfs answers in; the others are not supported at all.
    static let namespace = "user."
    static let prefix = "user.albumfs."

    /// - Parameters:
    ///   - livePartner: the mount-relative `by-date/` path of its Live Photo partner, or of its
    ///     motion photo's still or video (`MotionPhotos`).
    ///   - rawPartner: the same of its RAW+JPEG partner: named `raw` on the JPEG (its RAW),
    ///     `raw_of` on the RAW (the JPEG it is the raw of).
    ///   - similarGroup: the mount-relative path of its folder in `duplicates/similar/`.
    static func of(_ photo: Photo, sourceRoot: String, livePartner: String? = nil, rawPartner: String? = nil,
                   similarGroup: String? = nil) -> [(String, String)] {
        var list: [(String, String)] = [
            ("source", sourceRoot + "/" + photo.sourcePath),
            ("capture_time", photo.capture.time.isoString),
            ("date_source", photo.capture.source.rawValue),
        ]
        if !photo.capture.rejected.isEmpty { list.append(("date_rejected", photo.capture.rejected.joined(separator: "; "))) }
        list.append(("screenshot", photo.screenshot.description))
        list.append(("format", photo.format.rawValue))
        list.append(("orientation", String(photo.orientation)))
        if let rating = photo.rating { list.append(("rating", "\(rating) (\(photo.ratingSource.name))")) }
        if let place = placeAttribute(of: photo) { list.append(("place", place)) }
        if photo.capture.offsetFromPlace, let zone = zoneName(of: photo) { list.append(("time_zone", zone + " (the place's)")) }
        if let livePartner { list.append((photo.motionVideo != nil ? "motion_photo" : "live_photo", livePartner)) }
        if let rawPartner { list.append((photo.format == .raw ? "raw_of" : "raw", rawPartner)) }
        if let similarGroup { list.append(("similar", similarGroup)) }
        if let kinds = MediaKindRules.description(signals: UInt32(photo.kindSignals), format: photo.format, screenshot: photo.screenshot,
                                                  livePartner: photo.format.isStill ? livePartner : nil) {
            list.append(("kinds", kinds))
        }
        if !photo.problems.isEmpty { list.append(("problems", photo.problems.joined(separator: "; "))) }
        list += sidecarAttributes(of: photo, sourceRoot: sourceRoot)
        return list.map { (prefix + $0.0, $0.1) }
    }

    /// `place`: `City, Region, Country (lat, lon)`, or the position alone when no city is within
    /// `Gazetteer.reachKilometres`, or with why there is no table of cities; nil without a position.
    static func placeAttribute(of photo: Photo) -> String? {
        guard let position = photo.position else { return nil }
        // (The scan that found the position loaded the system's gazetteer, or tried to.)
        guard let gazetteer = Gazetteer.system else {
            return "no city known: \(Gazetteer.systemFailure ?? "no table of cities") (\(position.description))"
        }
        if let place = photo.place, place < gazetteer.count { return gazetteer.description(ofCity: place, at: position) }
        return "no city within \(Int(Gazetteer.reachKilometres)) km (\(position.description))"
    }

    /// The name of the time zone of a photo's city (`Asia/Tokyo`), or nil.
    static func zoneName(of photo: Photo) -> String? {
        guard let place = photo.place, let gazetteer = Gazetteer.system, place < gazetteer.count else { return nil }
        return gazetteer.city(place).zone
    }

    /// `sidecar` (its path: beside the photo, wherever the photo is now), `rating`, `favorited`,
    /// `keywords`, `description`.
    static func sidecarAttributes(of photo: Photo, sourceRoot: String) -> [(String, String)] {
        let pairs = photo.sidecarAttributes
        return stride(from: 0, to: pairs.count - 1, by: 2).map { i in
            guard pairs[i] == "sidecar" else { return (pairs[i], pairs[i + 1]) }
            let folder = photo.relativePath.folderBeforeLastSlash
            return ("sidecar", sourceRoot + "/" + (folder.isEmpty ? "" : folder + "/") + pairs[i + 1])
        }
    }
}
