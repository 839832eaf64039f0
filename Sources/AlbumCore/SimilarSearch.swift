/// The search behind `SimilarGroups.groups`: which hashes are within a number of bits of one
/// another, joined into groups, without comparing every pair.
///
/// A multi-index over the distinct hashes: the 64 bits are cut into blocks, and two hashes within
/// `t` bits agree on block `b` within `radius[b]` bits for at least one `b` when the radii plus one
/// add up to more than `t` (were every block further apart, their distance would exceed `t`). Each
/// hash is compared only with the hashes whose block value lies within that radius of its own.
/// One block is indexed at a time, and its hashes are taken in the order of their block value,
/// so that the values they probe move through the table together; each pair is compared once,
/// from its later end in that order.
struct HashBlocks {
    /// Block widths in bits, from the lowest: four of 16, a 65,536-value table each (256 KB),
    /// which stays in the processor's cache as the probes move through it; wider blocks (three
    /// of 21–22 bits: fewer hashes to compare, more values to probe in 8 MB tables) are slower
    /// at a million (docs/benchmarks.md).
    static let widths = [16, 16, 16, 16]

    /// Each block's radius for `threshold`: the radii plus one add up to `threshold + 1` (the
    /// least that leaves no pair unseen), the larger ones on the first blocks (the narrower);
    /// -1 is a block not probed at all.
    static func radii(threshold: Int, blocks: Int) -> [Int] {
        let spread = max(0, threshold) + 1
        return (0..<blocks).map { b in spread / blocks - 1 + (b < spread % blocks ? 1 : 0) }
    }

    /// Values of at least this many hashes remember how many of their first hashes are one
    /// group (`Block.settled`): a smaller one is cheaper to compare again than to ask the groups about.
    static let settledSize = 8

    /// Joins in `sets` every two of `hashes` (distinct hashes) that are within `threshold` bits;
    /// with `queries`, only those pairs with a query in them. Pairs whose ends are one group
    /// already may be left unvisited: hashes of a value found all in one group are compared with
    /// later queries until one joins them, not hash by hash. `widths` (adding up to 64) is a
    /// split chosen by the caller rather than by the count.
    static func join(_ hashes: [UInt64], within threshold: Int, queries: [Int]? = nil, widths: [Int]? = nil, into sets: inout UnionFind) {
        guard threshold >= 0, hashes.count > 1 else { return }
        let widths = widths ?? Self.widths
        let radii = radii(threshold: threshold, blocks: widths.count)
        let asked = queries.map { $0.map { (hash: hashes[$0], at: $0) } }
        var shift = 0
        for (width, radius) in zip(widths, radii) {
            defer { shift += width }
            guard radius >= 0 else { continue }
            var block = Block(hashes, shift: shift, width: width)
            block.join(within: threshold, masks: masks(width: width, radius: radius), queries: asked, into: &sets)
        }
    }

    /// Every `width`-bit mask of at most `radius` bits set, 0 first.
    static func masks(width: Int, radius: Int) -> [UInt32] {
        var out: [UInt32] = [0]
        var level: [(mask: UInt32, next: Int)] = [(0, 0)]
        for _ in 0..<min(radius, width) {
            var deeper: [(mask: UInt32, next: Int)] = []
            for (mask, next) in level { for bit in next..<width { deeper.append((mask | 1 << UInt32(bit), bit + 1)) } }
            out += deeper.map(\.mask)
            level = deeper
        }
        return out
    }
}

/// One block of `HashBlocks`: the hashes sorted by the block's value (a counting sort), where each
/// value starts, and which values' hashes are known to be one group.
struct Block {
    let shift: Int
    let width: Int
    /// The hashes in the block's order, so that a value's hashes are read in sequence.
    private var sorted: [UInt64]
    /// Their positions in the hashes given.
    private var order: [Int32]
    /// Where each value starts in `sorted`; `starts[v + 1]` is where it ends.
    private var starts: [UInt32]
    /// How many of each value's first hashes are known to be one group (values of
    /// `HashBlocks.settledSize` hashes or more).
    private var settled: [UInt32]

    init(_ hashes: [UInt64], shift: Int, width: Int) {
        self.shift = shift
        self.width = width
        let values = 1 << width
        let n = hashes.count
        var starts = [UInt32](repeating: 0, count: values + 1)
        for h in hashes { starts[Self.value(h, shift, width)] += 1 }
        // Each value's end, then (placing from the last hash back) its start: stable, one table.
        for v in 1..<values { starts[v] += starts[v - 1] }
        starts[values] = UInt32(n)
        var sorted = [UInt64](repeating: 0, count: n)
        var order = [Int32](repeating: 0, count: n)
        for i in stride(from: n - 1, through: 0, by: -1) {
            let v = Self.value(hashes[i], shift, width)
            starts[v] -= 1
            sorted[Int(starts[v])] = hashes[i]
            order[Int(starts[v])] = Int32(i)
        }
        self.sorted = sorted
        self.order = order
        self.starts = starts
        settled = [UInt32](repeating: 0, count: values)
    }

    static func value(_ hash: UInt64, _ shift: Int, _ width: Int) -> Int { Int((hash >> UInt64(shift)) & ((1 << UInt64(width)) - 1)) }

    /// Joins each query (all hashes when nil), in the block's order, with the hashes of every
    /// value its own value's `masks` reach.
    mutating func join(within threshold: Int, masks: [UInt32], queries: [(hash: UInt64, at: Int)]?, into sets: inout UnionFind) {
        let (shift, width) = (shift, width)
        let asked = queries?.sorted { Self.value($0.hash, shift, width) < Self.value($1.hash, shift, width) }
        sorted.withUnsafeBufferPointer { sorted in
            order.withUnsafeBufferPointer { order in
                starts.withUnsafeBufferPointer { starts in
                    masks.withUnsafeBufferPointer { masks in
                        settled.withUnsafeMutableBufferPointer { settled in
                            let table = Table(shift: shift, width: width, threshold: threshold, sorted: sorted, order: order,
                                              starts: starts, settled: settled, masks: masks)
                            if let asked {
                                for q in asked { table.join(q.hash, q.at, before: sorted.count, &sets) }
                            } else {
                                for k in sorted.indices { table.join(sorted[k], Int(order[k]), before: k, &sets) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The block's tables as buffers: the search reads them hundreds of times a hash.
    private struct Table {
        let shift: Int, width: Int, threshold: Int
        let sorted: UnsafeBufferPointer<UInt64>
        let order: UnsafeBufferPointer<Int32>
        let starts: UnsafeBufferPointer<UInt32>
        let settled: UnsafeMutableBufferPointer<UInt32>
        let masks: UnsafeBufferPointer<UInt32>

        /// Joins position `i` (of `hash`) with the hashes before `end` in the block's order that
        /// its masks reach: a search of every hash compares each with those before it alone
        /// (each pair once, from its later end), a query with every hash.
        func join(_ hash: UInt64, _ i: Int, before end: Int, _ sets: inout UnionFind) {
            let own = UInt32(Block.value(hash, shift, width))
            // (Values above its own hold only hashes after `end` when `end` is its own place.)
            let top = end < sorted.count ? own : UInt32.max
            for mask in masks where own ^ mask <= top { probe(Int(own ^ mask), hash, i, end, &sets) }
        }

        /// Joins position `i` (of `hash`) with the hashes of value `v` before `end` within
        /// `threshold` bits.
        func probe(_ v: Int, _ hash: UInt64, _ i: Int, _ end: Int, _ sets: inout UnionFind) {
            let from = Int(starts[v]), to = min(Int(starts[v + 1]), end)
            guard from < to else { return }
            let tracked = Int(starts[v + 1]) - from >= HashBlocks.settledSize
            let known = tracked ? from + Int(settled[v]) : from
            if known > from {
                // One group already: nothing to learn once `i` is in it, else one near hash joins all.
                if sets.find(i) != sets.find(Int(order[from])) {
                    for k in from..<min(known, to) where (hash ^ sorted[k]).nonzeroBitCount <= threshold {
                        sets.union(i, Int(order[k]))
                        break
                    }
                }
                guard known < to else { return }
            }
            var together = tracked
            for k in known..<to {
                let j = Int(order[k])
                if (hash ^ sorted[k]).nonzeroBitCount <= threshold {
                    sets.union(i, j)
                } else if together, sets.find(j) != sets.find(i) {
                    together = false
                }
            }
            if together, known == from || sets.find(i) == sets.find(Int(order[from])) { settled[v] = UInt32(to - from) }
        }
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

    /// The count of positions in `i`'s set.
    mutating func count(_ i: Int) -> Int { Int(size[find(i)]) }
}
