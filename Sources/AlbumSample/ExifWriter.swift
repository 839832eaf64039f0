/// Builds EXIF blocks (a TIFF structure behind `Exif\0\0`) for generated sample photos.
///
/// Only for writing fixtures: albumfs reads EXIF with libexif, never with this code, so a bug
/// here cannot hide a bug in the reader.
public struct ExifWriter {
    public enum ByteOrder: Sendable { case intel, motorola }

    public enum Value {
        case ascii(String)
        case byte(UInt8)
        case short(UInt16)
        case long(UInt32)
        case rational(UInt32, UInt32)
        case undefined([UInt8])

        var type: UInt16 {
            switch self {
            case .byte: return 1
            case .ascii: return 2
            case .short: return 3
            case .long: return 4
            case .rational: return 5
            case .undefined: return 7
            }
        }
    }

    public var order: ByteOrder
    public var ifd0: [UInt16: Value] = [:]
    public var exif: [UInt16: Value] = [:]
    /// The Interoperability IFD (pointed at from the Exif IFD): InteropIndex `R98`, `R03`.
    public var interop: [UInt16: Value] = [:]

    public init(order: ByteOrder = .intel) { self.order = order }

    /// The APP1 payload: `Exif\0\0` + TIFF header + IFD0 (+ Exif IFD (+ Interop IFD)).
    public func payload() -> [UInt8] {
        var tiff: [UInt8] = order == .intel ? [0x49, 0x49, 42, 0] : [0x4D, 0x4D, 0, 42]
        tiff += u32(8)
        var ifd0 = self.ifd0
        var exifEntries = exif
        // Pointers are placeholders until the offsets are known (same size either way).
        if !interop.isEmpty { exifEntries[0xA005] = .long(0) }
        if !exifEntries.isEmpty { ifd0[0x8769] = .long(0) }
        let exifOffset = 8 + size(ifd0)
        let interopOffset = exifOffset + size(exifEntries)
        if !exifEntries.isEmpty { ifd0[0x8769] = .long(UInt32(exifOffset)) }
        if !interop.isEmpty { exifEntries[0xA005] = .long(UInt32(interopOffset)) }
        tiff += ifd(ifd0, at: 8)
        if !exifEntries.isEmpty { tiff += ifd(exifEntries, at: exifOffset) }
        if !interop.isEmpty { tiff += ifd(interop, at: interopOffset) }
        return Array("Exif\0\0".utf8) + tiff
    }

    /// Bytes an IFD takes with its out-of-line data.
    private func size(_ entries: [UInt16: Value]) -> Int {
        entries.isEmpty ? 0 : 2 + 12 * entries.count + 4 + dataSize(entries)
    }

    /// One IFD and its out-of-line data, placed at `offset` in the TIFF stream.
    private func ifd(_ entries: [UInt16: Value], at offset: Int) -> [UInt8] {
        var out = u16(UInt16(entries.count))
        var data: [UInt8] = []
        let dataStart = offset + 2 + 12 * entries.count + 4
        for tag in entries.keys.sorted() {
            let value = entries[tag]!
            let bytes = encode(value)
            out += u16(tag) + u16(value.type) + u32(UInt32(count(value)))
            if bytes.count <= 4 {
                out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
            } else {
                out += u32(UInt32(dataStart + data.count))
                data += bytes
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        return out + u32(0) + data
    }

    private func dataSize(_ entries: [UInt16: Value]) -> Int {
        entries.values.map(encode).filter { $0.count > 4 }.reduce(0) { $0 + $1.count + $1.count % 2 }
    }

    private func count(_ v: Value) -> Int {
        switch v {
        case .ascii(let s): return s.utf8.count + 1
        case .byte, .short, .long, .rational: return 1
        case .undefined(let b): return b.count
        }
    }

    private func encode(_ v: Value) -> [UInt8] {
        switch v {
        case .ascii(let s): return Array(s.utf8) + [0]
        case .byte(let n): return [n]
        case .short(let n): return u16(n)
        case .long(let n): return u32(n)
        case .rational(let a, let b): return u32(a) + u32(b)
        case .undefined(let b): return b
        }
    }

    private func u16(_ v: UInt16) -> [UInt8] {
        order == .intel ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)]
    }

    private func u32(_ v: UInt32) -> [UInt8] {
        let b = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        return order == .intel ? b.reversed() : b
    }
}

/// The EXIF a camera or phone would write, in a few named fields.
public struct SampleExif {
    public var order: ExifWriter.ByteOrder = .intel
    public var make: String?
    public var model: String?
    public var software: String?
    public var orientation: UInt16?
    public var dateTimeOriginal: String?
    public var subSecTimeOriginal: String?
    public var offsetTimeOriginal: String?
    public var dateTimeDigitized: String?
    public var userComment: String?
    /// ExposureTime, FNumber, ISO: what makes it a camera exposure.
    public var exposure = false

    public init() {}

    public static func camera(_ make: String, _ model: String, _ date: String, order: ExifWriter.ByteOrder = .intel,
                              subSec: String? = nil, offset: String? = nil, orientation: UInt16 = 1) -> SampleExif {
        var e = SampleExif()
        e.order = order
        e.make = make
        e.model = model
        e.dateTimeOriginal = date
        e.dateTimeDigitized = date
        e.subSecTimeOriginal = subSec
        e.offsetTimeOriginal = offset
        e.orientation = orientation
        e.exposure = true
        return e
    }

    public func payload() -> [UInt8] {
        var w = ExifWriter(order: order)
        if let make { w.ifd0[0x010F] = .ascii(make) }
        if let model { w.ifd0[0x0110] = .ascii(model) }
        if let software { w.ifd0[0x0131] = .ascii(software) }
        if let orientation { w.ifd0[0x0112] = .short(orientation) }
        // DateTime (0x0132) is what editors rewrite; write a misleading one to prove it is ignored.
        if dateTimeOriginal != nil { w.ifd0[0x0132] = .ascii("2025:01:01 00:00:00") }
        if let dateTimeOriginal { w.exif[0x9003] = .ascii(dateTimeOriginal) }
        if let dateTimeDigitized { w.exif[0x9004] = .ascii(dateTimeDigitized) }
        if let subSecTimeOriginal { w.exif[0x9291] = .ascii(subSecTimeOriginal) }
        if let offsetTimeOriginal { w.exif[0x9011] = .ascii(offsetTimeOriginal) }
        if let userComment { w.exif[0x9286] = .undefined(Array("ASCII\0\0\0".utf8) + Array(userComment.utf8)) }
        if exposure {
            w.exif[0x829A] = .rational(1, 125)
            w.exif[0x829D] = .rational(28, 10)
            w.exif[0x8827] = .short(200)
        }
        return w.payload()
    }
}
