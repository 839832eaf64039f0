/// The formats of a library's photos and videos, recognised by content.
///
/// Cases are added at the end: the raw value is what an index stores, and the position what a
/// views snapshot and a render request carry.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
    /// HEIF images: HEIC (iPhones since 2017, many Android phones and cameras' `.HIF`), AVIF.
    case heif
    /// Videos in ISO base media files: QuickTime (`.MOV`), MP4, M4V, 3GP.
    case video
    /// WebP, lossy or lossless, still or animated (Android screenshots, messaging apps).
    case webp
    /// GIF, still or animated (downloads, messaging apps): its first image.
    case gif
    /// TIFF (scans, editors' exports): its first image. Camera RAWs built on TIFF are not.
    case tiff
    /// JPEG XL, bare codestream or container (cameras, editors' and browsers' exports).
    case jxl
    /// Camera RAW (DNG, CR2, CR3, NEF, ARW, ORF, RAF, RW2, PEF, SRW): dated from its own EXIF,
    /// shown through its embedded preview, made upright by the render (LibRaw's `flip`).
    case raw

    /// Whether the file is a still image (`screenshots/` and `non-screenshots/` list stills only).
    /// One bit of its own, for sets of formats asked once a file (`ScanRules.shows`).
    public var bit: UInt16 {
        switch self {
        case .jpeg: 1 << 0
        case .png: 1 << 1
        case .heif: 1 << 2
        case .video: 1 << 3
        case .webp: 1 << 4
        case .gif: 1 << 5
        case .tiff: 1 << 6
        case .jxl: 1 << 7
        case .raw: 1 << 8
        }
    }

    public var isStill: Bool { self != .video }

    /// Whether the image comes out of its decoder upright, so that its EXIF Orientation must not
    /// be applied: HEIF's rotation and mirror (`irot`, `imir`) are part of the image, which libheif
    /// applies, and the EXIF Orientation such files also carry (iPhones write both) only repeats
    /// them: applying both would turn the photo twice. (ISO/IEC 23008-12 makes the boxes the ones
    /// that count; Apple, libvips and browsers read it so.) JPEG XL's orientation is in its
    /// codestream, which libjxl applies; an `Exif` box's Orientation is to be ignored (ISO/IEC
    /// 18181-2). A camera RAW is turned by its render (LibRaw's `flip`).
    public var decodesUpright: Bool { self == .heif || self == .jxl || self == .raw }

    /// Whether a sidecar's dates beat the file's own. MWG's guidelines make an XMP sidecar the
    /// place a RAW's edits and corrections live (the RAW itself is never rewritten), while a
    /// JPEG's, HEIF's or PNG's embedded EXIF is the capture record and beats any sidecar.
    public var sidecarDatesWin: Bool { self == .raw }

    /// The extensions a file of this format is named with (lowercase, without the dot); the first
    /// is the one the views give a file named otherwise.
    public var extensions: [String] {
        switch self {
        case .jpeg: Self.jpegExtensions
        case .png: Self.pngExtensions
        case .heif: Self.heifExtensions
        case .video: Self.videoExtensions
        case .webp: Self.webpExtensions
        case .gif: Self.gifExtensions
        case .tiff: Self.tiffExtensions
        case .jxl: Self.jxlExtensions
        case .raw: Self.rawExtensions
        }
    }
    // (Made once: every name in a listing asks.)
    private static let jpegExtensions = ["jpg", "jpeg", "jpe", "jfif"]
    private static let pngExtensions = ["png"]
    private static let heifExtensions = ["heic", "heif", "hif", "avif"]
    private static let videoExtensions = ["mp4", "mov", "m4v", "3gp", "3g2"]
    private static let webpExtensions = ["webp"]
    private static let gifExtensions = ["gif"]
    private static let tiffExtensions = ["tif", "tiff"]
    private static let jxlExtensions = ["jxl"]
    public static let rawExtensions = ["dng", "cr2", "cr3", "nef", "nrw", "arw", "srf", "sr2", "orf", "raf", "rw2", "pef", "srw"]
}
