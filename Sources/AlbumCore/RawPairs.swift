/// RAW+JPEG pairs: what a camera set to "RAW+JPEG" writes for one shot, `DSC_0001.NEF` and
/// `DSC_0001.JPG` side by side.
///
/// A camera RAW and a JPEG or HEIF still are a pair when they lie in the same folder under the
/// same name but for the extension (any case) and were captured within `window` of each other
/// (a camera writes both from one exposure; an export made later from the RAW is no pair).
/// Each has one partner at most. Both are shown in `by-date/`; the flat views show the JPEG
/// alone, as a phone's Photos app shows such a pair as one photo.
public enum RawPairs {
    /// How far apart the two capture times may be (the same exposure: equal, but for a camera
    /// whose JPEG is stamped as it is written).
    public static let window: Int64 = 2

    /// The formats a RAW's partner may have.
    static let partnerFormats: Set<ImageFormat> = [.jpeg, .heif]

    /// Photo index → its partner's index, both ways.
    public static func partners(_ photos: [Photo]) -> [Int32: Int32] {
        var raws: [UInt64: [Int]] = [:]
        for i in photos.indices where photos[i].format == .raw { raws[LivePhotos.stemKey(photos[i]), default: []].append(i) }
        guard !raws.isEmpty else { return [:] }
        var partners: [Int32: Int32] = [:]
        // (In path order: the same pairs whatever order the photos come in.)
        let stills = photos.indices.filter { partnerFormats.contains(photos[$0].format) }.sorted { photos[$0].relativePath < photos[$1].relativePath }
        for i in stills {
            guard let candidates = raws[LivePhotos.stemKey(photos[i])] else { continue }
            let free = candidates.filter { partners[Int32($0)] == nil && LivePhotos.sameStem(photos[i], photos[$0])
                && abs(photos[i].captureInstant.seconds - photos[$0].captureInstant.seconds) <= window }
            if let raw = free.min(by: { photos[$0].relativePath < photos[$1].relativePath }) {
                partners[Int32(i)] = Int32(raw)
                partners[Int32(raw)] = Int32(i)
            }
        }
        return partners
    }

    /// Whether photo `i` is left out of the flat views: a RAW with its JPEG.
    public static func hidesFromFlatViews(_ i: Int, _ photos: [Photo], _ partners: [Int32: Int32]) -> Bool {
        photos[i].format == .raw && partners[Int32(i)] != nil
    }
}
