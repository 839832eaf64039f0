/// Live Photos: a still and the short video taken with it, shown side by side as one moment.
///
/// A still and a video are one Live Photo when their Apple content identifiers match (the
/// still's maker note tag 0x0011, the video's `com.apple.quicktime.content.identifier`); failing
/// that, when they lie in the same folder under the same name but for the extension (any case)
/// and were captured within `nameWindow` of each other (copies made without the identifiers, as
/// Windows' import and many backup tools make them). Each has one partner at most.
public enum LivePhotos {
    /// How far apart a still's and a video's capture times may be for a pair by name alone (an
    /// iPhone's video starts 1.5 s before its still).
    public static let nameWindow: Int64 = 2

    /// A content identifier as a photo keeps it: 63 bits of its bytes (FNV-1a), ASCII case folded
    /// (identifiers are UUIDs, written upper case by iOS, lower case by some tools).
    public static func identifierKey(_ identifier: String) -> UInt64 {
        // (0 is "none"; the top bit clear leaves it for a motion photo's range: `MotionVideoBits`.)
        max(1, foldedHash(identifier.utf8[...]) >> 1)
    }

    /// Photo index → its partner's index, both ways.
    public static func partners(_ photos: [Photo]) -> [Int32: Int32] {
        // (A motion photo and its video are paired apart: `MotionPhotos`.)
        let videos = photos.indices.filter { photos[$0].format == .video && photos[$0].motionVideo == nil }
        guard !videos.isEmpty else { return [:] }
        var partners: [Int32: Int32] = [:]
        func pair(_ still: Int, _ video: Int) {
            partners[Int32(still)] = Int32(video)
            partners[Int32(video)] = Int32(still)
        }
        // By identifier: each video with the still of its identifier (the one of its own name
        // first: an edited copy, `IMG_E1234.JPG`, keeps the original's identifier).
        var byIdentifier: [UInt64: [Int]] = [:]
        for i in photos.indices where photos[i].format.isStill && photos[i].motionVideo == nil {
            let key = photos[i].liveIdentifier
            if key != 0 { byIdentifier[key, default: []].append(i) }
        }
        for v in videos {
            guard photos[v].liveIdentifier != 0, let stills = byIdentifier[photos[v].liveIdentifier] else { continue }
            let free = stills.filter { partners[Int32($0)] == nil }.sorted { photos[$0].relativePath < photos[$1].relativePath }
            if let still = free.first(where: { sameStem(photos[$0], photos[v]) }) ?? free.first { pair(still, v) }
        }
        // By name and time, for the videos left.
        var byStem: [UInt64: [Int]] = [:]
        for v in videos where partners[Int32(v)] == nil { byStem[stemKey(photos[v]), default: []].append(v) }
        guard !byStem.isEmpty else { return partners }
        for i in photos.indices where photos[i].format.isStill && photos[i].motionVideo == nil && partners[Int32(i)] == nil {
            guard let candidates = byStem[stemKey(photos[i])] else { continue }
            if let v = candidates.first(where: { partners[Int32($0)] == nil && sameStem(photos[i], photos[$0])
                && Self.within(nameWindow, photos[i].captureInstant.seconds, photos[$0].captureInstant.seconds) }) {
                pair(i, v)
            }
        }
        return partners
    }

    /// The photo's path without its extension, hashed with ASCII case folded (no allocation:
    /// every still of a library with videos is keyed).
    static func stemKey(_ photo: Photo) -> UInt64 { foldedHash(stem(photo.relativePath)) }

    static func sameStem(_ a: Photo, _ b: Photo) -> Bool {
        let (x, y) = (stem(a.relativePath), stem(b.relativePath))
        return x.count == y.count && zip(x, y).allSatisfy { fold($0) == fold($1) }
    }

    /// A path's bytes before the last dot of its last component (all of it without one).
    static func stem(_ path: String) -> Substring.UTF8View {
        let bytes = path.utf8
        let slash = bytes.lastIndex(of: UInt8(ascii: "/")).map { bytes.index(after: $0) } ?? bytes.startIndex
        let dot = bytes[slash...].lastIndex(of: UInt8(ascii: "."))
        return path[..<(dot ?? bytes.endIndex)].utf8
    }

    static func fold(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    static func foldedHash(_ bytes: Substring.UTF8View) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(fold(b))) &* 0x100_0000_01B3 }
        return h
    }

    /// Whether two times in seconds lie at most `window` apart (times from hostile files or a
    /// filesystem's odd mtimes may lie at the ends of Int64, where a difference overflows).
    static func within(_ window: Int64, _ a: Int64, _ b: Int64) -> Bool {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        return !overflow && difference.magnitude <= UInt64(window)
    }
}
