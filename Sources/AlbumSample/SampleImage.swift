/// An RGB picture for fixtures: a soft gradient with a red block in the top-left corner, so the
/// orientation a viewer applies can be checked by where the red block lands.
public struct SampleImage: Sendable {
    public var width: Int
    public var height: Int
    /// RGB, 3 bytes a pixel, rows top to bottom.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The upright picture: red block over the top-left quarter-by-quarter, gradient elsewhere.
    public static func marker(width: Int, height: Int, tint: UInt8 = 128) -> SampleImage {
        var px = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                if x < width / 4 && y < height / 4 {
                    px[i] = 230; px[i + 1] = 20; px[i + 2] = 20
                } else {
                    px[i] = UInt8(40 + 120 * x / max(1, width))
                    px[i + 1] = tint
                    px[i + 2] = UInt8(40 + 120 * y / max(1, height))
                }
            }
        }
        return SampleImage(width: width, height: height, pixels: px)
    }

    /// One colour everywhere.
    public static func solid(width: Int, height: Int, _ r: UInt8, _ g: UInt8, _ b: UInt8) -> SampleImage {
        var px = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) { px[i * 3] = r; px[i * 3 + 1] = g; px[i * 3 + 2] = b }
        return SampleImage(width: width, height: height, pixels: px)
    }

    /// What a viewer shows for stored pixels tagged with EXIF `orientation` (1–8).
    public func displayed(orientation: Int) -> SampleImage {
        let swap = orientation >= 5 && orientation <= 8
        let dw = swap ? height : width, dh = swap ? width : height
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<dh {
            for x in 0..<dw {
                let (sx, sy): (Int, Int)
                switch orientation {
                case 2: (sx, sy) = (width - 1 - x, y)
                case 3: (sx, sy) = (width - 1 - x, height - 1 - y)
                case 4: (sx, sy) = (x, height - 1 - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, height - 1 - x)
                case 7: (sx, sy) = (width - 1 - y, height - 1 - x)
                case 8: (sx, sy) = (width - 1 - y, x)
                default: (sx, sy) = (x, y)
                }
                let d = (y * dw + x) * 3, s = (sy * width + sx) * 3
                out[d] = pixels[s]; out[d + 1] = pixels[s + 1]; out[d + 2] = pixels[s + 2]
            }
        }
        return SampleImage(width: dw, height: dh, pixels: out)
    }

    /// The pixels to store so that a viewer applying `orientation` shows this picture upright.
    public func stored(forOrientation orientation: Int) -> SampleImage {
        // 6 and 8 undo each other; every other orientation is its own inverse.
        displayed(orientation: orientation == 6 ? 8 : orientation == 8 ? 6 : orientation)
    }

    /// RGB → 4 channels with a constant fourth (alpha, or K of CMYK).
    static func expand(_ rgb: [UInt8], fourth: UInt8) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(rgb.count / 3 * 4)
        for i in stride(from: 0, to: rgb.count, by: 3) {
            out.append(rgb[i])
            out.append(rgb[i + 1])
            out.append(rgb[i + 2])
            out.append(fourth)
        }
        return out
    }
}
