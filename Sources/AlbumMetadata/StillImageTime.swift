import AlbumCore

/// The moment a Live Photo's motion part shows its still: the one sample of a timed-metadata
/// track (QuickTime `mebx` sample entry, ISO/IEC 14496-12 12.9.4) whose key is
/// `com.apple.quicktime.still-image-time`, placed on the movie's timeline by the track's edit
/// list (an empty edit before it) or by its own time to sample table (an empty sample before it).
///
/// Only the movie box's track headers and that one track's small tables are read (the video's
/// sample tables and the media data never are); a track whose sample entry declares other keys
/// beside this one is passed over, its samples unread (Apple's writers give the key a track of
/// its own).
public struct StillImageTime {
    public static let key = "com.apple.quicktime.still-image-time"
    /// Samples of the metadata track looked at at most for the first that holds a value.
    static let maxSamples = 64
    /// A moment later than this (a day into a Live Photo's three seconds) is damage: none.
    static let longestMoment = 86_400.0

    /// Seconds from the start of the movie to the still's frame; nil when the file names none.
    public static func seconds<E: Error>(size: Int64, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> Double? {
        var walk = BoxWalk(fileSize: size)
        guard let movie = try walk.children(from: 0, to: size, limit: VideoHeader.topLevelBoxes, read)
            .first(where: { $0.type == "moov" }) else { return nil }
        var movieScale: Int?
        for box in try walk.children(inside: movie, limit: VideoHeader.childBoxes, read) {
            if box.type == "mvhd", let body = try walk.body(box, read) {
                let v = BoxFields(body)
                movieScale = v.u32(v.version == 1 ? 20 : 12).map(Int.init)
            }
            guard box.type == "trak", let scale = movieScale, scale > 0,
                  let track = try MetadataTrack(&walk, box, read) else { continue }
            return track.seconds(movieScale: scale)
        }
        return nil
    }
}

/// A timed-metadata track whose sample entry declares the still-image-time key alone: its
/// timescale, first sample that holds a value, and edit list.
struct MetadataTrack {
    /// The media's timescale (`mdhd`).
    var mediaScale = 0
    /// When the first sample holding a value starts, in the media's timescale.
    var sampleTime: Int64 = 0
    /// The edit list's entries (`elst`), when there is one.
    var edits: [Edit] = []

    struct Edit {
        /// Its length on the movie's timeline, in the movie's timescale.
        let duration: Int64
        /// Where it starts in the media, in the media's timescale; -1: an empty edit.
        let mediaTime: Int64
    }

    /// An empty one (filled field by field by tests of `seconds`).
    init() {}

    /// Nil unless the track is such a track with such a sample.
    init?<E: Error>(_ walk: inout BoxWalk, _ track: PlacedBox, _ read: (Int64, Int) throws(E) -> [UInt8]) throws(E) {
        var found = false
        for box in try walk.children(inside: track, limit: VideoHeader.childBoxes, read) {
            if box.type == "edts" {
                for child in try walk.children(inside: box, limit: VideoHeader.childBoxes, read) where child.type == "elst" {
                    edits = try walk.body(child, read).map(Self.edits) ?? []
                }
            }
            if box.type == "mdia" { found = try readMedia(&walk, box, read) }
        }
        guard found, mediaScale > 0 else { return nil }
    }

    /// The media box: its timescale, its handler (`meta`), and its sample tables.
    private mutating func readMedia<E: Error>(_ walk: inout BoxWalk, _ media: PlacedBox,
                                              _ read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> Bool {
        for box in try walk.children(inside: media, limit: VideoHeader.childBoxes, read) {
            switch box.type {
            case "mdhd":
                guard let body = try walk.body(box, read) else { return false }
                let v = BoxFields(body)
                mediaScale = v.u32(v.version == 1 ? 20 : 12).map(Int.init) ?? 0
            case "hdlr":
                guard try walk.body(box, read).flatMap({ BoxFields($0).fourCC(8) }) == "meta" else { return false }
            case "minf":
                for child in try walk.children(inside: box, limit: VideoHeader.childBoxes, read) where child.type == "stbl" {
                    return try readSampleTable(&walk, child, read)
                }
            default: continue
            }
        }
        return false
    }

    /// The sample table: a `mebx` entry declaring the key alone, and when its first sample that
    /// holds a value starts (samples of fewer than 9 bytes hold no key's box: empty ones).
    private mutating func readSampleTable<E: Error>(_ walk: inout BoxWalk, _ table: PlacedBox,
                                                    _ read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> Bool {
        var declares = false
        var durations: [Int64] = []
        var sizes: [Int64] = []
        for box in try walk.children(inside: table, limit: VideoHeader.childBoxes, read) {
            guard ["stsd", "stts", "stsz"].contains(box.type), declares || box.type == "stsd",
                  let body = try walk.body(box, read) else { continue }
            switch box.type {
            case "stsd": declares = Self.declaresStillImageTime(body)
            case "stts": durations = Self.sampleDurations(BoxFields(body))
            default: sizes = Self.sampleSizes(BoxFields(body))
            }
        }
        guard declares, let first = sizes.firstIndex(where: { $0 >= 9 }), first <= durations.count else { return false }
        sampleTime = durations.prefix(first).reduce(0, +)
        return true
    }

    /// Whether a sample description (`stsd`) has one `mebx` entry whose key table holds the
    /// still-image-time key (namespace `mdta`) and no other.
    static func declaresStillImageTime(_ stsd: [UInt8]) -> Bool {
        // Version and flags, the entry count, then the entries: a sample entry's 8 bytes
        // (6 reserved, the data reference index) before its boxes.
        guard BoxFields.be32(stsd, 4) == 1, let entry = MetadataBoxes.children(stsd, from: 8).first, entry.type == "mebx",
              let keys = MetadataBoxes.children(entry.body, from: 8).first(where: { $0.type == "keys" }) else { return false }
        let declared = MetadataBoxes.children(keys.body)
        guard declared.count == 1, let declaration = MetadataBoxes.children(declared[0].body).first(where: { $0.type == "keyd" }),
              declaration.body.count > 4 else { return false }
        return declaration.body.starts(with: "mdta".utf8) && declaration.body.dropFirst(4).elementsEqual(StillImageTime.key.utf8)
    }

    /// Each sample's duration (`stts`: runs of a count and a duration), for the first `maxSamples`.
    static func sampleDurations(_ v: BoxFields) -> [Int64] {
        var durations: [Int64] = []
        var at = 8
        for _ in 0..<min(v.u32(4).map(Int.init) ?? 0, StillImageTime.maxSamples) {
            guard let count = v.u32(at), let duration = v.u32(at + 4) else { break }
            durations += repeatElement(Int64(duration), count: min(Int(count), StillImageTime.maxSamples - durations.count))
            at += 8
        }
        return durations
    }

    /// Each sample's size (`stsz`: one for all, or one each), for the first `maxSamples`.
    static func sampleSizes(_ v: BoxFields) -> [Int64] {
        guard let common = v.u32(4), let count = v.u32(8) else { return [] }
        let n = min(Int(count), StillImageTime.maxSamples)
        if common != 0 { return Array(repeating: Int64(common), count: n) }
        return (0..<n).compactMap { v.u32(12 + 4 * $0).map(Int64.init) }
    }

    /// An edit list's entries (version 0: 32-bit fields; 1: 64-bit; the media time signed), the
    /// rate not needed.
    static func edits(_ body: [UInt8]) -> [Edit] {
        let v = BoxFields(body)
        let field = v.version == 1 ? 8 : 4
        var edits: [Edit] = []
        for i in 0..<min(v.u32(4).map(Int.init) ?? 0, VideoHeader.childBoxes) {
            let at = 8 + i * (2 * field + 4)
            guard let duration = signed(v, at, field), let mediaTime = signed(v, at + field, field), duration >= 0 else { break }
            edits.append(Edit(duration: duration, mediaTime: mediaTime))
        }
        return edits
    }

    /// A big-endian two's complement integer of 4 or 8 bytes.
    static func signed(_ v: BoxFields, _ at: Int, _ size: Int) -> Int64? {
        guard let high = v.u32(at) else { return nil }
        guard size == 8 else { return Int64(Int32(bitPattern: high)) }
        guard let low = v.u32(at + 4) else { return nil }
        return Int64(bitPattern: UInt64(high) << 32 | UInt64(low))
    }

    /// The sample's time on the movie's timeline: after the edit list's leading empty edits,
    /// from where its first other edit starts in the media.
    /// (In floating point: a damaged edit list's 64-bit times would overflow integer sums.)
    func seconds(movieScale: Int) -> Double? {
        let lead = edits.prefix { $0.mediaTime == -1 }.reduce(0.0) { $0 + Double($1.duration) }
        let start = Double(edits.first { $0.mediaTime != -1 }?.mediaTime ?? 0)
        let seconds = lead / Double(movieScale) + max(0, Double(sampleTime) - start) / Double(mediaScale)
        return seconds.isFinite && seconds >= 0 && seconds <= StillImageTime.longestMoment ? seconds : nil
    }
}
