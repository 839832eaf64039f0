import AlbumCore
import AlbumSystem
import FoundationEssentials
import Glibc

/// The sample's Live Photos.
extension SampleLibrary {
    /// Live Photos: one pair known by its Apple content identifier (the still's maker note, the
    /// video's Keys), one as iPhones write them by default (a HEIC and an HEVC QuickTime movie,
    /// their identifier in the HEIC's maker note), one by name and time alone (copied off the
    /// phone without them), and a still and a video of one name taken an hour apart, which are not one.
    static func livePhotoItems(_ frame: SampleImage) throws(EncodeError) -> [SampleItem] {
        let still = try SampleJPEG.jpeg(frame)
        let identifier = "8D1A2C3E-4F5B-4C6D-9E7F-0A1B2C3D4E5F"
        var tagged = SampleExif.camera("Apple", "iPhone 15 Pro", ExifTime("2024:05:20 09:00:00", offset: "-07:00"))
        tagged.makerNote = .apple(mediaGroup: identifier)
        // Its poster is the frame at the still's moment: the still's picture, not the opening's (turned round).
        let motion = try SampleVideo.livePhotoMotion(.init(opening: frame.stored(forOrientation: 3), still: frame, stillFrame: 3), metadata: [
            ("com.apple.quicktime.creationdate", "2024-05-20T08:59:59-0700"), ("com.apple.quicktime.content.identifier", identifier),
            ("com.apple.quicktime.make", "Apple"),
        ])
        let plainStill = SampleJPEG.insertingAPP1(SampleExif.camera("Apple", "iPhone 8", "2021:04:05 06:07:08").payload(), into: still)
        let nearby = try SampleVideo.video(frame, container: .mov, metadata: [("com.apple.quicktime.creationdate", "2021-04-05T06:07:07")])
        let later = try SampleVideo.video(frame, container: .mov, metadata: [("com.apple.quicktime.creationdate", "2021-04-05T07:07:08")])
        return try heicLivePhotoItems(frame) + [
            clip("iPhone/IMG_1402.JPG", SampleJPEG.insertingAPP1(tagged.payload(), into: still),
                Expected(day: "2024-05-20", source: .exifDateTimeOriginal, time: "2024-05-20T09:00:00-07:00"), partner: "iPhone/IMG_1402.MOV", video: false),
            clip("iPhone/IMG_1402.MOV", motion, Expected(day: "2024-05-20", source: .quickTimeCreationDate), partner: "iPhone/IMG_1402.JPG"),
            clip("Imported/IMG_0300.JPG", plainStill, Expected(day: "2021-04-05", source: .exifDateTimeOriginal),
                 partner: "Imported/IMG_0300.mov", video: false),
            clip("Imported/IMG_0300.mov", nearby, Expected(day: "2021-04-05", source: .quickTimeCreationDate), partner: "Imported/IMG_0300.JPG"),
            clip("Imported/IMG_0301.JPG", plainStill, Expected(day: "2021-04-05", source: .exifDateTimeOriginal), video: false),
            clip("Imported/IMG_0301.mov", later, Expected(day: "2021-04-05", source: .quickTimeCreationDate)),
        ]
    }

    /// The HEIC + HEVC MOV Live Photo pair's identifier (in the HEIC's Apple maker note and the movie's Keys).
    public static let heicLiveIdentifier = "3B7C9D21-6E4F-4A8B-B1C2-D3E4F5A6B7C8"

    /// A Live Photo as an iPhone writes it by default: `IMG_1410.HEIC` (its identifier in the
    /// maker note of the HEIF's EXIF item) and `IMG_1410.MOV` (HEVC, the identifier in its Keys).
    static func heicLivePhotoItems(_ frame: SampleImage) throws(EncodeError) -> [SampleItem] {
        var exif = SampleExif.camera("Apple", "iPhone 15 Pro", ExifTime("2024:05:21 18:30:00", subSec: "250", offset: "-07:00"), order: .motorola)
        exif.makerNote = .apple(mediaGroup: heicLiveIdentifier)
        let still = try SampleHEIF.heif(frame, metadata: .init(exif: exif.payload()))
        let motion = try SampleVideo.livePhotoMotion(.init(opening: frame, still: frame, stillFrame: 3), metadata: [
            ("com.apple.quicktime.creationdate", "2024-05-21T18:29:59-0700"), ("com.apple.quicktime.content.identifier", heicLiveIdentifier),
            ("com.apple.quicktime.make", "Apple"), ("com.apple.quicktime.model", "iPhone 15 Pro"),
        ], codec: .hevc)
        return [
            clip("iPhone/IMG_1410.HEIC", still, Expected(day: "2024-05-21", source: .exifDateTimeOriginal, time: "2024-05-21T18:30:00.25-07:00"),
                 partner: "iPhone/IMG_1410.MOV", video: false),
            clip("iPhone/IMG_1410.MOV", motion, Expected(day: "2024-05-21", source: .quickTimeCreationDate), partner: "iPhone/IMG_1410.HEIC"),
        ]
    }
}
