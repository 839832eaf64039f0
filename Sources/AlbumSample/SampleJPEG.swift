import FoundationEssentials
import Glibc
import CJPEGStream
import CTurboJPEG

/// JPEG encoding for fixtures (TurboJPEG, and libjpeg for restart markers), and the segments
/// cameras, phones and editors add to a JPEG.
public enum SampleJPEG {
    /// The JPEG flavours real libraries hold.
    public enum JPEGKind: String, CaseIterable, Sendable {
        case baseline, progressive, grayscale
        /// Adobe-style inverted CMYK, stored as YCCK.
        case cmyk
    }

    /// Encodes a JPEG (4:2:0 unless grayscale). The corresponding C function is `tjCompress2`.
    public static func jpeg(_ image: SampleImage, quality: Int32 = 85, kind: JPEGKind = .baseline) throws(EncodeError) -> [UInt8] {
        guard let handle = tjInitCompress() else { throw EncodeError(description: "tjInitCompress failed") }
        defer { tjDestroy(handle) }
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var pixels = image.pixels
        var format = TJPF_RGB, channels = 3
        if kind == .cmyk {
            // Inverted CMYK with no black ink: the stored C, M, Y are the R, G, B values, K = 255.
            pixels = SampleImage.expand(image.pixels, fourth: 255)
            format = TJPF_CMYK
            channels = 4
        }
        let sampling = kind == .grayscale ? TJSAMP_GRAY : TJSAMP_420
        let flags = kind == .progressive ? TJFLAG_PROGRESSIVE : 0
        let rc = pixels.withUnsafeBufferPointer { px in
            tjCompress2(handle, px.baseAddress, Int32(image.width), Int32(image.width * channels), Int32(image.height),
                        Int32(format.rawValue), &out, &size, Int32(sampling.rawValue), quality, Int32(flags))
        }
        defer { tjFree(out) }
        guard rc == 0, let out else {
            throw EncodeError(description: "tjCompress2: " + String(cString: tjGetErrorStr2(handle)))
        }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// Where a JPEG's restart markers go (`jpegWithRestarts`).
    public enum RestartInterval: Sendable {
        /// Every `n` MCU rows (`cjpeg -restart n`).
        case rows(Int)
        /// Every `n` MCUs (`cjpeg -restart nB`), wherever that falls in a row.
        case mcus(Int)
    }

    /// Encodes a baseline 4:2:0 JPEG with restart markers, as Samsung's phones, Photoshop and
    /// many cameras write them. The corresponding C function is `jpeg_start_compress` (libjpeg's
    /// `restart_in_rows` and `restart_interval`).
    public static func jpegWithRestarts(_ image: SampleImage, quality: Int32 = 85, every interval: RestartInterval) throws(EncodeError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: 200)
        let (rows, mcus): (Int32, UInt32) = switch interval {
        case .rows(let n): (Int32(n), 0)
        case .mcus(let n): (0, UInt32(n))
        }
        let rc = image.pixels.withUnsafeBufferPointer { px in
            albumfs_jpeg_encode_restarts(px.baseAddress, UInt32(image.width), UInt32(image.height), quality, rows, mcus, &out, &size, &message)
        }
        defer { free(out) }
        guard rc == 0, let out else { throw EncodeError(description: "libjpeg: " + String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// `jpeg` with its first scan naming Huffman tables 3 for every component, which it never
    /// defines: the header is whole, the decode fails (libjpeg: "Huffman table 0x03 was not defined").
    public static func withUndefinedHuffmanTables(_ jpeg: [UInt8]) -> [UInt8] {
        var bytes = jpeg
        guard let sos = (2..<bytes.count - 1).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }), sos + 5 < bytes.count else { return bytes }
        // FF DA, the length, the component count, then each component's id and its two tables.
        for c in 0..<Int(bytes[sos + 4]) where sos + 6 + 2 * c < bytes.count { bytes[sos + 6 + 2 * c] = 0x33 }
        return bytes
    }

    /// Puts an APP1 segment (EXIF or XMP) right after SOI, where cameras write it.
    public static func insertingAPP1(_ payload: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
    }

    /// Puts an APP1 segment after the first `leading` segments (a JFIF APP0 the encoder wrote,
    /// an ICC profile): where editors and some phones put EXIF.
    public static func insertingAPP1(_ payload: [UInt8], into jpeg: [UInt8], afterLeadingSegments leading: Int) -> [UInt8] {
        var at = 2
        for _ in 0..<leading where at + 4 <= jpeg.count && jpeg[at] == 0xFF {
            at += 2 + Int(jpeg[at + 2]) << 8 + Int(jpeg[at + 3])
        }
        let length = payload.count + 2
        return Array(jpeg[0..<at]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[at...])
    }

    /// Puts an ICC profile (one APP2 `ICC_PROFILE` segment, so at most 65,519 bytes) right after
    /// SOI.
    public static func insertingICCProfile(_ profile: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        precondition(profile.count <= 65_519, "one segment only")
        let length = 2 + 14 + profile.count
        return Array(jpeg[0..<2]) + [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE".utf8)
            + [0, 1, 1] + profile + Array(jpeg[2...])
    }

    /// A camera-style JPEG with an MPF (CIPA DC-007) "large thumbnail": an APP2 `MPF` segment
    /// right after SOI whose MP Entry table points at `preview`, appended after the main image.
    /// `type` is the MP type code of the appended image: 0x010001 a large thumbnail (VGA), as
    /// cameras write; 0x000000 (undefined) what an Ultra HDR or iPhone HDR photo's gain map is.
    public static func withMPFPreview(_ main: [UInt8], preview: [UInt8], type: Int = 0x010001) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16 & 0xFFFF) }
        // TIFF (little-endian): header, an IFD of 3 entries, then the two 16-byte MP entries.
        let entriesAt = 8 + 2 + 3 * 12 + 4
        let tiffLength = entriesAt + 32
        let segmentLength = 2 + 4 + tiffLength
        let tiffStart = 2 + 4 + 4  // SOI, APP2 marker and length, "MPF\0"
        let mainTotal = main.count + 2 + segmentLength
        var tiff: [UInt8] = [0x49, 0x49, 42, 0] + u32(8) + u16(3)
        tiff += u16(0xB000) + u16(7) + u32(4) + Array("0100".utf8)
        tiff += u16(0xB001) + u16(4) + u32(1) + u32(2)
        tiff += u16(0xB002) + u16(7) + u32(32) + u32(entriesAt)
        tiff += u32(0)
        tiff += u32(0x030000) + u32(mainTotal) + u32(0) + u16(0) + u16(0)
        tiff += u32(type) + u32(preview.count) + u32(mainTotal - tiffStart) + u16(0) + u16(0)
        let segment = [0xFF, 0xE2, UInt8(segmentLength >> 8), UInt8(segmentLength & 0xFF)] + Array("MPF\0".utf8) + tiff
        return Array(main[0..<2]) + segment + Array(main[2...]) + preview
    }
}
