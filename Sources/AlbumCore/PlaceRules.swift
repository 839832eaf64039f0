/// Where a photo was taken: its GPS position, from the file's EXIF or its sidecar (docs/rules.md,
/// "Places"), and the city it is in (`Gazetteer.nearest`).
public enum PlaceRules {
    /// The position a photo's evidence gives, or nil: a sidecar's (XMP `exif:GPSLatitude`/
    /// `GPSLongitude`, Takeout's `geoData`) first for a camera RAW, whose sidecar is where its
    /// metadata is edited, as for its dates (`ImageFormat.sidecarDatesWin`); else the file's
    /// EXIF first. A position that names no place (`PlacePosition`) is passed over for the next.
    public static func position(_ e: PhotoEvidence, format: ImageFormat) -> PlacePosition? {
        let file = e.gpsLatitude.flatMap { lat in e.gpsLongitude.flatMap { PlacePosition(latitude: lat, longitude: $0) } }
        let sidecar = e.sidecar.flatMap { s in s.latitude.flatMap { lat in s.longitude.flatMap { PlacePosition(latitude: lat, longitude: $0) } } }
        return format.sidecarDatesWin ? sidecar ?? file : file ?? sidecar
    }

    /// The time zone of the system gazetteer's city `place` (`ZoneInfoCache.system`), or nil.
    public static func zone(of place: Int?) -> ZoneInfo? {
        guard let place, let gazetteer = Gazetteer.system, place < gazetteer.count else { return nil }
        return ZoneInfoCache.system.zone(named: gazetteer.city(place).zone)
    }

    /// The city of `position` in `gazetteer` (nil: none within `Gazetteer.reachKilometres`, or no
    /// gazetteer). Loads the system's only when asked, so a library without GPS never loads it.
    public static func city(of position: PlacePosition?, in gazetteer: @autoclosure () -> Gazetteer?) -> Int? {
        guard let position, let table = gazetteer() else { return nil }
        return table.nearest(position)
    }
}
