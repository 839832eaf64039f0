import AlbumCore
import CPNG
import CTurboJPEG

/// Why a fixture could not be encoded.
public struct EncodeError: Error, CustomStringConvertible {
    public let description: String
}

/// JPEG and PNG encoding for fixtures (TurboJPEG and libpng's simplified API), plus the segment
/// and chunk insertion that cameras and screenshot tools do.
public enum Encoders {
    /// Encodes baseline 4:2:0 JPEG. The corresponding C function is `tjCompress2`.
    public static func jpeg(_ image: SampleImage, quality: Int32 = 85) throws(EncodeError) -> [UInt8] {
        guard let handle = tjInitCompress() else { throw EncodeError(description: "tjInitCompress failed") }
        defer { tjDestroy(handle) }
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = image.pixels.withUnsafeBufferPointer { px in
            tjCompress2(handle, px.baseAddress, Int32(image.width), Int32(image.width * 3), Int32(image.height),
                        Int32(TJPF_RGB.rawValue), &out, &size, Int32(TJSAMP_420.rawValue), quality, 0)
        }
        defer { tjFree(out) }
        guard rc == 0, let out else {
            throw EncodeError(description: "tjCompress2: " + String(cString: tjGetErrorStr2(handle)))
        }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// Puts an APP1 segment (EXIF or XMP) right after SOI, where cameras write it.
    public static func insertingAPP1(_ payload: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
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

    /// Encodes an 8-bit RGB PNG. The corresponding C function is `png_image_write_to_memory`.
    public static func png(_ image: SampleImage) throws(EncodeError) -> [UInt8] {
        var desc = png_image()
        desc.version = UInt32(PNG_IMAGE_VERSION)
        desc.width = UInt32(image.width)
        desc.height = UInt32(image.height)
        desc.format = UInt32(PNG_FORMAT_RGB)
        var size: Int = 0
        let stride = Int32(image.width * 3)
        let ok = image.pixels.withUnsafeBufferPointer { px in
            png_image_write_to_memory(&desc, nil, &size, 0, px.baseAddress, stride, nil)
        }
        guard ok != 0, size > 0 else { throw EncodeError(description: "png_image_write_to_memory: size query failed") }
        var out = [UInt8](repeating: 0, count: size)
        let wrote = out.withUnsafeMutableBytes { buf in
            image.pixels.withUnsafeBufferPointer { px in
                png_image_write_to_memory(&desc, buf.baseAddress, &size, 0, px.baseAddress, stride, nil)
            }
        }
        png_image_free(&desc)
        guard wrote != 0 else {
            let message = withUnsafeBytes(of: desc.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw EncodeError(description: "png_image_write_to_memory: " + message)
        }
        return Array(out.prefix(size))
    }

    /// Inserts a chunk right after IHDR (8-byte signature + 25-byte IHDR).
    public static func insertingChunk(_ type: String, _ data: [UInt8], into png: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        let crcInput = typeBytes + data
        let crc = crcInput.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        let n = UInt32(data.count)
        let chunk = [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + crcInput
            + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return Array(png[0..<33]) + chunk + Array(png[33...])
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
