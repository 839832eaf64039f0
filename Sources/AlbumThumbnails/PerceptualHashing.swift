import AlbumCore
import AlbumSystem

/// The perceptual hash of an original (`SimilarGroups.dHash`): its picture decoded small (from
/// its embedded preview where it has one, else shrunk on load), upright as its thumbnail is, then
/// reduced to 9x8 grey. Runs where decoders run: a render worker (`RenderRequest.Kind.hash`).
enum PerceptualHashing {
    /// The side of the square the picture is decoded to fit: a few times the 9x8 the hash
    /// reads, so that each grey cell averages many pixels, and small enough that an embedded
    /// preview (160x120 and up) or a JPEG's 1/8 DCT scale serves nearly every photo.
    static let side = 64

    /// The dHash of an upright picture.
    static func hash(_ image: RGBImage) -> UInt64 { SimilarGroups.dHash(grey(image)) }

    /// `image` as 9x8 grey cells (rows top to bottom), each the mean luma (ITU-R BT.601 weights)
    /// of the pixels it covers; a picture narrower or lower than the grid repeats its pixels.
    static func grey(_ image: RGBImage) -> [UInt8] {
        let (w, h) = (SimilarGroups.width, SimilarGroups.height)
        var cells = [UInt8](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { p in
            for row in 0..<h {
                let y0 = row * image.height / h, y1 = max(y0 + 1, (row + 1) * image.height / h)
                for column in 0..<w {
                    let x0 = column * image.width / w, x1 = max(x0 + 1, (column + 1) * image.width / w)
                    var sum = 0
                    for y in y0..<y1 {
                        for x in x0..<x1 {
                            let at = (y * image.width + x) * 3
                            sum += 299 * Int(p[at]) + 587 * Int(p[at + 1]) + 114 * Int(p[at + 2])
                        }
                    }
                    let count = (y1 - y0) * (x1 - x0) * 1000
                    cells[row * w + column] = UInt8((sum + count / 2) / count)
                }
            }
        }
        return cells
    }
}

extension ThumbnailRenderer {
    /// The original's perceptual hash (`PerceptualHashing`), in this process.
    public func perceptualHash(_ source: SourceImage) throws(ThumbnailError) -> UInt64 {
        PerceptualHashing.hash(try fitting(source, side: PerceptualHashing.side))
    }
}
