import AlbumCore
import AlbumSystem
import FoundationEssentials

/// The benchmarks' library (`albumfs sample DIR --count N`): many small camera JPEGs, apart from
/// the sample library's items.
extension SampleLibrary {
    /// Writes `count` small camera JPEGs with distinct capture times over ten years, for benchmarks:
    /// of one picture and two sizes (`.one`), or each of a picture and a size of its own (`.varied`).
    /// Folders of a thousand photos are written side by side on every core.
    public static func writeBulk(to folder: String, count: Int, pictures: BulkPictures = .one) throws {
        let image = try SampleJPEG.jpeg(.marker(width: 32, height: 24))
        let folders = (count + bulkFolder - 1) / bulkFolder
        // Made before the works start: two making it at once may see each other's and fail.
        try FileManager.default.createDirectory(atPath: folder + "/bulk", withIntermediateDirectories: true)
        let failures = Parallel.all((0..<folders).map { f in
            { @Sendable () -> String? in
                do {
                    for i in f * bulkFolder..<min(count, (f + 1) * bulkFolder) {
                        let (name, bytes) = try bulkPhoto(i, of: count, pictures, image)
                        try writeFile(folder + "/" + name, bytes, mtime: defaultMtime)
                    }
                    return nil
                } catch { return "\(error)" }
            }
        })
        if let failure = failures.lazy.compactMap({ $0 }).first { throw EncodeError(description: failure) }
    }

    /// Photos in a folder of `writeBulk`'s.
    static let bulkFolder = 1000

    /// Photo `i` of `writeBulk`'s `count`: its path and bytes (`image`, the one picture of `.one`).
    static func bulkPhoto(_ i: Int, of count: Int, _ pictures: BulkPictures, _ image: [UInt8]) throws(EncodeError) -> (path: String, bytes: [UInt8]) {
        let start: Int64 = 1_420_070_400  // 2015-01-01
        // Ten years whatever the count (a fixed step put most of 100,000 photos in the future,
        // where the date rules refuse them).
        let step = max(1, 315_360_000 / Int64(max(1, count)))
        let t = Timestamp(seconds: start + Int64(i) * step + Int64(i % 97) * min(60, step / 100)).local(offsetSeconds: 0)
        let date = "\(t.yearString):\(String(t.monthString.suffix(2))):\(String(t.dayString.suffix(2))) "
            + "\(pad2(t.hour)):\(pad2(t.minute)):\(pad2(t.second))"
        let exif = SampleExif.camera(i % 2 == 0 ? "Canon" : "Apple", i % 2 == 0 ? "Canon EOS R6" : "iPhone 14", ExifTime(date),
                                     order: i % 2 == 0 ? .motorola : .intel)
        let path = "bulk/\((i / bulkFolder).zeroPadded(3))/IMG_\(i.zeroPadded(6)).JPG"
        guard pictures == .varied else { return (path, SampleJPEG.insertingAPP1(exif.payload(), into: image)) }
        return (path, BulkPictures.padded(SampleJPEG.insertingAPP1(exif.payload(), into: try BulkPictures.varied(i)), i))
    }
}
