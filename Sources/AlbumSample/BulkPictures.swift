/// The pictures of `SampleLibrary.writeBulk`'s photos: one for all (every still of one picture
/// hash, every file of one of two sizes: the worst case for duplicates and similar photos), or
/// one of its own for each photo, and a size of its own, as in a camera's library.
public enum BulkPictures: Sendable {
    case one
    case varied

    /// The picture's side: 9x8 blocks of 4x3 pixels, the grid of the similar-photo hash, so that
    /// each bit of a photo's hash compares two blocks of random colours.
    static let (width, height) = (36, 24)
    static let block = (width: 4, height: 3)

    /// Photo `i`'s JPEG: blocks of colours drawn from a generator seeded by `i`.
    static func varied(_ i: Int) throws(EncodeError) -> [UInt8] {
        var random = SeededGenerator(seed: UInt64(i))
        let colours = random.bytes((width / block.width) * (height / block.height) * 3)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let colour = ((y / block.height) * (width / block.width) + x / block.width) * 3
                for c in 0..<3 { pixels[(y * width + x) * 3 + c] = colours[colour + c] }
            }
        }
        return try SampleJPEG.jpeg(SampleImage(width: width, height: height, pixels: pixels))
    }

    /// Sizes a varied photo's file may take: `sizes` values from `smallest`, one block or three of
    /// a file system of 4 KiB blocks.
    static let smallest = 2_048
    static let sizes = 8_192
    /// An odd step through the sizes: 8,192 photos in a row are each of a size of its own.
    static let sizeStep = 4_099

    /// `jpeg` (photo `i`'s, its EXIF segment first) padded to its size, `smallest + (i × sizeStep)
    /// mod sizes` bytes, with a comment segment after the EXIF one; a JPEG too large for it (none
    /// of `varied`'s) is left as it is.
    static func padded(_ jpeg: [UInt8], _ i: Int) -> [UInt8] {
        let size = smallest + (i * sizeStep) % sizes
        let comment = size - jpeg.count - 4
        guard comment >= 0, jpeg.count >= 6 else { return jpeg }
        let at = 4 + Int(jpeg[4]) << 8 + Int(jpeg[5])
        let length = comment + 2
        return Array(jpeg[0..<at]) + [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: 0x20, count: comment)
            + Array(jpeg[at...])
    }
}
