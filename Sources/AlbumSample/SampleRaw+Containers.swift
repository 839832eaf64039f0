/// Fujifilm RAF and Canon CR3 containers for fixtures, as their makers lay them out (the parts
/// the scan reads; the sensor data is left out): RAF's header pointing at an embedded JPEG that
/// holds the EXIF; CR3's `moov` holding Canon's `uuid` box with `CMT1` (IFD0) and `CMT2` (EXIF IFD).
extension SampleRaw {
    /// A RAF whose embedded JPEG (`preview`) carries `exif` (an APP1 payload).
    public static func raf(preview: SampleImage, exif: [UInt8]) throws(EncodeError) -> [UInt8] {
        let jpeg = SampleJPEG.insertingAPP1(exif, into: try SampleJPEG.jpeg(preview))
        var header = Array("FUJIFILMCCD-RAW 0201FF383501".utf8)
        header += Array("albumfs sample".utf8)
        header += [UInt8](repeating: 0, count: 84 - header.count)
        let offset = 148
        header += be32(offset) + be32(jpeg.count)
        header += [UInt8](repeating: 0, count: offset - header.count)
        return header + jpeg
    }

    /// A CR3 whose `CMT1` is a TIFF with `ifd0`'s entries, `CMT2` a TIFF whose first directory
    /// holds `exif`'s, and `CMT4` (when `gps` is given) one whose first directory holds `gps`'s.
    public static func cr3(ifd0: [UInt16: ExifWriter.Value], exif: [UInt16: ExifWriter.Value], gps: [UInt16: ExifWriter.Value] = [:]) -> [UInt8] {
        var cmt1 = ExifWriter(order: .intel), cmt2 = ExifWriter(order: .intel), cmt4 = ExifWriter(order: .intel)
        cmt1.ifd0 = ifd0
        cmt2.ifd0 = exif
        cmt4.ifd0 = gps
        let canonUUID: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]
        let uuid = box("uuid", canonUUID + box("CNCV", Array("CanonCR3_001/01.09.00/00.00.00".utf8)) + box("CMT1", cmt1.tiff())
            + box("CMT2", cmt2.tiff()) + (gps.isEmpty ? [] : box("CMT3", []) + box("CMT4", cmt4.tiff())))
        let ftyp = box("ftyp", Array("crx ".utf8) + be32(1) + Array("crx isom".utf8))
        return ftyp + box("moov", uuid) + box("mdat", [UInt8](repeating: 0, count: 64))
    }

    private static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { MovieBoxes.box(type, body) }
    private static func be32(_ v: Int) -> [UInt8] { MovieBoxes.be32(v) }
}
