import AlbumSystem

/// Similar photos (`duplicates/similar/`): a 64-bit difference hash (dHash) of each still's
/// picture, upright, and groups of photos whose hashes differ in at most `threshold` bits
/// (docs/rules.md, "Similar photos").
///
/// Pure: the hash of a 9x8 grey picture and how hashes become groups. The decoding is a render
/// worker's (`RenderRequest.Kind.hash`), the reading and keeping `SimilarFinder`'s.
public enum SimilarGroups {
    /// The grey picture a hash is made of: 9 columns, 8 rows.
    public static let width = 9
    public static let height = 8
    /// Bits two hashes may differ in and their photos still be similar: the largest distance
    /// the known-answer pairs of `PerceptualHashingTests` reach (a re-encode, a resize, a 5% crop,
    /// one scene shot twice with a small shift) with room to spare, and well below the distance
    /// of different photos (half the bits, 32, on average).
    public static let threshold = 10

    /// Stills one hash may hold and still be shown as similar photos: a hash held by more is a
    /// plain picture (`plainPictures`; docs/rules.md, "Plain pictures").
    public static let plainBound = 1_000

    /// The dHash of a 9x8 grey picture (rows top to bottom): bit 63 - (8 * row + column) is set
    /// when the pixel at (column, row) is brighter than its right neighbour. The first row's first
    /// comparison is the most significant bit, so that the hash read in hex reads the picture
    /// row by row.
    public static func dHash(_ grey: [UInt8]) -> UInt64 {
        precondition(grey.count == width * height)
        var hash: UInt64 = 0
        for row in 0..<height {
            for column in 0..<(width - 1) {
                hash <<= 1
                if grey[row * width + column] > grey[row * width + column + 1] { hash |= 1 }
            }
        }
        return hash
    }

    /// The plain pictures of `hashes`: those more than `bound` of them hold, and how many do. A
    /// sorted copy is counted by runs: no table of every hash.
    public static func plainPictures(_ hashes: [UInt64], bound: Int = plainBound) -> PlainPictures {
        guard hashes.count > bound else { return PlainPictures() }
        var plain = PlainPictures()
        let sorted = hashes.sorted()
        var start = 0
        for i in 1...sorted.count where i == sorted.count || sorted[i] != sorted[start] {
            if i - start > bound {
                plain.hashes.insert(sorted[start])
                plain.stills += i - start
            }
            start = i
        }
        return plain
    }

    /// Bits in which two hashes differ (their Hamming distance).
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// The hash in 16 lowercase hex digits (`user.albumfs.similar`, the index).
    public static func hex(_ hash: UInt64) -> String {
        let s = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// The photos that take part, of `photos` (all the library's), as positions in it: stills as
    /// the flat views list them (a Live Photo by its still, its video never; a RAW+JPEG pair once,
    /// by its JPEG), of a file of their own with bytes, and of a burst only its first photo (the
    /// oldest; by path at one time): a burst's photos are alike by making, not similar photos.
    public static func candidates(_ photos: [Photo]) -> [Int] {
        let pairs = RawPairs.partners(photos)
        var firstOfBurst: [String: Int] = [:]
        var chosen: [Int] = []
        for i in photos.indices where photos[i].format.isStill && photos[i].identity.size > 0 && !RawPairs.hidesFromFlatViews(i, photos, pairs) {
            guard let burst = photos[i].burstIdentifier else {
                chosen.append(i)
                continue
            }
            if let other = firstOfBurst[burst], !shotBefore(photos[i], photos[other]) { continue }
            firstOfBurst[burst] = i
        }
        return (chosen + firstOfBurst.values).sorted()
    }

    /// Whether `a` was shot before `b` (by path at one time).
    static func shotBefore(_ a: Photo, _ b: Photo) -> Bool {
        a.captureInstant != b.captureInstant ? a.captureInstant < b.captureInstant : a.relativePath < b.relativePath
    }

    /// Groups of `hashes` (positions in it, each group ascending, groups by their first member):
    /// the connected parts of the pairs within `threshold` bits, of two members or more. Photos of
    /// one hash (copies, a library of one picture) are joined in one pass over the hashes sorted,
    /// and pairs are searched among the distinct hashes alone, through `HashBlocks`: never all pairs.
    /// - Parameters:
    ///   - joined: positions known to be one group each (a previous pass's groups, their hashes
    ///     unchanged): joined without a search.
    ///   - querying: the positions whose pairs are searched for (nil: all); pairs between two
    ///     others are taken to be those `joined` holds (hashes added to a library searched alone).
    public static func groups(_ hashes: [UInt64], threshold: Int = threshold, joined: [[Int]] = [], querying: [Int]? = nil) -> [[Int]] {
        groups(hashes, threshold: threshold, joined: joined, querying: querying, widths: nil)
    }

    /// `groups`, the blocks split as `widths` (nil: as `HashBlocks` chooses by the count).
    static func groups(_ hashes: [UInt64], threshold: Int, joined: [[Int]], querying: [Int]?, widths: [Int]?) -> [[Int]] {
        let (distinct, slot) = collapsed(hashes)
        var sets = UnionFind(distinct.count)
        for group in joined where group.count > 1 {
            for i in group.dropFirst() { sets.union(Int(slot[group[0]]), Int(slot[i])) }
        }
        let queries = querying.map { positions in Array(Set(positions.map { Int(slot[$0]) })).sorted() }
        HashBlocks.join(distinct, within: threshold, queries: queries, widths: widths, into: &sets)
        var root = [Int32](repeating: 0, count: hashes.count)
        var members = [Int32](repeating: 0, count: distinct.count)
        for i in hashes.indices {
            root[i] = Int32(sets.find(Int(slot[i])))
            members[Int(root[i])] += 1
        }
        var at = [Int32](repeating: -1, count: distinct.count)
        var out: [[Int]] = []
        for i in hashes.indices where members[Int(root[i])] > 1 {
            let r = Int(root[i])
            if at[r] < 0 {
                at[r] = Int32(out.count)
                out.append([])
            }
            out[Int(at[r])].append(i)
        }
        return out
    }

    /// The distinct hashes of `hashes`, ascending, and each position's place among them.
    static func collapsed(_ hashes: [UInt64]) -> (distinct: [UInt64], slot: [Int32]) {
        var distinct: [UInt64] = []
        var slot = [Int32](repeating: 0, count: hashes.count)
        for i in hashes.indices.sorted(by: { hashes[$0] < hashes[$1] }) {
            if distinct.last != hashes[i] { distinct.append(hashes[i]) }
            slot[i] = Int32(distinct.count - 1)
        }
        return (distinct, slot)
    }

    /// Group numbers of keyed hashes (key → group, 1, 2, …, keys in no group left out), in the
    /// order of each group's smallest key so that the same files always give the same numbers.
    /// A group whose members are all exact copies of one another (one `exact` group each) is left
    /// out: `duplicates/` shows it already.
    public static func numbers<Key: Comparable & Hashable>(_ hashes: [Key: UInt64], exact: [Key: UInt32] = [:]) -> [Key: UInt32] {
        let keys = hashes.keys.sorted()
        return numbers(of: groups(keys.map { hashes[$0]! }).map { $0.map { keys[$0] } }, exact: exact)
    }

    /// `numbers`, and every group found (exact copies' alone too), which a later call given the
    /// same hashes and a few more takes as `joined`, searching only `added` (`groups`).
    public static func numbered<Key: Comparable & Hashable>(_ hashes: [Key: UInt64], exact: [Key: UInt32] = [:], joined: [[Key]] = [],
                                                           added: Set<Key>? = nil) -> (numbers: [Key: UInt32], groups: [[Key]]) {
        let keys = hashes.keys.sorted()
        let position = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        let known = joined.map { $0.compactMap { position[$0] } }.filter { $0.count > 1 }
        let found = groups(keys.map { hashes[$0]! }, joined: known, querying: added.map { $0.compactMap { position[$0] } }).map { $0.map { keys[$0] } }
        return (numbers(of: found, exact: exact), found)
    }

    /// Group numbers of `groups` (each ascending, groups by their first member), leaving out
    /// those whose members are all exact copies of one another.
    public static func numbers<Key: Comparable & Hashable>(of groups: [[Key]], exact: [Key: UInt32]) -> [Key: UInt32] {
        var result: [Key: UInt32] = [:]
        var next: UInt32 = 1
        for group in groups.map({ $0.sorted() }).sorted(by: { $0[0] < $1[0] }) where group.count > 1 {
            let copies = Set(group.map { exact[$0] })
            if copies.count == 1, copies.first! != nil { continue }
            for key in group { result[key] = next }
            next += 1
        }
        return result
    }
}

/// Hashes held by more stills than `SimilarGroups.plainBound` (a black frame, a blank screen, a
/// white page: a picture with no detail) and the stills that hold them, left out of similar
/// photos (`.albumfs/status`: `similar_plain`).
public struct PlainPictures: Sendable, Equatable {
    public var hashes: Set<UInt64> = []
    public var stills = 0

    public init() {}

    public var isEmpty: Bool { hashes.isEmpty }
}

/// What a similar photo's hash is, kept between mounts (`SimilarHashStore`): valid while the
/// file is the one hashed (its identity and ctime).
public struct SimilarHashRecord: StampedRecord, Sendable, Equatable {
    public var relativePath: String
    public var stamp: FileStamp
    /// The dHash; nil when the picture could not be decoded (not tried again while the file is the same).
    public var hash: UInt64?
    /// The group the last search put it in, among every group it found (exact copies' alone
    /// too): 0 none; nil not searched yet (hashed by a pass that did not end).
    public var group: UInt32?

    public init(relativePath: String, identity: FileIdentity, changedWhenRead: Timestamp?, hash: UInt64?, group: UInt32? = nil) {
        self.relativePath = relativePath
        stamp = FileStamp(identity: identity, changedWhenRead: changedWhenRead)
        self.hash = hash
        self.group = group
    }
}

/// Where similar photos' hashes are kept between mounts (the index: `LibraryIndex`).
public protocol SimilarHashStore: Sendable {
    func similarHashes() throws(Errno) -> [SimilarHashRecord]
    /// Hands each record to `body` as it is read, with no array of them all.
    func forEachSimilarHash(_ body: (SimilarHashRecord) -> Void) throws(Errno)
    /// The records the last search put in a group (a mount's first tree reads only those).
    func groupedSimilarHashes() throws(Errno) -> [SimilarHashRecord]
    /// Writes `records` (replacing those of their paths) and forgets `removals`, in one transaction.
    func saveSimilarHashes(_ records: [SimilarHashRecord], removing removals: [String]) throws(Errno)
}

extension SimilarHashStore {
    public func forEachSimilarHash(_ body: (SimilarHashRecord) -> Void) throws(Errno) { try similarHashes().forEach(body) }
}

/// What a hash of one photo came to.
public enum PerceptualHashOutcome: Sendable, Equatable {
    case hash(UInt64)
    /// Its picture cannot be decoded: kept as such while the file is the same.
    case undecodable
    /// Its file could not be read as scanned (changed or gone: its rescan follows).
    case unreadable
}

/// Hashes photos' pictures for similar photos (AlbumThumbnails implements it with a render
/// worker of its own at background priority).
public protocol PerceptualHasher: Sendable {
    /// The hash of `photo`'s picture, its file opened beneath `sourceRoot`.
    func perceptualHash(of photo: Photo, sourceRoot: String) -> PerceptualHashOutcome
    /// Returns once no thumbnail is being rendered (or after `seconds`): the hash pass yields.
    func yieldToRenders(seconds: Double)
}
