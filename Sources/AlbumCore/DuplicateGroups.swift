import AlbumSystem

/// Exact duplicates: files with the same bytes, found by hashing only files of equal size, and
/// among those only the ones whose cheap partial hash agrees (docs/rules.md, "Duplicates").
///
/// Pure: what to hash and how hashes become groups. The reading is `DuplicateFinder`'s.
public enum DuplicateGroups {
    /// Bytes hashed at each end of a file for its partial hash: a JPEG's header and its last
    /// scan lines, where two different photos of one size nearly always differ already.
    public static let partialSpan = 64 * 1024

    /// Whether a photo takes part: a file of its own with bytes (a motion photo's video is part
    /// of its still's file; empty files are damage, not copies).
    public static func isCandidate(_ photo: Photo) -> Bool { !photo.isEmbeddedVideo && photo.identity.size > 0 }

    /// The photos that share their size with another candidate, in runs of one size each
    /// (largest first): the only ones worth a read. Sorting small keys keeps it one pass of
    /// memory proportional to the photos, not a map of every size.
    public static func sameSizeRuns(_ photos: [Photo]) -> [[Int]] {
        var keys: [(size: Int64, index: Int32)] = []
        keys.reserveCapacity(photos.count)
        for i in photos.indices where isCandidate(photos[i]) { keys.append((photos[i].identity.size, Int32(i))) }
        keys.sort { $0.size != $1.size ? $0.size > $1.size : $0.index < $1.index }
        return runs(keys.count) { keys[$0].size == keys[$1].size }.map { $0.map { Int(keys[$0].index) } }
    }

    /// Runs of equal neighbours of length two or more, as position ranges.
    static func runs(_ count: Int, same: (Int, Int) -> Bool) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        while start < count {
            var end = start + 1
            while end < count && same(start, end) { end += 1 }
            if end - start > 1 { result.append(start..<end) }
            start = end
        }
        return result
    }

    /// Members of `run` (photos of one size) split by equal keys, only splits of two or more.
    public static func split<Key: Hashable>(_ run: [Int], by key: (Int) -> Key?) -> [[Int]] {
        var byKey: [Key: [Int]] = [:]
        for i in run { if let k = key(i) { byKey[k, default: []].append(i) } }
        return byKey.values.filter { $0.count > 1 }.map { $0.sorted() }
    }

    /// Group numbers from full hashes (key → its file's full hash): 1, 2, … for each hash held
    /// by two keys or more, in hash order, so that the same files always give the same numbers
    /// (a remount's groups equal those its views snapshot showed); keys in no group are left out.
    public static func numbers<Key: Hashable>(_ fullHashes: [Key: String]) -> [Key: UInt32] {
        var byHash: [String: [Key]] = [:]
        for (key, hash) in fullHashes { byHash[hash, default: []].append(key) }
        var result: [Key: UInt32] = [:]
        var next: UInt32 = 1
        for hash in byHash.keys.sorted() where byHash[hash]!.count > 1 {
            for key in byHash[hash]! { result[key] = next }
            next += 1
        }
        return result
    }
}

/// What is known of one file's content, kept between mounts (`ContentHashStore`): valid while
/// the file is the one hashed (its identity and ctime).
public struct ContentHashRecord: StampedRecord, Sendable, Equatable {
    public var relativePath: String
    public var stamp: FileStamp
    /// XXH3-64 of the first and last `DuplicateGroups.partialSpan` bytes.
    public var partial: UInt64
    /// XXH3-128 of every byte, in hex; nil until another file shares its size and partial hash.
    public var full: String?

    public init(relativePath: String, identity: FileIdentity, changedWhenRead: Timestamp?, partial: UInt64, full: String?) {
        self.relativePath = relativePath
        stamp = FileStamp(identity: identity, changedWhenRead: changedWhenRead)
        self.partial = partial
        self.full = full
    }
}

/// Where content hashes are kept between mounts (the index: `LibraryIndex`).
public protocol ContentHashStore: Sendable {
    func contentHashes() throws(Errno) -> [ContentHashRecord]
    /// Writes `records` (replacing those of their paths) and forgets `removals`, in one transaction.
    func saveContentHashes(_ records: [ContentHashRecord], removing removals: [String]) throws(Errno)
}
