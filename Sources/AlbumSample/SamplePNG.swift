import FoundationEssentials
import Glibc
import CPNG
import CZlib

/// PNG encoding for fixtures (libpng's simplified API, and by hand where it cannot: 16-bit
/// untagged, interlaced), and the chunks screenshot tools and editors add.
public enum SamplePNG {
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
            return SimplifiedPixels(format: UInt32(PNG_FORMAT_RGB | PNG_FORMAT_FLAG_ALPHA), bytes: SampleImage.expand(image.pixels, fourth: alpha), channels: 4)
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
