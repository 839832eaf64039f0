/// An original's ICC colour profile, carried into its thumbnail.
///
/// Why: an iPhone photo is Display P3 (tagged with a profile), a DSLR's may be Adobe RGB, a
/// macOS screenshot is tagged with its display's profile. Untagged, a thumbnail's values are
/// read as sRGB and its colours come out duller than the photo's in every colour-managed viewer
/// (GNOME's image viewers, Firefox, macOS). The pixels are left as decoded and the profile goes
/// with them, as `vipsthumbnail` does by default; converting to sRGB would need a colour engine
/// and change values that viewers would then read correctly anyway.
struct ColorProfile: Equatable {
    let bytes: [UInt8]

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
