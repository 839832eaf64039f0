/// Everything the metadata reader found in one file, as raw as it was written.
///
/// The rules (`CaptureDateRules`, `ScreenshotRules`) turn evidence into decisions; keeping the raw
/// strings here lets every decision say exactly which value it used or rejected.
public struct PhotoEvidence: Sendable, Equatable {
    public var dateTimeOriginal: String?
    public var subSecTimeOriginal: String?
    public var offsetTimeOriginal: String?
    public var dateTimeDigitized: String?
    public var subSecTimeDigitized: String?
    public var offsetTimeDigitized: String?
    /// IFD0 `DateTime` (0x0132): when the file was last written, by the device or by an editor.
    public var dateTime: String?
    /// `OffsetTime` (0x9010): the UTC offset of `dateTime`.
    public var offsetTime: String?
    public var xmpDateCreated: String?
    public var xmpDateTimeOriginal: String?
    /// XMP `xmp:CreateDate` (videos' editors and cameras write it).
    public var xmpCreateDate: String?
    /// A QuickTime file's `com.apple.quicktime.creationdate` (Keys metadata: local time with its
    /// zone, `2023-06-15T14:20:11-0700`), as iPhones and macOS write it.
    public var quickTimeCreationDate: String?
    /// A QuickTime/MP4 movie header's (`mvhd`) creation time: seconds since 1904-01-01 UTC
    /// (nil when 0, "not set").
    public var movieCreationTime: Int64?
    /// Apple's content identifier: the same in a Live Photo's still (MakerNote tag 0x0011) and
    /// its video (`com.apple.quicktime.content.identifier`).
    public var contentIdentifier: String?
    public var make: String?
    public var model: String?
    /// XMP `xmp:Rating` as written (`-1` rejected, `0` not rated, `1`–`5` stars).
    public var xmpRating: String?
    /// EXIF IFD0 `Rating` (0x4746), 0–5.
    public var exifRating: Int?
    /// The tags that tell its kind (`MediaKindRules`): panorama, portrait, selfie, burst, slow motion.
    public var kinds = KindEvidence()
    public var software: String?
    /// The GPS fix's UTC time, `YYYY:MM:DD HH:MM:SS` (GPSDateStamp + GPSTimeStamp): it gives the
    /// UTC offset of a capture time that has none.
    public var gpsDateTimeUTC: String?
    /// The GPS position, degrees north and east (`GPSLatitude` with `GPSLatitudeRef`, ...), as
    /// written: nil when a value or its reference letter is missing (`PlacePosition` refuses
    /// what names no place).
    public var gpsLatitude: Double?
    public var gpsLongitude: Double?
    /// ExposureTime, FNumber or ISO present: the marks of a real camera exposure.
    public var hasExposureData = false
    public var userComment: String?
    public var xmpUserComment: String?
    /// PNG `tEXt`/`iTXt` `Software`.
    public var pngSoftware: String?
    /// A PNG text `Comment`, else `Description`, of at most `pngCommentLimit` bytes (macOS and some
    /// tools write `Screenshot` there); longer ones are not kept: a caption or a licence can run
    /// to kilobytes per file in the index, and no rule reads one.
    public var pngComment: String?
    public static let pngCommentLimit = 64
    /// EXIF Orientation as written (1–8 are meaningful; anything else is treated as 1).
    public var orientation: Int?
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    /// What went wrong while reading (corrupt EXIF, truncated file); the photo stays listed.
    public var problems: [String] = []
    /// The file's owner and mode when read (`fstat`, not its content: kept with the rest, since a
    /// change to either moves the ctime and the file is read again).
    public var access: FileAccess?
    /// What a sidecar beside the file says (XMP, Google Takeout's JSON), if there is one.
    public var sidecar: SidecarEvidence?
    /// An Android motion photo's video: where it lies in the file (`MotionPhoto` in
    /// AlbumMetadata found it and checked it starts with an `ftyp` box).
    public var motionVideo: ByteRange?

    public init() {}

    /// Whether the file carries real camera EXIF: a maker or model together with exposure data.
    public var hasCameraEvidence: Bool {
        let named = !(make?.trimmedValue.isEmpty ?? true) || !(model?.trimmedValue.isEmpty ?? true)
        return named && hasExposureData
    }
}

extension String {
    /// The value without the blanks and NULs that EXIF writers pad strings with.
    public var trimmedValue: String { String(DateParsing.trimmed(self)) }
}

/// The problems that leave nothing to render: a file with no image or video in it at all. Such a
/// photo stays listed among the originals (the damage shows) but gets no thumbnail entry, which
/// could only fail: file managers and archivers would meet an unreadable file.
public enum Unrenderable {
    public static let empty = "empty file"
    public static let tooShort = "too short to be an image"
    public static let noMovie = "no movie box (moov): cut short?"
    /// A JPEG or PNG header cut before its frame header or image data, a JPEG XL codestream cut
    /// short or missing: nothing decodes. (A
    /// HEIF file's or a video's boxes may be cut after the image they hold.)
    public static let headerTruncated = "header truncated"
    /// A HEIF file without a primary image, or whose image data `iloc` places past its end.
    public static let noImageData = "no image data (cut short, or metadata only)"
    /// A video whose first video sample `stco`/`co64` places past the file's end.
    public static let samplesPastEnd = "video samples past the end of the file: cut short?"

    static let always: Set<String> = [empty, tooShort, noMovie, noImageData, samplesPastEnd]

    /// Whether a photo with `problems` has nothing to render.
    public static func any(_ problems: [String], format: ImageFormat) -> Bool {
        problems.contains { always.contains($0) || ($0 == headerTruncated && [.jpeg, .png, .jxl].contains(format)) }
    }
}

/// A part of a file: `length` bytes from `offset`.
public struct ByteRange: Sendable, Hashable {
    public var offset: Int64
    public var length: Int64
    public init(offset: Int64, length: Int64) {
        self.offset = offset
        self.length = length
    }
}
