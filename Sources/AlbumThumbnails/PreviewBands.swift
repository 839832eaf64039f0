/// Whether an embedded preview may not show what its primary image shows: a band of black rows
/// across its top or bottom while the rest of it is not dark. Some cameras' HEIF previews are
/// made of a frame taller than the photo kept, padded with black: same aspect ratio, another
/// picture. Such a preview is doubtful, and the primary image is decoded instead: its own rows
/// say what is really there (a night sky stays black, from the photo itself).
enum PreviewBands {
    /// Rows whose mean and brightest sample are at most these are black (JPEG/HEVC noise
    /// included).
    static let blackMean = 12
    static let blackPeak = 40
    /// A band is at least this fraction of the height (a sixth of a frame is what cameras pad).
    static let minimumBand = 1.0 / 20
    /// The rest of the picture is "not dark" when its mean is at least this.
    static let litMean = 32

    /// Whether `image` has a black band at its top or bottom and is lit elsewhere.
    static func doubtful(_ image: RGBImage) -> Bool {
        guard image.width > 0, image.height >= 20 else { return false }
        let rows = (0..<image.height).map { row(image, $0) }
        let top = rows.prefix { $0.mean <= blackMean && $0.peak <= blackPeak }.count
        let bottom = rows.reversed().prefix { $0.mean <= blackMean && $0.peak <= blackPeak }.count
        let band = max(top, bottom)
        guard band < image.height, Double(band) >= Double(image.height) * minimumBand else { return false }
        let rest = top >= bottom ? rows[top...] : rows[..<(image.height - bottom)]
        return rest.reduce(0) { $0 + $1.mean } / rest.count >= litMean
    }

    /// A row's mean sample and its brightest one.
    private static func row(_ image: RGBImage, _ y: Int) -> (mean: Int, peak: Int) {
        var sum = 0
        var peak: UInt8 = 0
        let start = y * image.width * 3
        for i in start..<(start + image.width * 3) {
            let v = image.pixels[i]
            sum += Int(v)
            peak = max(peak, v)
        }
        return (sum / (image.width * 3), Int(peak))
    }
}
