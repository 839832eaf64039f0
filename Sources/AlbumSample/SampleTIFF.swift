import CTIFF
import FoundationEssentials
import Glibc

/// TIFF encoding for fixtures (libtiff's scanline writer, through a temporary file), as scanners
/// and editors write them: RGB, 8 bits, one strip of rows after another, then the directory.
public enum SampleTIFF {
    public enum TIFFCompression: UInt16, Sendable { case none = 1, lzw = 5, deflate = 8 }

    /// Encodes a TIFF of `image` as stored (`orientation` is only written: store the pixels
    /// turned for it), with IFD0 `DateTime` when given.
    /// The corresponding C functions are `TIFFOpen`, `TIFFVSetField` and `TIFFWriteScanline`.
    public static func tiff(_ image: SampleImage, compression: TIFFCompression = .lzw, orientation: Int = 1,
                            dateTime: String? = nil, bigEndian: Bool = false) throws(EncodeError) -> [UInt8] {
        let path = "/tmp/albumfs-tiff-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).tif"
        defer { unlink(path) }
        guard let tif = TIFFOpen(path, bigEndian ? "wb" : "wl") else { throw EncodeError(description: "TIFFOpen \(path)") }
        var ok = true
        func set(_ tag: Int32, _ value: CVarArg) { ok = ok && withVaList([value]) { TIFFVSetField(tif, UInt32(tag), $0) } != 0 }
        set(TIFFTAG_IMAGEWIDTH, UInt32(image.width))
        set(TIFFTAG_IMAGELENGTH, UInt32(image.height))
        set(TIFFTAG_BITSPERSAMPLE, Int32(8))
        set(TIFFTAG_SAMPLESPERPIXEL, Int32(3))
        set(TIFFTAG_PHOTOMETRIC, Int32(PHOTOMETRIC_RGB))
        set(TIFFTAG_PLANARCONFIG, Int32(PLANARCONFIG_CONTIG))
        set(TIFFTAG_COMPRESSION, Int32(compression.rawValue))
        set(TIFFTAG_ROWSPERSTRIP, UInt32(16))
        set(TIFFTAG_ORIENTATION, Int32(orientation))
        if let dateTime { dateTime.withCString { set(TIFFTAG_DATETIME, $0) } }
        var rows = image.pixels
        for y in 0..<image.height where ok {
            ok = rows.withUnsafeMutableBytes { TIFFWriteScanline(tif, $0.baseAddress! + y * image.width * 3, UInt32(y), 0) } == 1
        }
        TIFFClose(tif)
        guard ok, let data = FileManager.default.contents(atPath: path) else { throw EncodeError(description: "libtiff could not write the TIFF") }
        return [UInt8](data)
    }
}
