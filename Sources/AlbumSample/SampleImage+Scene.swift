import Glibc

/// Pictures for similar photos' fixtures (`duplicates/similar/`): a scene of its own per seed,
/// seen through a window that can move, and the edits people make to a copy (resized, cropped).
extension SampleImage {
    /// A scene: a sky and a ground split by a horizon, eight blocks and discs of their own
    /// colours, and light and shade over it all, each placed by `seed`. `shift` moves the window over the scene by that fraction of
    /// the width (a second shot of one scene, the camera turned a little); what comes into view
    /// is more of the same scene.
    public static func scene(width: Int, height: Int, seed: UInt64, shift: Double = 0) -> SampleImage {
        var random = SeededGenerator(seed: seed)
        let horizon = Double.random(in: 0.35...0.65, using: &random)
        let shapes = (0..<8).map { _ in
            (x: Double.random(in: -0.1...1.1, using: &random), y: Double.random(in: 0...1, using: &random),
             r: Double.random(in: 0.06...0.2, using: &random), disc: Bool.random(using: &random),
             colour: (UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random)))
        }
        // Light and shade over the whole scene (clouds, hills), of its own frequencies and phases.
        let waves = (0..<3).map { _ in
            (fx: Double.random(in: 0.5...2.5, using: &random), fy: Double.random(in: 0.5...2.5, using: &random),
             phase: Double.random(in: 0...(2 * Double.pi), using: &random))
        }
        var px = [UInt8](repeating: 0, count: width * height * 3)
        let aspect = Double(height) / Double(width)
        for row in 0..<height {
            for column in 0..<width {
                // Scene coordinates: x across the width (0...1 at no shift), y down the height.
                let x = (Double(column) + 0.5) / Double(width) + shift, y = (Double(row) + 0.5) / Double(height)
                var c: (UInt8, UInt8, UInt8) = y < horizon ? (UInt8(90 + 100 * y), UInt8(140 + 80 * y), 230) : (UInt8(60 + 60 * y), 110, 50)
                for s in shapes {
                    let (dx, dy) = (x - s.x, (y - s.y) * aspect)
                    if s.disc ? dx * dx + dy * dy < s.r * s.r : abs(dx) < s.r && abs(dy) < s.r * 0.7 { c = s.colour }
                }
                var light = 0.0
                for w in waves {
                    let angle: Double = 2 * Double.pi * (w.fx * x + w.fy * y) + w.phase
                    light += 22 * sin(angle)
                }
                func lit(_ v: UInt8) -> UInt8 { UInt8(max(0, min(255, Double(v) + light))) }
                let i = (row * width + column) * 3
                (px[i], px[i + 1], px[i + 2]) = (lit(c.0), lit(c.1), lit(c.2))
            }
        }
        return SampleImage(width: width, height: height, pixels: px)
    }

    /// The picture scaled to `width` x `height`, each pixel the mean of those it covers.
    public func resized(width w: Int, height h: Int) -> SampleImage {
        var px = [UInt8](repeating: 0, count: w * h * 3)
        for row in 0..<h {
            let y0 = row * height / h, y1 = max(y0 + 1, (row + 1) * height / h)
            for column in 0..<w {
                let x0 = column * width / w, x1 = max(x0 + 1, (column + 1) * width / w)
                var sum = (0, 0, 0)
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let i = (y * width + x) * 3
                        sum = (sum.0 + Int(pixels[i]), sum.1 + Int(pixels[i + 1]), sum.2 + Int(pixels[i + 2]))
                    }
                }
                let n = (y1 - y0) * (x1 - x0), o = (row * w + column) * 3
                (px[o], px[o + 1], px[o + 2]) = (UInt8(sum.0 / n), UInt8(sum.1 / n), UInt8(sum.2 / n))
            }
        }
        return SampleImage(width: w, height: h, pixels: px)
    }

    /// The picture with `fraction` of its width and of its height cut off, half on each side.
    public func cropped(by fraction: Double) -> SampleImage {
        let (dx, dy) = (Int(Double(width) * fraction / 2), Int(Double(height) * fraction / 2))
        let (w, h) = (width - 2 * dx, height - 2 * dy)
        var px: [UInt8] = []
        px.reserveCapacity(w * h * 3)
        for row in dy..<(dy + h) { px += pixels[((row * width + dx) * 3)..<((row * width + dx + w) * 3)] }
        return SampleImage(width: w, height: h, pixels: px)
    }
}
