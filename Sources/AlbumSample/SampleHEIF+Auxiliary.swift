extension SampleHEIF {
    /// Apple's URN for the HDR gain map an iPhone stores beside a photo (iOS 14.1 and later).
    public static let appleGainMapURN = "urn:com:apple:photo:2020:aux:hdrgainmap"

    /// `heif` with the auxiliary image type `old` (an `auxC` box's URN) made `urn`: libheif writes
    /// alpha channels only, and this turns one into a depth map or an HDR gain map as a phone
    /// writes them. The boxes around it grow or shrink with it, and `iloc`'s offsets into the
    /// media data after it move by as much.
    public static func replacingAuxiliaryType(_ old: String, with urn: String, in heif: [UInt8]) throws(EncodeError) -> [UInt8] {
        let from = Array(old.utf8) + [0]
        guard let at = (0...max(0, heif.count - from.count)).first(where: { heif[$0..<($0 + from.count)].elementsEqual(from) }) else {
            throw EncodeError(description: "no auxiliary image of type \(old)")
        }
        let delta = urn.utf8.count - old.utf8.count
        var file = Array(heif[..<at]) + Array(urn.utf8) + [0] + Array(heif[(at + from.count)...])
        // Every box around the URN: the top-level `meta`, `iprp`, `ipco`, the `auxC` itself.
        var range = 0..<heif.count
        var bodyStart = 0
        while let box = MovieBoxes.children(heif, bodyStart..<range.upperBound).first(where: { $0.offset < at && at < $0.end }) {
            file.replaceSubrange(box.offset..<(box.offset + 4), with: MovieBoxes.be32(box.bytes.count + delta))
            range = box.offset..<box.end
            bodyStart = box.offset + (box.type == "meta" ? 12 : 8)
            if box.type == "auxC" { break }
        }
        try HEIFLocations.shift(in: &file, from: at, by: delta)
        return file
    }
}

/// The item locations (`iloc`) of a HEIF file's `meta` box, rewritten in place.
enum HEIFLocations {
    /// Moves by `delta` every extent of the file's own bytes (construction method 0) at or past `position`.
    static func shift(in file: inout [UInt8], from position: Int, by delta: Int) throws(EncodeError) {
        guard let meta = MovieBoxes.children(file, 0..<file.count).first(where: { $0.type == "meta" }),
              let iloc = MovieBoxes.children(file, (meta.offset + 12)..<meta.end).first(where: { $0.type == "iloc" }) else {
            throw EncodeError(description: "no item locations")
        }
        let version = Int(file[iloc.offset + 8])
        var at = iloc.offset + 12
        let offsetSize = Int(file[at] >> 4), lengthSize = Int(file[at] & 15), baseSize = Int(file[at + 1] >> 4)
        let indexSize = version == 1 || version == 2 ? Int(file[at + 1] & 15) : 0
        at += 2
        let count = version < 2 ? read(file, at, 2) : read(file, at, 4)
        at += version < 2 ? 2 : 4
        for _ in 0..<count {
            at += version < 2 ? 2 : 4
            var method = 0
            if version == 1 || version == 2 { method = read(file, at, 2) & 15; at += 2 }
            at += 2  // data_reference_index
            let base = read(file, at, baseSize)
            if method == 0, baseSize > 0, base >= position { write(base + delta, into: &file, at, baseSize) }
            at += baseSize
            let extents = read(file, at, 2)
            at += 2
            for _ in 0..<extents {
                at += indexSize
                let offset = read(file, at, offsetSize)
                if method == 0, baseSize == 0, offset >= position { write(offset + delta, into: &file, at, offsetSize) }
                at += offsetSize + lengthSize
            }
        }
    }

    static func read(_ bytes: [UInt8], _ at: Int, _ size: Int) -> Int {
        (0..<size).reduce(0) { $0 << 8 | Int(bytes[at + $1]) }
    }

    static func write(_ value: Int, into bytes: inout [UInt8], _ at: Int, _ size: Int) {
        for i in 0..<size { bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - i))) }
    }
}
