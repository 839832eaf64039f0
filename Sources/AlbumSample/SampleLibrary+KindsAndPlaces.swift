import AlbumCore
import AlbumSystem
import FoundationEssentials
import Glibc

/// The sample's photos of each kind (`media-types/`) and with a place (`places/`).
extension SampleLibrary {
    /// Where the sample's photos of each kind are (`media-types/`), each with the tags its
    /// device writes: iPhone panorama, portrait selfie and burst, Pixel portrait, a photo sphere.
    public static let kindsFolder = "Kinds"

    /// Photos of the kinds phones' pickers show, as their devices tag them (docs/rules.md, "Kinds").
    static func kinds(_ b: inout Builder) {
        var pano = SampleExif.camera("Apple", "iPhone 15 Pro", ExifTime("2024:06:01 10:00:00", offset: "+02:00"), order: .motorola)
        pano.customRendered = 6
        b.add("Kinds/IMG_2001.JPG", b.jpeg(pano), Expected(day: "2024-06-01", source: .exifDateTimeOriginal))
        var portrait = SampleExif.camera("Apple", "iPhone 15 Pro", ExifTime("2024:06:02 11:00:00", offset: "+02:00"), order: .motorola)
        portrait.customRendered = 8
        portrait.lensModel = "iPhone 15 Pro front camera 2.69mm f/1.9"
        b.add("Kinds/IMG_2002.JPG", b.jpeg(portrait), Expected(day: "2024-06-02", source: .exifDateTimeOriginal))
        for (k, second) in ["10", "11", "12"].enumerated() {
            var frame = SampleExif.camera("Apple", "iPhone 15 Pro", ExifTime("2024:06:03 12:00:\(second)", offset: "+02:00"), order: .motorola)
            frame.makerNote = .appleKinds(burst: "5E0C3A1B-7D2F-4E8A-9B6C-0D1E2F3A4B5C", frontFacing: false)
            b.add("Kinds/IMG_210\(k + 1).JPG", b.jpeg(frame), Expected(day: "2024-06-03", source: .exifDateTimeOriginal))
        }
        let pixelPortrait = [("GCamera:SpecialTypeID", "com.google.android.apps.camera.gallery.specialtype.SpecialType-PORTRAIT")]
        b.add("Kinds/PXL_20240604_090000000.PORTRAIT.jpg",
            b.jpeg(.camera("Google", "Pixel 8", ExifTime("2024:06:04 09:00:00", offset: "+02:00")), xmp: pixelPortrait),
            Expected(day: "2024-06-04", source: .exifDateTimeOriginal))
        b.add("Kinds/PANO_20240605_080000.jpg",
            b.jpeg(.camera("Google", "Pixel 8", ExifTime("2024:06:05 08:00:00", offset: "+02:00")),
                   xmp: [("GPano:ProjectionType", "equirectangular"), ("GPano:UsePanoramaViewer", "True")]),
            Expected(day: "2024-06-05", source: .exifDateTimeOriginal))
    }

    /// Photos with a GPS position: in known cities on every continent's side of the equator and of
    /// Greenwich, two in one city, one far from any, and positions that name no place (0, 0;
    /// no reference letters). The sample's phone photos are at the Eiffel Tower (`phoneItems`).
    static func places(_ b: inout Builder) {
        let spots: [(String, Double, Double, String, String?)] = [
            ("kyoto.jpg", 35.0116, 135.7681, "2022:04:05 10:00:00", "Japan/Kyoto/Kyoto"),
            ("san-francisco.jpg", 37.7793, -122.4193, "2022:04:06 10:00:00", "United States of America/California/San Francisco"),
            ("sydney.jpg", -33.8568, 151.2153, "2022:04:07 10:00:00", "Australia/New South Wales/Sydney"),
            ("buenos-aires.jpg", -34.6037, -58.3816, "2022:04:08 10:00:00", "Argentina/Buenos Aires F.D./Buenos Aires"),
            ("longyearbyen.jpg", 78.2232, 15.6267, "2022:04:09 10:00:00", "Svalbard and Jan Mayen/Svalbard/Longyearbyen"),
            ("lyon-1.jpg", 45.7640, 4.8357, "2022:04:10 10:00:00", "France/Auvergne-Rhône-Alpes/Lyon"),
            ("lyon-2.jpg", 45.7600, 4.8300, "2022:04:10 11:00:00", "France/Auvergne-Rhône-Alpes/Lyon"),
            ("atlantic.jpg", 40.0, -40.0, "2022:04:11 10:00:00", nil),
            ("null-island.jpg", 0, 0, "2022:04:12 10:00:00", nil),
        ]
        for (name, latitude, longitude, date, place) in spots {
            var exif = SampleExif.camera("SONY", "ILCE-7M4", ExifTime(date))
            exif.position = (latitude, longitude)
            b.add(placesFolder + name, b.jpeg(exif),
                Expected(day: String(date.prefix(10).map { $0 == ":" ? "-" : $0 }), source: .exifDateTimeOriginal))
            b.items[b.items.count - 1].expectedPlace = place
        }
        var unsigned = SampleExif.camera("SONY", "ILCE-7M4", "2022:04:13 10:00:00")
        unsigned.position = (45.7640, 4.8357)
        unsigned.positionReferences = false
        b.add(placesFolder + "no-reference.jpg", b.jpeg(unsigned), Expected(day: "2022-04-13", source: .exifDateTimeOriginal))
    }

    /// The sample's folder of `places`' photos.
    public static let placesFolder = "Travel/"
    /// Where the sample's phone photos are (the Eiffel Tower), as `places/` names it.
    public static let eiffelTowerPlace = "France/Île-de-France Region/Neuilly-sur-Seine"
}
