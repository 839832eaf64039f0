/// An original's ICC colour profile, carried into its thumbnail.
///
/// Why: an iPhone photo is Display P3 (tagged with a profile), a DSLR's may be Adobe RGB, a
/// macOS screenshot is tagged with its display's profile. Untagged, a thumbnail's values are
/// read as sRGB and its colours come out duller than the photo's in every colour-managed viewer
/// (GNOME's image viewers, Firefox, macOS). The pixels are left as decoded and the profile goes
/// with them, as `vipsthumbnail` does by default; converting to sRGB would need a colour engine
/// and change values that viewers would then read correctly anyway.
public struct ColorProfile: Equatable, Sendable {
    public let bytes: [UInt8]

    /// Nil unless `bytes` hold an ICC profile that an RGB thumbnail may carry: its header's size
    /// field matches, the `acsp` signature is there, and its data colour space is `RGB ` (a CMYK
    /// or grey profile says nothing about RGB values).
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 132,
              bytes[0..<4].reduce(0, { $0 << 8 | Int($1) }) == bytes.count,
              bytes[36..<40].elementsEqual("acsp".utf8),
              bytes[16..<20].elementsEqual("RGB ".utf8) else { return nil }
        self.bytes = bytes
    }

    /// The profile of an original, when it fits a thumbnail of `size` bytes: at most a quarter of
    /// them, so the picture keeps its quality (typical profiles are 0.5–3 KB; a thumbnail of
    /// 200x200 is 30,000 bytes). A larger one is left out and the thumbnail reads as sRGB.
    init?(_ bytes: [UInt8]?, fitting size: Int) {
        guard let bytes, bytes.count <= size / 4 else { return nil }
        self.init(bytes)
    }

    /// Bytes of profile per APP2 segment: 65,535 less the length field, the `ICC_PROFILE\0`
    /// signature and the chunk's number and count (ICC.1, annex B.4).
    static let chunk = 65_519

    /// The profile as JPEG APP2 segments, in order.
    var segments: [UInt8] {
        let count = (bytes.count + Self.chunk - 1) / Self.chunk
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + count * 18)
        for (i, start) in stride(from: 0, to: bytes.count, by: Self.chunk).enumerated() {
            let part = bytes[start..<min(start + Self.chunk, bytes.count)]
            let length = 2 + 12 + 2 + part.count
            out += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]
            out += Array("ICC_PROFILE".utf8) + [0, UInt8(i + 1), UInt8(count)]
            out += part
        }
        return out
    }

    /// `jpeg` with the profile's segments after its SOI and JFIF APP0 (where libjpeg's
    /// `jpeg_write_icc_profile` puts them).
    func embedded(in jpeg: [UInt8]) -> [UInt8] {
        var at = 2
        if jpeg.count >= 6, jpeg[2] == 0xFF, jpeg[3] == 0xE0 { at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        guard at <= jpeg.count else { return jpeg }
        return Array(jpeg[..<at]) + segments + Array(jpeg[at...])
    }
}

extension ColorProfile {
    /// Adobe RGB (1998), for JPEGs whose EXIF names it without carrying a profile
    /// (`ExifColorSpace`): its primaries adapted to D50 as in Adobe's own profile, D65 white,
    /// a gamma of 563/256.
    static let adobeRGB1998 = display(description: "Adobe RGB (1998)", white: (0.9505, 1, 1.0891),
                                      red: (0.6097, 0.3111, 0.0195), green: (0.2053, 0.6257, 0.0609),
                                      blue: (0.1492, 0.0632, 0.7446), gamma: 0x0233)

    /// An ICC version 2 RGB display profile: a description, the media white point, the three
    /// colorants (XYZ, D50-adapted), one gamma curve for all channels (u8Fixed8: 0x0233 is 2.2).
    public static func display(description: String, white: (Double, Double, Double), red: (Double, Double, Double),
                               green: (Double, Double, Double), blue: (Double, Double, Double), gamma: UInt16) -> ColorProfile {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func s15(_ v: Double) -> [UInt8] { be32(Int((v * 65536).rounded()) & 0xFFFF_FFFF) }
        func xyz(_ c: (Double, Double, Double)) -> [UInt8] { Array("XYZ ".utf8) + [0, 0, 0, 0] + s15(c.0) + s15(c.1) + s15(c.2) }
        let ascii = Array(description.utf8) + [0]
        // textDescriptionType: the ASCII name, then empty Unicode and ScriptCode parts (ICC.1:2001-04).
        let desc = Array("desc".utf8) + [0, 0, 0, 0] + be32(ascii.count) + ascii + be32(0) + be32(0) + [0, 0, 0]
            + [UInt8](repeating: 0, count: 67)
        let curve = Array("curv".utf8) + [0, 0, 0, 0] + be32(1) + [UInt8(gamma >> 8), UInt8(gamma & 0xFF)]
        let copyright = Array("text".utf8) + [0, 0, 0, 0] + Array("No copyright, use freely".utf8) + [0]
        let tags: [(String, [UInt8])] = [
            ("desc", desc), ("cprt", copyright), ("wtpt", xyz(white)), ("rXYZ", xyz(red)), ("gXYZ", xyz(green)),
            ("bXYZ", xyz(blue)), ("rTRC", curve), ("gTRC", curve), ("bTRC", curve),
        ]
        var table = be32(tags.count)
        var data: [UInt8] = []
        let dataStart = 128 + 4 + 12 * tags.count
        for (signature, body) in tags {
            table += Array(signature.utf8) + be32(dataStart + data.count) + be32(body.count)
            data += body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)  // 4-byte aligned
        }
        // Header: size, no CMM, version 2.1, a monitor profile of RGB to XYZ, a date, `acsp`, no
        // platform or flags, perceptual intent, the D50 illuminant.
        var header = be32(dataStart + data.count) + [0, 0, 0, 0] + [0x02, 0x10, 0, 0] + Array("mntrRGB XYZ ".utf8)
        header += [0x07, 0xEA, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0] + Array("acsp".utf8) + [UInt8](repeating: 0, count: 28)
        header += s15(0.9642) + s15(1) + s15(0.8249)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return ColorProfile(header + table + data)!
    }
}
