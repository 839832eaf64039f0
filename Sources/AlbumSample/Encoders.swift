import AlbumCore
import AlbumThumbnails
import FoundationEssentials
import Glibc
import CJPEGStream
import CTurboJPEG

/// Why a fixture could not be encoded.
public struct EncodeError: Error, CustomStringConvertible {
    public let description: String
}

/// JPEG and PNG encoding for fixtures (TurboJPEG and libjpeg here, libpng in Encoders+PNG.swift),
/// plus the segment and chunk insertion that cameras and screenshot tools do.
public enum Encoders {
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
            pixels = expand(image.pixels, fourth: 255)
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

    /// Puts an APP1 segment (EXIF or XMP) right after SOI, where cameras write it.
    /// `jpeg` with its first scan naming Huffman tables 3 for every component, which it never
    /// defines: the header is whole, the decode fails (libjpeg: "Huffman table 0x03 was not defined").
    public static func withUndefinedHuffmanTables(_ jpeg: [UInt8]) -> [UInt8] {
        var bytes = jpeg
        guard let sos = (2..<bytes.count - 1).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }), sos + 5 < bytes.count else { return bytes }
        // FF DA, the length, the component count, then each component's id and its two tables.
        for c in 0..<Int(bytes[sos + 4]) where sos + 6 + 2 * c < bytes.count { bytes[sos + 6 + 2 * c] = 0x33 }
        return bytes
    }

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

    /// An ISO base media stream of `length` bytes (at least 40): an `ftyp` box (`isom`) and an
    /// `mdat` box of filler. It stands where a phone's video is, for readers that must step over
    /// it and copies that must keep it; it does not play.
    public static func isoMediaStub(length: Int) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let ftyp = be32(24) + Array("ftypisom".utf8) + be32(0x200) + Array("isommp42".utf8)
        let body = max(8, length - ftyp.count - 8)
        return ftyp + be32(body + 8) + Array("mdat".utf8) + (0..<body).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
    }

    /// Puts an ICC profile (one APP2 `ICC_PROFILE` segment, so at most 65,519 bytes) right after
    /// SOI.
    public static func insertingICCProfile(_ profile: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        precondition(profile.count <= 65_519, "one segment only")
        let length = 2 + 14 + profile.count
        return Array(jpeg[0..<2]) + [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE".utf8)
            + [0, 1, 1] + profile + Array(jpeg[2...])
    }

    /// A small ICC version 2 display profile (`ColorProfile.display`): Display P3's primaries
    /// (adapted to D50), a 2.2 gamma, `description` as its name. `colourSpace` other than `RGB `
    /// (`CMYK`, `GRAY`) makes a header of that kind for tests, with the same (then meaningless) tags.
    public static func iccProfile(description: String, colourSpace: String = "RGB ") -> [UInt8] {
        var bytes = ColorProfile.display(description: description, white: (0.9642, 1, 0.8249), red: (0.5151, 0.2412, -0.0011),
                                         green: (0.2920, 0.6922, 0.0419), blue: (0.1571, 0.0666, 0.7841), gamma: 0x0233).bytes
        bytes.replaceSubrange(16..<20, with: Array(colourSpace.utf8.prefix(4)))
        return bytes
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

    /// A `moov` box holding only a movie header (version 0) created at `created`, seconds since
    /// 1904 (UTC): what some phones put beside a HEIF's images (exiftool's QuickTime CreateDate).
    public static func movieBox(created: UInt32) -> [UInt8] {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let identity: [UInt32] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000]
        let body = [0, 0, 0, 0] + be32(created) + be32(created) + be32(600) + be32(0) + be32(0x10000) + [1, 0]
            + [UInt8](repeating: 0, count: 10) + identity.flatMap(be32) + [UInt8](repeating: 0, count: 24) + be32(2)
        let mvhd = be32(UInt32(8 + body.count)) + Array("mvhd".utf8) + body
        return be32(UInt32(8 + mvhd.count)) + Array("moov".utf8) + mvhd
    }

    /// An XMP APP1 payload carrying the given properties (`photoshop:DateCreated`, …).
    public static func xmpPacket(_ properties: [(String, String)]) -> String {
        let attrs = properties.filter { $0.0 != "exif:UserComment" }.map { " \($0.0)=\"\($0.1)\"" }.joined()
        let comment = properties.first { $0.0 == "exif:UserComment" }.map {
            "<exif:UserComment><rdf:Alt><rdf:li xml:lang=\"x-default\">\($0.1)</rdf:li></rdf:Alt></exif:UserComment>"
        } ?? ""
        // Google's namespaces only where their properties are: the other packets stay as they are.
        let google = [("GCamera", "http://ns.google.com/photos/1.0/camera/"), ("GPano", "http://ns.google.com/photos/1.0/panorama/")]
            .filter { ns in properties.contains { $0.0.hasPrefix(ns.0 + ":") } }.map { " xmlns:\($0.0)=\"\($0.1)\"" }.joined()
        return """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"\(google)\(attrs)>\(comment)</rdf:Description>
        </rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """
    }

    /// An XMP packet with `xmp:Rating`, as Lightroom, digiKam, darktable and Windows write it.
    public static func ratingXMP(_ rating: String) -> String {
        """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="\(rating)"/>
        </rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """
    }

    public static func xmpAPP1(_ packet: String) -> [UInt8] {
        Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(packet.utf8)
    }
}
