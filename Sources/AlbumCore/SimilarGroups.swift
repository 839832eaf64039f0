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
    /// the connected parts of the pairs within `threshold` bits, of two members or more. Pairs
    /// are found through `HashBlocks` among the distinct hashes, never by comparing all pairs:
    /// photos of one hash (copies, a library of one picture) are joined in one pass.
    /// - Parameters:
    ///   - joined: positions known to be one group each (a previous pass's groups, their hashes
    ///     unchanged): joined without a search.
    ///   - querying: the positions whose pairs are searched for (nil: all); pairs between two
    ///     others are taken to be those `joined` holds (hashes added to a library searched alone).
    public static func groups(_ hashes: [UInt64], threshold: Int = threshold, joined: [[Int]] = [], querying: [Int]? = nil) -> [[Int]] {
        var sets = UnionFind(hashes.count)
        var byHash: [UInt64: [Int]] = [:]
        for (i, h) in hashes.enumerated() { byHash[h, default: []].append(i) }
        let distinct = Array(byHash.keys)
        for members in byHash.values { for i in members.dropFirst() { sets.union(members[0], i) } }
        for group in joined { for i in group.dropFirst() { sets.union(group[0], i) } }
        let queries = querying.map { positions in
            let at = Dictionary(uniqueKeysWithValues: distinct.enumerated().map { ($1, $0) })
            return Array(Set(positions.map { at[hashes[$0]]! }))
        }
        HashBlocks(distinct).pairs(within: threshold, of: queries) { a, b in sets.union(byHash[distinct[a]]![0], byHash[distinct[b]]![0]) }
        var byRoot: [Int: [Int]] = [:]
        for i in hashes.indices { byRoot[sets.find(i), default: []].append(i) }
        return byRoot.values.filter { $0.count > 1 }.sorted { $0[0] < $1[0] }
    }

    /// Group numbers of keyed hashes (key → group, 1, 2, …, keys in no group left out), in the
    /// order of each group's smallest key so that the same files always give the same numbers.
    /// A group whose members are all exact copies of one another (one `exact` group each) is left
    /// out: `duplicates/` shows it already.
    public static func numbers<Key: Comparable & Hashable>(_ hashes: [Key: UInt64], exact: [Key: UInt32] = [:]) -> [Key: UInt32] {
        numbered(hashes, exact: exact).numbers
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

/// A multi-index of 64-bit hashes: four 16-bit blocks, each with the hashes sorted by its value.
/// Two hashes within `t` bits agree within `t / 4` bits on at least one block (four blocks share
/// out at most `t` differing bits), so each hash need only be compared with those whose block is
/// that near to its own: a few buckets of a 65,536-value table, not every other hash.
struct HashBlocks {
    static let blocks = 4
    static let values = 65_536
    let hashes: [UInt64]
    /// Block `b`'s positions of `hashes` by that block's value, at `b * hashes.count`.
    private var order: [Int32]
    /// The hashes in `order`'s order, so that a bucket is scanned in sequence, not by position.
    private var sorted: [UInt64]
    /// Where each value of block `b` starts in its part of `order`, at `b * (values + 1)`.
    private var starts: [Int32]

    init(_ hashes: [UInt64]) {
        self.hashes = hashes
        let n = hashes.count
        order = [Int32](repeating: 0, count: n * Self.blocks)
        sorted = [UInt64](repeating: 0, count: n * Self.blocks)
        starts = [Int32](repeating: 0, count: (Self.values + 1) * Self.blocks)
        for b in 0..<Self.blocks {
            let base = b * (Self.values + 1)
            for h in hashes { starts[base + Int(Self.block(h, b)) + 1] += 1 }
            for v in 0..<Self.values { starts[base + v + 1] += starts[base + v] }
            var fill = Array(starts[base..<(base + Self.values)])
            for (i, h) in hashes.enumerated() {
                let v = Int(Self.block(h, b))
                order[b * n + Int(fill[v])] = Int32(i)
                sorted[b * n + Int(fill[v])] = h
                fill[v] += 1
            }
        }
    }

    static func block(_ hash: UInt64, _ b: Int) -> UInt16 { UInt16(truncatingIfNeeded: hash >> (16 * UInt64(b))) }

    /// Calls `body(i, j)`, i < j, for every pair within `threshold` bits (some more than once);
    /// with `queries`, `body(q, j)` for every pair of a query `q` and another position `j`.
    func pairs(within threshold: Int, of queries: [Int]? = nil, _ body: (Int, Int) -> Void) {
        let masks = Self.masks(radius: max(0, threshold) / Self.blocks)
        let n = hashes.count
        hashes.withUnsafeBufferPointer { hashes in
            sorted.withUnsafeBufferPointer { sorted in
                order.withUnsafeBufferPointer { order in
                    starts.withUnsafeBufferPointer { starts in
                        for q in 0..<(queries?.count ?? n) {
                            let i = queries?[q] ?? q
                            let h = hashes[i]
                            for b in 0..<Self.blocks {
                                let own = Self.block(h, b), base = b * (Self.values + 1), part = b * n
                                for mask in masks {
                                    let v = Int(own ^ mask)
                                    for k in (part + Int(starts[base + v]))..<(part + Int(starts[base + v + 1]))
                                    where (h ^ sorted[k]).nonzeroBitCount <= threshold {
                                        let j = Int(order[k])
                                        if queries == nil ? j > i : j != i { body(i, j) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every 16-bit mask of at most `radius` bits set, 0 first.
    static func masks(radius: Int) -> [UInt16] {
        var out: [UInt16] = [0]
        var level: [(mask: UInt16, next: Int)] = [(0, 0)]
        for _ in 0..<min(radius, 16) {
            var deeper: [(mask: UInt16, next: Int)] = []
            for (mask, next) in level { for bit in next..<16 { deeper.append((mask | 1 << UInt16(bit), bit + 1)) } }
            out += deeper.map(\.mask)
            level = deeper
        }
        return out
    }
}

/// Disjoint sets of positions, joined by `union` (path halving, by size).
struct UnionFind {
    private var parent: [Int32]
    private var size: [Int32]

    init(_ count: Int) {
        parent = (0..<count).map { Int32($0) }
        size = [Int32](repeating: 1, count: count)
    }

    mutating func find(_ i: Int) -> Int {
        var i = i
        while Int(parent[i]) != i {
            parent[i] = parent[Int(parent[i])]
            i = Int(parent[i])
        }
        return i
    }

    mutating func union(_ a: Int, _ b: Int) {
        var (ra, rb) = (find(a), find(b))
        guard ra != rb else { return }
        if size[ra] < size[rb] { swap(&ra, &rb) }
        parent[rb] = Int32(ra)
        size[ra] += size[rb]
    }
}

/// What a similar photo's hash is, kept between mounts (`SimilarHashStore`): valid while the
/// file is the one hashed (its identity and ctime).
public struct SimilarHashRecord: Sendable, Equatable {
    public var relativePath: String
    public var identity: FileIdentity
    public var changedWhenRead: Timestamp?
    /// The dHash; nil when the picture could not be decoded (not tried again while the file is the same).
    public var hash: UInt64?
    /// The group the last search put it in, among every group it found (exact copies' alone
    /// too): 0 none; nil not searched yet (hashed by a pass that did not end).
    public var group: UInt32?

    public init(relativePath: String, identity: FileIdentity, changedWhenRead: Timestamp?, hash: UInt64?, group: UInt32? = nil) {
        self.relativePath = relativePath
        self.identity = identity
        self.changedWhenRead = changedWhenRead
        self.hash = hash
        self.group = group
    }

    /// Whether the record stands for `photo`'s file as scanned.
    public func holds(_ photo: Photo) -> Bool {
        photo.sourcePath == relativePath && photo.identity == identity && photo.changedWhenRead == changedWhenRead
    }
}

/// Where similar photos' hashes are kept between mounts (the index: `LibraryIndex`).
public protocol SimilarHashStore: Sendable {
    func similarHashes() throws(Errno) -> [SimilarHashRecord]
    /// The records the last search put in a group (a mount's first tree reads only those).
    func groupedSimilarHashes() throws(Errno) -> [SimilarHashRecord]
    /// Writes `records` (replacing those of their paths) and forgets `removals`, in one transaction.
    func saveSimilarHashes(_ records: [SimilarHashRecord], removing removals: [String]) throws(Errno)
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
