import AlbumCore
import AlbumSystem
import FoundationEssentials
import Glibc

/// One file of the generated sample library, and what albumfs should make of it.
public struct SampleItem: Sendable {
    public var path: String
    public var bytes: [UInt8]
    /// Seconds since the epoch for the file's mtime.
    public var mtime: Int64
    /// The by-date day folder it should land in (nil: not a photo, must not be listed).
    public var expectedDay: String?
    public var expectedScreenshot: Bool
    public var expectedDateSource: DateSource?
    /// `user.albumfs.capture_time`, where the item states it.
    public var expectedCaptureTime: String?
    /// Whether albumfs should take it for a video (in `videos/`, not in `screenshots/` nor
    /// `non-screenshots/`).
    public var expectedVideo = false
    /// Its Live Photo partner's source path (a Live Photo's motion part is in no flat view).
    public var expectedLivePartner: String?
    /// A motion photo's video: its bytes, shown beside the still in `by-date/` alone.
    public var expectedMotionVideo: [UInt8]?
    /// Its folder in `places/` (`COUNTRY/REGION/CITY`), as GeoNames names the nearest city to its
    /// GPS position (nil: in no place).
    public var expectedPlace: String?

    /// Whether it holds nothing to render (empty, a JPEG cut in its header, a video without its
    /// movie box): listed, but with no thumbnail entry.
    public var expectedWithoutThumbnail: Bool {
        expectedDay != nil && (bytes.isEmpty || path == SampleLibrary.cutMOVPath || path == SampleLibrary.truncatedJPEGPath)
    }
}

/// Writes a realistic little photo library: camera JPEGs from several makers (both byte orders,
/// all eight orientations, offsets and sub-seconds), an iPhone HEIC, screenshots as phones and
/// desktops write them, and the damaged and odd files real libraries hold.
public enum SampleLibrary {
    /// Every file's mtime unless stated: 2018-06-01T12:00:00Z.
    public static let defaultMtime: Int64 = 1_527_854_400
    /// The sample's iPhone HEIC, and its day folder.
    public static let heicPath = "iPhone/IMG_1400.HEIC"
    public static let heicDay = "by-date/2024/2024-05/2024-05-19"
    /// An iPhone's HEIC, held sideways: the pixels stored turned, turned back by its rotation box
    /// and said again by its EXIF Orientation (6), which must not turn it twice; a 320x240
    /// thumbnail embedded, as an iPhone embeds one. Encoded once per process: x265 takes a good
    /// part of a second to start, and the tests write the sample library a hundred times.
    static let iPhoneHEIC = Result { () throws(EncodeError) in
        try SampleHEIF.heif(SampleImage.marker(width: 640, height: 480).stored(forOrientation: 6),
                          metadata: .init(exif: SampleExif.camera("Apple", "iPhone 15 Pro", ExifTime("2024:05:19 07:45:00", offset: "-07:00"), order: .motorola,
                                                  orientation: 6).payload(), orientation: 6), layout: .init(thumbnail: 320))
    }

    public static func items() throws(EncodeError) -> [SampleItem] {
        var b = Builder(photo: try SampleJPEG.jpeg(.marker(width: 96, height: 64)),
                        screen: try SamplePNG.png(.marker(width: 64, height: 128, tint: 200)))
        try cameras(&b)
        try screenshots(&b)
        try edgeCases(&b)
        kinds(&b)
        places(&b)
        b.items += try videoItems.get()
        return b.items
    }

    /// Where tests put a JPEG whose header is whole and whose scan names Huffman tables it never
    /// defines (`undecodableJPEG`): listed, dated, its thumbnail failing only when it is decoded.
    /// Not in the sample itself, whose every listed file reads (`tar` of the whole mount).
    public static let undecodableJPEGPath = "Edge/undecodable.jpg"

    public static func undecodableJPEG() throws(EncodeError) -> [UInt8] {
        let image = try SampleJPEG.jpeg(.marker(width: 96, height: 64))
        let exif = SampleExif.camera("Canon", "Canon EOS R6", "2016:02:03 04:05:06").payload()
        return SampleJPEG.withUndefinedHuffmanTables(SampleJPEG.insertingAPP1(exif, into: image))
    }
    /// A JPEG cut inside its header, before its frame header.
    public static let truncatedJPEGPath = "Edge/truncated.jpg"
    /// A MOV cut in half: its movie box, written last, lost.
    public static let cutMOVPath = "Damaged/cut.MOV"
    /// The sample's iPhone video: portrait, stored sideways (its track turned 90 degrees).
    public static let movPath = "iPhone/IMG_1401.MOV"
    /// Videos as phones write them, one per date source, a screen recording, sound alone and
    /// damaged clips. Encoded once per process (x264 takes a while to start).
    static let videoItems = Result { () throws(EncodeError) -> [SampleItem] in
        let frame = SampleImage.marker(width: 96, height: 64)
        let iPhone = try SampleVideo.video(frame.stored(forOrientation: 6), container: .mov, metadata: [
            ("creation_time", "2024-05-18T15:10:00Z"), ("com.apple.quicktime.creationdate", "2024-05-18T08:10:00-0700"),
            ("com.apple.quicktime.make", "Apple"), ("com.apple.quicktime.model", "iPhone 15 Pro"),
        ], rotation: 90)
        let android = try SampleVideo.video(frame, container: .mp4, metadata: [("creation_time", "2024-03-01T12:00:00Z")])
        let plain = try SampleVideo.video(frame, container: .mp4)
        // Android's recorder keeps its capture rate as a Keys item; iOS 18 its playback intent.
        let slowMotion = try SampleVideo.video(frame, container: .mp4, metadata: [("creation_time", "2024-06-06T05:00:00Z"),
                                                                                ("com.android.capture.fps", "240.0")])
        let timeLapse = try SampleVideo.video(frame, container: .mp4, metadata: [("creation_time", "2024-06-08T04:00:00Z"),
                                                                               ("com.android.capture.fps", "1.0")])
        let appleSlowMotion = try SampleVideo.video(frame, container: .mov, metadata: [
            ("com.apple.quicktime.creationdate", "2024-06-07T09:00:00+0200"), ("com.apple.quicktime.make", "Apple"),
            ("com.apple.quicktime.model", "iPhone 16 Pro"), ("com.apple.quicktime.full-frame-rate-playback-intent", "0"),
        ])
        // An iPhone's clip with its place (QuickTime Keys' ISO 6709 location), standing alone.
        let located = try SampleVideo.video(frame, container: .mov, metadata: [
            ("com.apple.quicktime.creationdate", "2022-04-06T12:00:00-0700"), ("com.apple.quicktime.make", "Apple"),
            ("com.apple.quicktime.model", "iPhone 13"), ("com.apple.quicktime.location.ISO6709", "+37.7793-122.4193+010.000/"),
        ])
        var locatedItem = clip(placesFolder + "VID_san-francisco.MOV", located,
            Expected(day: "2022-04-06", source: .quickTimeCreationDate, time: "2022-04-06T12:00:00-07:00"))
        locatedItem.expectedPlace = "United States of America/California/San Francisco"
        let recording = try SampleVideo.video(SampleImage.marker(width: 64, height: 128, tint: 200), container: .mp4,
                                           metadata: [("creation_time", "2023-10-01T10:38:54Z")])
        return try livePhotoItems(frame) + [
            clip(movPath, iPhone, Expected(day: "2024-05-18", source: .quickTimeCreationDate, time: "2024-05-18T08:10:00-07:00")),
            clip("Android/VID_clip.mp4", android, Expected(day: "2024-03-01", source: .movieHeader)),
            locatedItem,
            clip("Android/edited.mp4", SampleVideo.appendingXMP([("xmp:CreateDate", "2022-08-09T10:11:12+02:00")], to: plain),
                 Expected(day: "2022-08-09", source: .xmpCreateDate, time: "2022-08-09T10:11:12+02:00")),
            clip("Videos/VID_20230809_201500.mp4", plain, Expected(day: "2023-08-09", source: .fileName, time: "2023-08-09T20:15:00")),
            clip("Videos/holiday.mov", plain, Expected(day: "2018-06-01", source: .fileModificationTime)),
            clip("Kinds/VID_20240606_070000.mp4", slowMotion, Expected(day: "2024-06-06", source: .movieHeader)),
            clip("Kinds/IMG_2200.MOV", appleSlowMotion, Expected(day: "2024-06-07", source: .quickTimeCreationDate)),
            clip("Kinds/VID_20240608_060000.mp4", timeLapse, Expected(day: "2024-06-08", source: .movieHeader)),
            clip("ScreenRecordings/RPReplay_Final1696156734.MP4", recording, Expected(day: "2023-10-01", shot: true, source: .movieHeader)),
            clip("Music/voice.m4a", try SampleVideo.soundOnly(), Expected(day: nil), video: false),
            clip(cutMOVPath, Array(iPhone.prefix(iPhone.count / 2)), Expected(day: "2018-06-01", source: .fileModificationTime)),
            clip("Damaged/empty.mov", [], Expected(day: "2018-06-01", source: .fileModificationTime)),
        ]
    }

    /// The items being written, and the plain 96x64 JPEG and 64x128 PNG most of them are made from.
    struct Builder {
        let photo: [UInt8]
        let screen: [UInt8]
        var items: [SampleItem] = []

        /// `image` (default: the plain photo) with XMP and then EXIF put right after SOI.
        func jpeg(_ exif: SampleExif?, image: [UInt8]? = nil, xmp: [(String, String)] = []) -> [UInt8] {
            var out = image ?? photo
            if !xmp.isEmpty { out = SampleJPEG.insertingAPP1(SampleXMP.xmpAPP1(SampleXMP.xmpPacket(xmp)), into: out) }
            if let exif { out = SampleJPEG.insertingAPP1(exif.payload(), into: out) }
            return out
        }

        mutating func add(_ path: String, _ bytes: [UInt8], _ expected: Expected, mtime: Int64 = defaultMtime) {
            items.append(SampleItem(path: path, bytes: bytes, mtime: mtime, expectedDay: expected.day, expectedScreenshot: expected.shot,
                                    expectedDateSource: expected.source, expectedCaptureTime: expected.time))
        }
    }

    /// What albumfs should make of a sample file (`SampleItem`'s `expected…`): the day folder it
    /// lands in (nil: not a photo), whether it is a screenshot, the rule that dates it, and the
    /// capture time it states.
    struct Expected {
        var day: String?
        var shot = false
        var source: DateSource?
        var time: String?
    }

    /// Camera and phone JPEGs: several makers, both byte orders, all eight orientations.
    static func cameras(_ b: inout Builder) throws(EncodeError) {
        // Cameras and phones.
        b.add("DCIM/100CANON/IMG_0001.JPG", b.jpeg(.camera("Canon", "Canon EOS 5D Mark IV", ExifTime("2023:07:14 18:22:05", subSec: "50"),
                                                       order: .motorola)),
            Expected(day: "2023-07-14", source: .exifDateTimeOriginal))
        b.add("DCIM/100CANON/IMG_0002.JPG", b.jpeg(.camera("Canon", "Canon EOS 5D Mark IV", "2023:07:14 18:25:00",
                                                       order: .motorola, orientation: 6)),
            Expected(day: "2023-07-14", source: .exifDateTimeOriginal))
        b.add("Trip/IMG_0001.JPG", b.jpeg(.camera("Canon", "Canon EOS R6", "2023:07:14 09:00:00")),
            Expected(day: "2023-07-14", source: .exifDateTimeOriginal))
        b.add("DCIM/Camera/PXL_20240517_120304567.jpg",
            b.jpeg(.camera("Google", "Pixel 8", ExifTime("2024:05:17 14:03:04", subSec: "567", offset: "+02:00"))),
            Expected(day: "2024-05-17", source: .exifDateTimeOriginal, time: "2024-05-17T14:03:04.567+02:00"))
        b.add("DCIM/Camera/20240517_090000.jpg",
            b.jpeg(.camera("samsung", "SM-G991B", ExifTime("2024:05:17 09:00:00", offset: "+09:00"))),
            Expected(day: "2024-05-17", source: .exifDateTimeOriginal))
        b.add("iPhone/IMG_1234.JPG",
            b.jpeg(.camera("Apple", "iPhone 15 Pro", ExifTime("2024:05:18 08:30:00", subSec: "120", offset: "-07:00"), order: .motorola)),
            Expected(day: "2024-05-18", source: .exifDateTimeOriginal))
        b.add("Sony/DSC01234.JPG", b.jpeg(.camera("SONY", "ILCE-7M3", "2021:12:31 23:59:59")),
            Expected(day: "2021-12-31", source: .exifDateTimeOriginal))
        b.add("Fuji/DSCF0001.JPG", b.jpeg(.camera("FUJIFILM", "X-T4", "2021:01:01 00:00:01")),
            Expected(day: "2021-01-01", source: .exifDateTimeOriginal))
        b.add("Nikon/DSC_0001.JPG", b.jpeg(.camera("NIKON CORPORATION", "NIKON D750", "2020:02:29 12:00:00", order: .motorola)),
            Expected(day: "2020-02-29", source: .exifDateTimeOriginal))
        for o in 1...8 {
            let image = try SampleJPEG.jpeg(SampleImage.marker(width: 96, height: 64).stored(forOrientation: o))
            b.add("Orientation/orient-\(o).jpg",
                b.jpeg(.camera("Apple", "iPhone 12", ExifTime("2022:03:0\(o) 10:00:00", offset: "+01:00"), orientation: UInt16(o)),
                     image: image),
                Expected(day: "2022-03-0\(o)", source: .exifDateTimeOriginal))
        }
        b.items += try phoneItems(b.photo)
        // On 2024-05-19 (`heicDay`); not a photo with `-o heif=off`.
        b.add(heicPath, try iPhoneHEIC.get(), Expected(day: "2024-05-19", source: .exifDateTimeOriginal, time: "2024-05-19T07:45:00-07:00"))

    }

    /// Screenshots as phones and desktops write them, and photos that only look like them.
    static func screenshots(_ b: inout Builder) throws(EncodeError) {
        // Screenshots.
        let screen = b.screen
        let iosXMP = SampleXMP.xmpPacket([("photoshop:DateCreated", "2024-05-18T09:00:00-07:00"), ("exif:UserComment", "Screenshot")])
        b.add("iPhone/IMG_1300.PNG", SamplePNG.insertingChunk("iTXt", SamplePNG.iTextChunk("XML:com.adobe.xmp", iosXMP), into: screen),
            Expected(day: "2024-05-18", shot: true, source: .xmpDateCreated))
        b.add("Pictures/Screenshots/Screenshot_20201215-090626.png", screen, Expected(day: "2020-12-15", shot: true, source: .fileName))
        b.add("Pictures/Screenshot 2023-01-05 at 12.34.56.png", screen, Expected(day: "2023-01-05", shot: true, source: .fileName))
        b.add("Pictures/Screenshot From 2017-05-21 12-24-03.png",
            SamplePNG.insertingChunk("tEXt", SamplePNG.textChunk("Software", "gnome-screenshot"), into: screen),
            Expected(day: "2017-05-21", shot: true, source: .fileName))
        b.add("Pictures/Bildschirmfoto vom 2022-03-01 um 10.00.00.png", screen, Expected(day: "2022-03-01", shot: true, source: .fileName))
        b.add("Pictures/Screenshots/clip.png", screen, Expected(day: "2018-06-01", shot: true, source: .fileModificationTime))
        // macOS in French (a curly apostrophe, the date and time around "à"): dated by the generic
        // screenshot-name rule, not by a pattern.
        b.add("Pictures/Capture d\u{2019}écran 2021-11-03 à 16.20.05.png", screen, Expected(day: "2021-11-03", shot: true, source: .fileName))
        var android = SampleExif()
        android.software = "Android UP1A.231005.007"
        b.add("DCIM/Screenshots/Screenshot_20230301-101010_Chrome.jpg", b.jpeg(android), Expected(day: "2023-03-01", shot: true, source: .fileName))
        var androidNoName = SampleExif()
        androidNoName.software = "Android TP1A.220624.014"
        androidNoName.dateTimeOriginal = "2023:03:02 08:00:00"
        b.add("Downloads/shot-42.jpg", b.jpeg(androidNoName), Expected(day: "2023-03-02", shot: true, source: .exifDateTimeOriginal))
        // A macOS-style comment, compressed (zTXt), on a name that says nothing.
        b.add("Pictures/capture.png", SamplePNG.insertingChunk("zTXt", SamplePNG.compressedTextChunk("Comment", "Screenshot"), into: screen),
            Expected(day: "2018-06-01", shot: true, source: .fileModificationTime))
        b.add("Wallpapers/screenshot.jpg", b.jpeg(.camera("Canon", "Canon EOS 80D", "2019:08:01 07:00:00")),
            Expected(day: "2019-08-01", shot: false, source: .exifDateTimeOriginal))
        b.add("Wallpapers/Screenshots/lake.jpg", b.jpeg(.camera("Canon", "Canon EOS 80D", "2019:08:02 07:00:00")),
            Expected(day: "2019-08-02", shot: false, source: .exifDateTimeOriginal))
    }

    /// Damaged and odd files.
    static func edgeCases(_ b: inout Builder) throws(EncodeError) {
        let screen = b.screen
        // Damaged and odd files.
        b.add("Edge/no-exif.jpg", b.photo, Expected(day: "2018-06-01", source: .fileModificationTime))
        b.add("Edge/IMG_20190704_101112.jpg", b.photo, Expected(day: "2019-07-04", source: .fileName))
        b.add("Edge/corrupt-exif.jpg", SampleJPEG.insertingAPP1(Array("Exif\0\0MM\0*\u{7F}\u{FF}\u{FF}\u{FF}garbage".utf8), into: b.photo),
            Expected(day: "2018-06-01", source: .fileModificationTime))
        b.add("Edge/empty.jpg", [], Expected(day: "2018-06-01", source: .fileModificationTime))
        let truncated = b.jpeg(.camera("Canon", "Canon EOS 5D", "2017:04:01 10:00:00"))
        b.add(truncatedJPEGPath, Array(truncated.prefix(truncated.count - b.photo.count + 40)),
            Expected(day: "2017-04-01", source: .exifDateTimeOriginal))
        // ImageMagick's `convert` of a camera JPEG: its EXIF is after the image data.
        b.add("Downloads/export.png", SamplePNG.appendingChunk("eXIf", Array(SampleExif.camera("NIKON CORPORATION", "NIKON Z 6",
                                                                                             "2015:03:04 05:06:07").payload().dropFirst(6)), to: screen),
            Expected(day: "2015-03-04", source: .exifDateTimeOriginal))
        // A JPEG with no extension at all (shown as `mongolia.jpg`).
        b.add("Edge/mongolia", b.jpeg(.camera("Canon", "Canon EOS 5D", "2014:07:08 09:10:11")),
            Expected(day: "2014-07-08", source: .exifDateTimeOriginal))
        // `.jpe`, as old cameras and Windows exports named JPEGs.
        b.add("Edge/P1010001.JPE", b.jpeg(.camera("Panasonic", "DMC-FZ8", "2008:08:08 08:08:08")),
            Expected(day: "2008-08-08", source: .exifDateTimeOriginal))
        b.add("Edge/png-named.jpeg", screen, Expected(day: "2018-06-01", source: .fileModificationTime))
        b.add("Edge/jpeg-named.png", b.jpeg(.camera("Canon", "Canon EOS 5D", "2016:02:03 04:05:06")),
            Expected(day: "2016-02-03", source: .exifDateTimeOriginal))
        var sentinel = SampleExif()
        sentinel.dateTimeOriginal = "0000:00:00 00:00:00"
        sentinel.dateTimeDigitized = "2002:12:08 12:00:00"
        // (No IFD0 DateTime: the mtime dates it, after its refused dates.)
        sentinel.dateTime = nil
        b.add("Edge/sentinel.jpg", b.jpeg(sentinel), Expected(day: "2018-06-01", source: .fileModificationTime))
        var blank = SampleExif()
        blank.dateTimeOriginal = "    :  :     :  :  "
        blank.dateTimeDigitized = "2016:10:10 10:10:10"
        b.add("Edge/blank-date.jpg", b.jpeg(blank), Expected(day: "2016-10-10", source: .exifDateTimeDigitized))
        var future = SampleExif()
        future.dateTimeOriginal = "2099:01:01 00:00:00"
        future.dateTime = nil
        b.add("Edge/future.jpg", b.jpeg(future), Expected(day: "2018-06-01", source: .fileModificationTime))
        b.add("Edge/xmp-only.jpg", b.jpeg(nil, xmp: [("photoshop:DateCreated", "2015-05-05T05:05:05+05:30")]),
            Expected(day: "2015-05-05", source: .xmpDateCreated))
        b.add("Edge/notes.txt", Array("not a b.photo\n".utf8), Expected(day: nil))
        b.add(".hidden/IMG_9999.JPG", b.photo, Expected(day: nil))
        b.add("@eaDir/IMG_0001.JPG/SYNOPHOTO_THUMB_M.jpg", b.photo, Expected(day: nil))
    }

    /// Photos laid out as phones and cameras lay them out rather than as the plainest writer
    /// would: EXIF after a JFIF or ICC segment, tags out of order with gaps between the IFDs, an
    /// IFD1 thumbnail, a GPS IFD, Apple, Samsung and Nikon maker notes, offsets written `+HHMM`
    /// and `+HH` or missing (then taken from GPS time), a motion photo's video after the image,
    /// and mtimes of their own.
    static func phoneItems(_ photo: [UInt8]) throws(EncodeError) -> [SampleItem] {
        let preview = try SampleJPEG.jpeg(.marker(width: 48, height: 32))
        var pixel = SampleExif.camera("Google", "Pixel 8 Pro", ExifTime("2023:10:10 08:15:00", subSec: "123", offset: "+0100"))
        pixel.gpsUTC = ("2023:10:10", 7, 15, 0)
        pixel.thumbnail = preview
        pixel.layout = ExifWriter.Layout(reversedTags: true, gap: 6)
        let pixelStill = SampleJPEG.insertingAPP1(pixel.payload(), into: photo, afterLeadingSegments: 1)
        var iPhone = SampleExif.camera("Apple", "iPhone 16 Pro", ExifTime("2023:10:11 23:30:10", subSec: "045"), order: .motorola)
        iPhone.gpsUTC = ("2023:10:12", 4, 30, 0)
        iPhone.makerNote = .apple(mediaGroup: "6A1C5E9B-3F4D-4C2A-9E8B-1D2F3A4B5C6D")
        iPhone.thumbnail = preview
        let withICC = SampleJPEG.insertingICCProfile(SampleICC.iccProfile(description: "Display P3"), into: photo)
        var samsung = SampleExif.camera("samsung", "Galaxy S24", ExifTime("2023:10:12 10:10:10", offset: "+09"))
        samsung.makerNote = .samsung
        samsung.layout = ExifWriter.Layout(gap: 4)
        var nikon = SampleExif.camera("NIKON CORPORATION", "NIKON Z 8", "2020:03:01 08:00:00", order: .motorola)
        nikon.makerNote = .nikon
        nikon.thumbnail = preview
        nikon.layout = ExifWriter.Layout(gap: 10)
        func item(_ path: String, _ bytes: [UInt8], day: String, mtime: Int64, time: String) -> SampleItem {
            SampleItem(path: path, bytes: bytes, mtime: mtime, expectedDay: day, expectedScreenshot: false,
                       expectedDateSource: .exifDateTimeOriginal, expectedCaptureTime: time)
        }
        var motion = item(motionPhotoPath, SampleMotionPhoto.motionPhoto(pixelStill, video: try motionClip.get(), layout: .googleContainer),
                          day: "2023-10-10", mtime: 1_696_922_101, time: "2023-10-10T08:15:00.123+01:00")
        motion.expectedMotionVideo = try motionClip.get()
        motion.expectedPlace = eiffelTowerPlace
        var iPhoneItem = item("Phone/IMG_5001.JPG", SampleJPEG.insertingAPP1(iPhone.payload(), into: withICC, afterLeadingSegments: 1),
                              day: "2023-10-11", mtime: 1_697_081_412, time: "2023-10-11T23:30:10.045-05:00")
        iPhoneItem.expectedPlace = eiffelTowerPlace
        return [
            motion,
            iPhoneItem,
            item("Phone/20231012_101010.jpg", SampleJPEG.insertingAPP1(samsung.payload(), into: photo),
                 day: "2023-10-12", mtime: 1_697_073_011, time: "2023-10-12T10:10:10+09:00"),
            item("Nikon/DSC_0002.JPG", SampleJPEG.insertingAPP1(nikon.payload(), into: photo),
                 day: "2020-03-01", mtime: 1_583_060_000, time: "2020-03-01T08:00:00"),
        ]
    }

    /// The sample's Pixel motion photo (Google's container layout), and its video: 5 frames of
    /// 96x64 at 10 a second in MP4, as Android phones write it. Encoded once per process.
    public static let motionPhotoPath = "Phone/PXL_20231010_081500123.MP.jpg"
    public static let motionClip = Result { () throws(EncodeError) in
        try SampleVideo.video(SampleImage.marker(width: 96, height: 64, tint: 90), container: .mp4)
    }

    /// A video item (`video` false: a still beside videos).
    static func clip(_ path: String, _ bytes: [UInt8], _ expected: Expected, partner: String? = nil, video: Bool = true) -> SampleItem {
        SampleItem(path: path, bytes: bytes, mtime: defaultMtime, expectedDay: expected.day, expectedScreenshot: expected.shot,
                   expectedDateSource: expected.source, expectedCaptureTime: expected.time, expectedVideo: video, expectedLivePartner: partner)
    }

    /// Writes the sample library into `folder` (created if missing) and returns what it wrote.
    @discardableResult
    public static func write(to folder: String) throws -> [SampleItem] {
        let items = try items()
        for item in items {
            try writeFile(folder + "/" + item.path, item.bytes, mtime: item.mtime)
        }
        // A link loop and a link out of the library: neither may be followed.
        try? FileManager.default.removeItem(atPath: folder + "/Edge/loop")
        try? FileManager.default.removeItem(atPath: folder + "/Edge/outside")
        try FileManager.default.createSymbolicLink(atPath: folder + "/Edge/loop", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: folder + "/Edge/outside", withDestinationPath: "/usr/share")
        return items
    }

    static func pad2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    public static func writeFile(_ path: String, _ bytes: [UInt8], mtime: Int64) throws {
        let dir = path.folderBeforeLastSlash
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw EncodeError(description: "cannot write \(path): \(Errno.current)")
        }
        var times = [timespec(tv_sec: Int(mtime), tv_nsec: 0), timespec(tv_sec: Int(mtime), tv_nsec: 0)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else {
            throw EncodeError(description: "cannot set mtime of \(path): \(Errno.current)")
        }
    }
}
