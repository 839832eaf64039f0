import AlbumCore
import AlbumMetadata

/// Entries by their path's XXH3-64 (`key`), as a sorted array of fixed-size entries (no string
/// kept, no dictionary's buckets: 48 bytes a `KnownContent`, where a dictionary took ~150 at a
/// million) and the entries set since the last `settle` beside it. Two paths of one key share an
/// entry: each entry says which file it was made of (`FileStamp.fingerprint`), so a collision
/// costs a read or a hash at most.
struct PathKeyed<Value> {
    private var sorted: [(key: UInt64, value: Value)] = []
    private var recent: [UInt64: Value] = [:]

    init() {}

    /// From entries in any order (one a key).
    init(_ entries: [(key: UInt64, value: Value)]) { sorted = entries.sorted { $0.key < $1.key } }

    static func key(_ path: String) -> UInt64 { HashesWhileReading.pathKey(path) }

    subscript(key: UInt64) -> Value? {
        get { recent[key] ?? Self.find(key, in: sorted) }
        set { recent[key] = newValue }
    }

    var isEmpty: Bool { sorted.isEmpty && recent.isEmpty }

    var values: [Value] { sorted.map(\.value) + recent.values }

    /// The keys `matching` and their entries (a key set since and also in the sorted part: its
    /// newer entry alone), with no copy of the others.
    func entries(where matching: (UInt64) -> Bool) -> [(key: UInt64, value: Value)] {
        sorted.filter { matching($0.key) && recent[$0.key] == nil } + recent.filter { matching($0.key) }.map { ($0.key, $0.value) }
    }

    /// The entries set since, in place; the keys not in `keeping` dropped.
    mutating func settle(keeping: (UInt64) -> Bool = { _ in true }) {
        var merged = sorted.filter { keeping($0.key) && recent[$0.key] == nil }
        merged += recent.filter { keeping($0.key) }.map { ($0.key, $0.value) }
        sorted = merged.sorted { $0.key < $1.key }
        recent = [:]
    }

    mutating func settle(keeping: Set<UInt64>) { settle(keeping: keeping.contains) }

    /// Settles when the entries set since outgrow a quarter of the sorted ones: a pass that sets
    /// a million keeps them sorted, not in a dictionary's buckets, at the cost of a few sorts.
    mutating func settleWhenLarge() {
        if recent.count > max(4_096, sorted.count / 4) { settle() }
    }

    /// Changes the entry of `key` in place (in the sorted part when there: no entry set since).
    mutating func modify(_ key: UInt64, _ body: (inout Value) -> Void) {
        if recent[key] != nil { return body(&recent[key]!) }
        guard let at = Self.position(key, in: sorted) else { return }
        body(&sorted[at].value)
    }

    private static func find(_ key: UInt64, in sorted: [(key: UInt64, value: Value)]) -> Value? {
        position(key, in: sorted).map { sorted[$0].value }
    }

    private static func position(_ key: UInt64, in sorted: [(key: UInt64, value: Value)]) -> Int? {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid].key < key { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low].key == key ? low : nil
    }
}

/// What `DuplicateFinder` knows of each hashed file.
typealias KnownContents = PathKeyed<KnownContent>

extension PathKeyed where Value == KnownContent {
    init(_ records: [ContentHashRecord]) { self.init(records.map { (KnownContent.key($0.relativePath), KnownContent($0)) }) }
}

extension FileStamp {
    /// The stamp as one number (XXH3-64 of its fields): what a kept entry compares a file with.
    var fingerprint: UInt64 { HashesWhileReading.stampKey(self) }
}

extension PathKeyed: Sendable where Value: Sendable {}
