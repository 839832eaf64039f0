/// EXIF orientation (1–8) applied to pixels: what a viewer shows for the stored image.
enum Orientation {
    /// The stored size that, once `orientation` is applied, fills `width`×`height`.
    static func storedSize(width: Int, height: Int, orientation: Int) -> (Int, Int) {
        (5...8).contains(orientation) ? (height, width) : (width, height)
    }

    static func apply(_ orientation: Int, to src: RGBImage) -> RGBImage {
        guard (2...8).contains(orientation) else { return src }
        let swap = orientation >= 5
        let w = src.width, h = src.height
        let dw = swap ? h : w, dh = swap ? w : h
        var out = [UInt8](repeating: 0, count: src.pixels.count)
        for y in 0..<dh {
            for x in 0..<dw {
                let (sx, sy): (Int, Int)
                switch orientation {
                case 2: (sx, sy) = (w - 1 - x, y)
                case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                case 4: (sx, sy) = (x, h - 1 - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, h - 1 - x)
                case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                default: (sx, sy) = (w - 1 - y, x)  // 8
                }
                let d = (y * dw + x) * 3, s = (sy * w + sx) * 3
                out[d] = src.pixels[s]
                out[d + 1] = src.pixels[s + 1]
                out[d + 2] = src.pixels[s + 2]
            }
        }
        return RGBImage(width: dw, height: dh, pixels: out)
    }
}
