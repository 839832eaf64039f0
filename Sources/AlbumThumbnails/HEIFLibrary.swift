import CHeif
import Glibc

/// libheif, set up once for the process (`heif_init`, never undone) before any context is made:
/// left to `heif_context_alloc`, the setup of its codecs would run unguarded in two threads that
/// start at once. Every user of libheif (renders here, the sample's encoder) asks it first.
public enum HEIFLibrary {
    /// Nil once libheif is ready; else why not, in its words. (A `static let` is initialised once,
    /// whichever thread comes first.)
    public static let setupFailure: String? = {
        // Loaded here, on first use (CHeif.h says why): a library missing says so, no crash.
        if let failure = albumfs_heif_load() { return String(cString: failure) }
        let result = heif_init(nil)
        return result.code == heif_error_Ok ? nil : result.message.map { String(cString: $0) } ?? "error \(result.code.rawValue)"
    }()

    /// The oldest libheif that reads recent iPhones' HEICs: 1.15 refuses them ("Too many
    /// auxiliary image references", "Metadata not correctly assigned to image").
    public static let neededVersion = (major: 1, minor: 19)

    /// The loaded libheif's version (`1.19.7`), nil when it cannot be loaded.
    public static var version: String? {
        guard setupFailure == nil, let text = heif_get_version() else { return nil }
        return String(cString: text)
    }

    /// What to tell the user about the libheif loaded: nil when it is recent enough; else why
    /// HEIC images may show no thumbnail and how to get a newer one.
    public static func versionWarning(installHint: String) -> String? {
        if let setupFailure { return "libheif cannot be loaded (\(setupFailure)): HEIC and AVIF images get no thumbnail; \(installHint)" }
        guard let version, !isRecentEnough(version) else { return nil }
        return "libheif \(version) is older than \(neededVersion.major).\(neededVersion.minor), which recent iPhones' HEICs need: some HEIC images may get no thumbnail; \(installHint)"
    }

    /// The HEVC decoder a decode asks for by name: FFmpeg's (libheif's `ffmpegdec` plugin, from
    /// Debian's libheif-plugin-ffmpegdec) when libheif has it, which decodes the same pixels as
    /// libde265 (libheif's default) for a quarter less work (docs/benchmarks.md); else nil, and
    /// libheif picks. An AV1 image asked for with it is decoded by libheif's AV1 decoder (libheif
    /// passes over a named decoder that cannot decode the format: `testAnAVIFIsAHEIFImageToo`).
    /// (`nonisolated(unsafe)`: a string literal's address, never written.)
    nonisolated(unsafe) static let hevcDecoder: UnsafePointer<CChar>? = {
        guard setupFailure == nil, albumfs_heif_has_tiles() != 0 else { return nil }
        let count = Int(heif_get_decoder_descriptors(heif_compression_HEVC, nil, 0))
        guard count > 0 else { return nil }
        var decoders = [OpaquePointer?](repeating: nil, count: count)
        let listed = Int(heif_get_decoder_descriptors(heif_compression_HEVC, &decoders, Int32(count)))
        let ffmpeg: StaticString = "ffmpeg"
        let names = decoders.prefix(max(0, min(listed, count))).compactMap { $0.flatMap(heif_decoder_descriptor_get_id_name) }
        guard names.contains(where: { strcmp($0, "ffmpeg") == 0 }) else { return nil }
        return UnsafeRawPointer(ffmpeg.utf8Start).assumingMemoryBound(to: CChar.self)
    }()

    /// Whether a libheif version string (`1.19.7`) is `neededVersion` or newer.
    public static func isRecentEnough(_ version: String) -> Bool {
        let parts = version.split(separator: ".").map { Int($0) ?? 0 }
        let major = parts.first ?? 0, minor = parts.count > 1 ? parts[1] : 0
        return (major, minor) >= (neededVersion.major, neededVersion.minor)
    }
}
