import AlbumCore
import AlbumThumbnails
import FoundationEssentials
import Glibc
import CPNG
import CZlib
import CJPEGStream
import CTurboJPEG

/// Why a fixture could not be encoded.
public struct EncodeError: Error, CustomStringConvertible {
    public let description: String
}

/// JPEG and PNG encoding for fixtures (TurboJPEG and libpng's simplified API), plus the segment
/// and chunk insertion that cameras and screenshot tools do.
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

    /// A Google motion photo as Pixel and Samsung phones write it (MicroVideo): the still with
    /// XMP that gives the video's offset from the end of the file, and the video after EOI.
    public static func motionPhoto(_ still: [UInt8], video: [UInt8]) -> [UInt8] {
        let packet = """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" GCamera:MicroVideo="1" \
        GCamera:MicroVideoVersion="1" GCamera:MicroVideoOffset="\(video.count)" GCamera:MicroVideoPresentationTimestampUs="1500000"/>
        </rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """
        return insertingAPP1(xmpAPP1(packet), into: still) + video
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

    /// An XMP APP1 payload carrying the given properties (`photoshop:DateCreated`, …).
    public static func xmpPacket(_ properties: [(String, String)]) -> String {
        let attrs = properties.filter { $0.0 != "exif:UserComment" }.map { " \($0.0)=\"\($0.1)\"" }.joined()
        let comment = properties.first { $0.0 == "exif:UserComment" }.map {
            "<exif:UserComment><rdf:Alt><rdf:li xml:lang=\"x-default\">\($0.1)</rdf:li></rdf:Alt></exif:UserComment>"
        } ?? ""
        return """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"\(attrs)>\(comment)</rdf:Description>
        </rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """
    }

    public static func xmpAPP1(_ packet: String) -> [UInt8] {
        Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(packet.utf8)
    }

    /// The PNG flavours real libraries hold (interlaced ones come from ImageMagick in the tests).
    public enum PNGKind: Sendable, Equatable {
        case rgb
        case grayscale
        /// 16 bits a channel.
        case rgb16
        /// 16 bits a channel holding sRGB values, with no `gAMA`/`sRGB` chunk: what Photoshop (an
        /// `iCCP` profile only) and most tools write; viewers show it as sRGB.
        case rgb16Untagged
        /// Adam7-interlaced RGB (8 or 16 bits a channel, untagged).
        case interlaced(sixteenBit: Bool)
        /// RGBA with every pixel at this alpha.
        case rgba(alpha: UInt8)
        /// A colour-mapped (palette) image.
        case palette
        /// 8-bit RGB tagged with an ICC profile (an `iCCP` chunk, no `sRGB`/`gAMA`), as macOS
        /// screenshots and Photoshop exports are.
        case tagged(iccProfile: [UInt8])
    }

    /// Encodes a PNG of the given kind. The corresponding C function is `png_image_write_to_memory`.
    public static func png(_ image: SampleImage, kind: PNGKind = .rgb) throws(EncodeError) -> [UInt8] {
        switch kind {
        case .rgb16Untagged:
            return handWrittenPNG(image, sixteenBit: true, interlaced: false)
        case .interlaced(let sixteenBit):
            return handWrittenPNG(image, sixteenBit: sixteenBit, interlaced: true)
        case .tagged(let profile):
            return insertingChunk("iCCP", Array("ICC profile".utf8) + [0, 0] + zlibCompressed(profile),
                                  into: handWrittenPNG(image, sixteenBit: false, interlaced: false))
        case .rgb, .grayscale, .rgb16, .rgba, .palette:
            return try writeSimplified(image, simplifiedPixels(image, kind: kind))
        }
    }

    /// What libpng's simplified API is given to write a PNG of one kind.
    struct SimplifiedPixels {
        var format: UInt32
        var bytes: [UInt8]
        var channels: Int
        var colormap: [UInt8]?
    }

    static func simplifiedPixels(_ image: SampleImage, kind: PNGKind) -> SimplifiedPixels {
        switch kind {
        case .grayscale:
            let grey = stride(from: 0, to: image.pixels.count, by: 3).map { i in
                let r = Int(image.pixels[i]) * 299, g = Int(image.pixels[i + 1]) * 587, b = Int(image.pixels[i + 2]) * 114
                return UInt8((r + g + b) / 1000)
            }
            return SimplifiedPixels(format: UInt32(PNG_FORMAT_GRAY), bytes: grey, channels: 1)
        case .rgb16:
            // The simplified API's 16-bit formats are linear light; sRGB to linear here.
            let linear = image.pixels.flatMap { v -> [UInt8] in
                let c = Double(v) / 255
                let linear = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
                let u = UInt16((linear * 65535).rounded())
                return withUnsafeBytes(of: u) { Array($0) }  // native order, as the API expects
            }
            return SimplifiedPixels(format: UInt32(PNG_FORMAT_RGB | PNG_FORMAT_FLAG_LINEAR), bytes: linear, channels: 3)
        case .rgba(let alpha):
            return SimplifiedPixels(format: UInt32(PNG_FORMAT_RGB | PNG_FORMAT_FLAG_ALPHA), bytes: expand(image.pixels, fourth: alpha), channels: 4)
        case .palette:
            // Index every distinct colour (the sample images have few); at most 256.
            var table: [[UInt8]: UInt8] = [:]
            var map: [UInt8] = []
            let indices = stride(from: 0, to: image.pixels.count, by: 3).map { i in
                let c = Array(image.pixels[i..<i + 3])
                if let k = table[c] { return k }
                let k = UInt8(min(255, table.count))
                if table.count < 256 { table[c] = k; map += c }
                return k
            }
            return SimplifiedPixels(format: UInt32(PNG_FORMAT_RGB | PNG_FORMAT_FLAG_COLORMAP), bytes: indices, channels: 1, colormap: map)
        default:
            return SimplifiedPixels(format: UInt32(PNG_FORMAT_RGB), bytes: image.pixels, channels: 3)
        }
    }

    /// Writes the pixels with libpng's simplified API (asked for the size, then written).
    static func writeSimplified(_ image: SampleImage, _ pixels: SimplifiedPixels) throws(EncodeError) -> [UInt8] {
        var desc = png_image()
        desc.version = UInt32(PNG_IMAGE_VERSION)
        desc.width = UInt32(image.width)
        desc.height = UInt32(image.height)
        desc.format = pixels.format
        desc.colormap_entries = UInt32((pixels.colormap?.count ?? 0) / 3)
        var size: Int = 0
        let stride = Int32(image.width * pixels.channels)
        func write(_ buffer: UnsafeMutableRawPointer?) -> Int32 {
            pixels.bytes.withUnsafeBufferPointer { px in
                (pixels.colormap ?? []).withUnsafeBufferPointer { cm in
                    png_image_write_to_memory(&desc, buffer, &size, 0, px.baseAddress, stride, pixels.colormap == nil ? nil : cm.baseAddress)
                }
            }
        }
        guard write(nil) != 0, size > 0 else { throw EncodeError(description: "png_image_write_to_memory: size query failed") }
        var out = [UInt8](repeating: 0, count: size)
        let wrote = out.withUnsafeMutableBytes { write($0.baseAddress) }
        png_image_free(&desc)
        guard wrote != 0 else {
            let message = withUnsafeBytes(of: desc.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw EncodeError(description: "png_image_write_to_memory: " + message)
        }
        return Array(out.prefix(size))
    }

    /// RGB written by hand: the simplified API tags every 16-bit PNG it writes as linear (`gAMA`
    /// 1.0) and cannot interlace. Adam7 passes as in the PNG specification (empty ones left out).
    static func handWrittenPNG(_ image: SampleImage, sixteenBit: Bool, interlaced: Bool) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let passes = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var rows: [UInt8] = []
        for (x0, y0, dx, dy) in passes where image.width > x0 && image.height > y0 {
            for y in stride(from: y0, to: image.height, by: dy) {
                rows.append(0)  // filter: none
                for x in stride(from: x0, to: image.width, by: dx) {
                    for v in image.pixels[((y * image.width + x) * 3)..<((y * image.width + x) * 3 + 3)] {
                        rows += sixteenBit ? [v, v] : [v]  // v·257, big-endian
                    }
                }
            }
        }
        let header = be32(image.width) + be32(image.height) + [sixteenBit ? 16 : 8, 2, 0, 0, interlaced ? 1 : 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
            + chunk("IDAT", zlibCompressed(rows)) + chunk("IEND", [])
    }

    /// RGB → 4 channels with a constant fourth (alpha, or K of CMYK).
    static func expand(_ rgb: [UInt8], fourth: UInt8) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(rgb.count / 3 * 4)
        for i in stride(from: 0, to: rgb.count, by: 3) {
            out.append(rgb[i])
            out.append(rgb[i + 1])
            out.append(rgb[i + 2])
            out.append(fourth)
        }
        return out
    }

    /// Inserts a chunk right after IHDR (8-byte signature + 25-byte IHDR).
    public static func insertingChunk(_ type: String, _ data: [UInt8], into png: [UInt8]) -> [UInt8] {
        Array(png[0..<33]) + chunk(type, data) + Array(png[33...])
    }

    /// Inserts a chunk right before IEND (the last 12 bytes), after the image data, where
    /// ImageMagick writes its text and EXIF.
    public static func appendingChunk(_ type: String, _ data: [UInt8], to png: [UInt8]) -> [UInt8] {
        Array(png.dropLast(12)) + chunk(type, data) + Array(png.suffix(12))
    }

    /// Where the first chunk of `type` starts (its length field) and how long its data is, or nil.
    public static func pngChunk(_ type: String, in png: [UInt8]) -> (offset: Int, length: Int)? {
        var at = 8
        while at + 8 <= png.count {
            let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            if png[at + 4..<at + 8].elementsEqual(type.utf8) { return (at, length) }
            at += 12 + length
        }
        return nil
    }

    /// The PNG with the CRC of its first chunk of `type` made wrong (its data left whole), as
    /// some encoders write them.
    public static func withWrongCRC(of type: String, in png: [UInt8]) -> [UInt8] {
        guard let (offset, length) = pngChunk(type, in: png), offset + 12 + length <= png.count else { return png }
        var bytes = png
        bytes[offset + 8 + length] ^= 0x5A
        return bytes
    }

    /// A whole chunk: length, type, data, CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let crcInput = Array(type.utf8) + data
        let crc = crcInput.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        let n = UInt32(data.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + crcInput
            + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    /// `bytes` as a zlib stream (`compress2`).
    public static func zlibCompressed(_ bytes: [UInt8]) -> [UInt8] {
        var length = compressBound(UInt(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let rc = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { compress2(o.baseAddress, &length, $0.baseAddress, UInt($0.count), Z_BEST_COMPRESSION) }
        }
        precondition(rc == Z_OK, "compress2 failed: \(rc)")
        return Array(out.prefix(Int(length)))
    }

    /// A `zTXt` chunk body (Latin-1 text, zlib-compressed).
    public static func compressedTextChunk(_ key: String, _ value: String) -> [UInt8] {
        Array(key.utf8) + [0, 0] + zlibCompressed(value.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
    }

    /// A compressed `iTXt` chunk body.
    public static func compressedITextChunk(_ key: String, _ value: String) -> [UInt8] {
        Array(key.utf8) + [0, 1, 0, 0, 0] + zlibCompressed(Array(value.utf8))
    }

    /// ImageMagick's text form of a binary profile (`Raw profile type NAME` chunks): the name,
    /// the length, then the bytes in hex, 36 to a line.
    public static func rawProfile(_ name: String, _ bytes: [UInt8]) -> String {
        let hex = bytes.map { $0.zeroPadded(2, radix: 16) }
        let lines = stride(from: 0, to: hex.count, by: 36).map { hex[$0..<min($0 + 36, hex.count)].joined() }
        return "\n\(name)\n" + String(repeating: " ", count: max(0, 8 - String(bytes.count).count)) + "\(bytes.count)\n"
            + lines.joined(separator: "\n") + "\n"
    }

    /// A `tEXt` chunk body.
    public static func textChunk(_ key: String, _ value: String) -> [UInt8] {
        Array(key.utf8) + [0] + Array(value.utf8)
    }

    /// An uncompressed `iTXt` chunk body.
    public static func iTextChunk(_ key: String, _ value: String) -> [UInt8] {
        Array(key.utf8) + [0, 0, 0, 0, 0] + Array(value.utf8)
    }
}
