import AlbumCore
import AlbumSystem
import Synchronization

/// Finds the groups of similar photos (`SimilarGroups`) in the background: after a scan, it
/// hashes the stills whose hash the index does not hold (new or changed files), one at a time on
/// a thread of its own at nice 10 in the idle I/O class, each decoded by `hasher` (a render
/// worker of its own at that priority, which waits while thumbnails are rendered), and hands
/// back the groups. Hashes are kept in the index by path and identity: a remount hashes none.
///
/// Which photos: `SimilarGroups.candidates` (stills as the flat views list them, a burst by its
/// first photo).
final class SimilarFinder: Sendable {
    let root: String
    let store: SimilarHashStore?
    let hasher: any PerceptualHasher
    let log: @Sendable (String) -> Void
    /// Stills hashed since the mount (status: `similar_hashed`; 0 on a remount of an unchanged library).
    let filesHashed = Atomic<Int>(0)
    /// Stills waiting for their hash in the pass under way (status: `similar_pending`).
    let pending = Atomic<Int>(0)
    /// Records batched to the index at a time: the pass's progress survives an unmount.
    static let batch = 256

    /// A pass asked for: the candidates, their exact groups, who hears of its progress
    /// (stills hashed, stills to hash) and where the groups go.
    struct Pass: Sendable {
        let photos: [Photo]
        let exact: [String: UInt32]
        let progress: @Sendable (Int, Int) -> Void
        let done: @Sendable ([String: UInt32]) -> Void
    }

    private struct State {
        /// What is known of each hashed still, by its path's key: read from the index by a pass
        /// and dropped after it (the index keeps it, groups included); kept between passes
        /// without an index, or every pass would hash the library again.
        var known: KnownPictures?
        var running = false
        /// The pass asked for while one ran: only the newest is worth making.
        var next: Pass?
        var writeFailure: Errno?
        /// The mount is over: no pass starts, the one under way ends.
        var stopping = false
        /// Given when the passes' thread ends, while it runs (`stop` waits for it).
        var threadEnded: Promise<Void>?
        /// The plain pictures the last search left out (status: `similar_plain`).
        var plain = PlainPictures()
    }
    // Protects `State`; never held while a photo is hashed.
    private let state = Locked(State())

    init(root: String, store: SimilarHashStore?, hasher: any PerceptualHasher, log: @escaping @Sendable (String) -> Void) {
        self.root = root
        self.store = store
        self.hasher = hasher
        self.log = log
    }

    /// The plain pictures the last search left out (none before one ends).
    var plain: PlainPictures { state.withLock { $0.plain } }

    /// The photos that take part, of `photos` (all the library's), read from it as they are
    /// asked for: an array of them would copy 160 bytes a photo, 160 MB at a million.
    static func candidates(_ photos: [Photo]) -> LazyMapSequence<[Int], Photo> { SimilarGroups.candidates(photos).lazy.map { photos[$0] } }

    /// The index's records as `KnownPictures`, read row by row.
    static func load(_ store: SimilarHashStore?, log: (String) -> Void) -> KnownPictures {
        guard let store else { return KnownPictures() }
        var entries: [(key: UInt64, value: KnownPicture)] = []
        do throws(Errno) {
            try store.forEachSimilarHash { entries.append((KnownPicture.key($0.relativePath), KnownPicture($0))) }
        } catch {
            log("albumfs: warning: the index's similar-photo hashes cannot be read (\(error)); stills are hashed again")
            return KnownPictures()
        }
        return KnownPictures(entries)
    }

    /// Each similar photo's group (its path → its group) as the last search left them in the
    /// index, decoding and searching nothing (the first tree a mount shows, before its scan):
    /// the grouped records alone are read, and those of files changed since are left out.
    static func groupsFromIndex(_ photos: [Photo], exact: [String: UInt32], store: SimilarHashStore?, log: (String) -> Void) -> [String: UInt32] {
        guard let store else { return [:] }
        let grouped: [SimilarHashRecord]
        do throws(Errno) { grouped = try store.groupedSimilarHashes() } catch {
            log("albumfs: warning: the index's similar-photo hashes cannot be read (\(error)); stills are hashed again")
            return [:]
        }
        let byPath = Dictionary(grouped.map { ($0.relativePath, $0) }, uniquingKeysWith: { a, _ in a })
        let held = candidates(photos).compactMap { photo in byPath[photo.sourcePath].flatMap { $0.holds(photo) ? $0 : nil } }
        // Plain pictures are left out whatever groups the index holds.
        let plain = SimilarGroups.plainPictures(held.compactMap(\.hash))
        var members: [UInt32: [String]] = [:]
        for record in held {
            guard let hash = record.hash, !plain.hashes.contains(hash), let group = record.group else { continue }
            members[group, default: []].append(record.relativePath)
        }
        return SimilarGroups.numbers(of: Array(members.values), exact: exact)
    }

    /// Starts a pass over `photos` (all the library's) in the background, or, while one runs,
    /// after it; returns at once. `progress` and `done` are called on the pass's thread.
    func start(_ photos: [Photo], exact: [String: UInt32], progress: @escaping @Sendable (Int, Int) -> Void,
               done: @escaping @Sendable ([String: UInt32]) -> Void) {
        let pass = Pass(photos: photos, exact: exact, progress: progress, done: done)
        let ended = Promise<Void>()
        let startsNow = state.withLock { s in
            guard !s.stopping else { return false }
            if s.running { s.next = pass } else { s.running = true }
            if s.next == nil { s.threadEnded = ended }
            return s.next == nil
        }
        guard startsNow else { return }
        Threads.detach { [self] in
            defer { ended.fulfil(()) }
            if let failure = BackgroundPriority.lowerThisThread() {
                log("albumfs: warning: similar photos are hashed at normal priority (\(failure))")
            }
            var current: Pass? = pass
            while let pass = current {
                if let groups = run(pass) { pass.done(groups) }
                current = state.withLock { s in
                    defer { s.next = nil }
                    if s.next == nil || s.stopping { s.running = false }
                    return s.stopping ? nil : s.next
                }
            }
        }
    }

    /// Ends the pass under way after the photo it hashes, its hashes so far written (the mount is
    /// over: the next one goes on from there); waits `seconds` at most.
    func stop(seconds: Double) {
        let ended = state.withLock { s in
            s.stopping = true
            return s.threadEnded
        }
        _ = ended?.wait(seconds: seconds)
    }

    /// One pass: hashes the candidates the index holds no hash of, writes them, forgets the
    /// records of files no longer there; the groups, or nil when the pass was stopped.
    private func run(_ pass: Pass) -> [String: UInt32]? {
        var known = state.withLock({ $0.known }) ?? Self.load(store, log: log)
        let candidates = PassCandidates(pass.photos)
        var changed = Self.adoptMoved(candidates, &known)
        var lost = hash(candidates, pass, &known, written: &changed)
        defer {
            // Between passes the records live in the index alone (with their groups: the next
            // pass searches only what is new, as a mount's first does).
            state.withLock { $0.known = store == nil ? known : nil }
        }
        guard !state.withLock({ $0.stopping }) else {
            save(changed.compactMap { candidates.record($0, in: known) }, removing: [])
            return nil
        }
        let keys = candidates.keys.sorted()
        let gone = known.entries { !Self.contains(keys, $0) }
        lost = lost || gone.contains { $0.value.wasGrouped }
        known.settle { Self.contains(keys, $0) }
        let search = PassSearch(candidates, known, lost: lost)
        state.withLock { $0.plain = search.plain }
        let groups = search.groups(candidates, known)
        changed += search.regroup(groups, candidates, &known)
        save(Array(Set(changed)).sorted().compactMap { candidates.record($0, in: known) }, removing: paths(of: gone.map(\.key)))
        return search.numbers(groups, candidates, exact: pass.exact)
    }

    /// Hashes the candidates `known` does not hold as they are, one at a time, writing them in
    /// batches (those left over appended to `written`); whether a hash of the last search's
    /// groups changed.
    private func hash(_ candidates: PassCandidates, _ pass: Pass, _ known: inout KnownPictures, written: inout [Int]) -> Bool {
        let unknown = candidates.indices.filter { !candidates.isKnown($0, in: known) }
        pending.store(unknown.count, ordering: .relaxed)
        defer { pending.store(0, ordering: .relaxed) }
        pass.progress(0, unknown.count)
        var lost = false
        for (n, c) in unknown.enumerated() {
            if state.withLock({ $0.stopping }) { break }
            hasher.yieldToRenders(seconds: SimilarFinder.longestYield)
            defer {
                pending.subtract(1, ordering: .relaxed)
                pass.progress(n + 1, unknown.count)
            }
            let hash: UInt64?
            switch hasher.perceptualHash(of: candidates[c], sourceRoot: root) {
            case .hash(let value): hash = value
            case .undecodable: hash = nil
            case .unreadable: continue  // (changed or gone since the scan: its rescan follows)
            }
            filesHashed.add(1, ordering: .relaxed)
            let entry = KnownPicture(candidates[c], hash: hash)
            if let old = known[candidates.keys[c]], old.wasGrouped, !(old.decoded && entry.decoded && old.hash == entry.hash) { lost = true }
            known[candidates.keys[c]] = entry
            known.settleWhenLarge()
            written.append(c)
            if written.count >= Self.batch {
                save(written.compactMap { candidates.record($0, in: known) }, removing: [])
                written = []
            }
        }
        return lost
    }

    /// Whether `sorted` holds `key`.
    static func contains(_ sorted: [UInt64], _ key: UInt64) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == key
    }

    /// The index's paths of `keys` (records of files no longer candidates), read row by row:
    /// a pass keeps no path of its own.
    private func paths(of keys: [UInt64]) -> [String] {
        guard let store, !keys.isEmpty else { return [] }
        let gone = Set(keys)
        var paths: [String] = []
        do throws(Errno) {
            try store.forEachSimilarHash { if gone.contains(KnownPicture.key($0.relativePath)) { paths.append($0.relativePath) } }
        } catch {
            log("albumfs: warning: the index's similar-photo hashes cannot be read (\(error)); records of files gone are kept")
        }
        return paths
    }

    /// The longest a hash waits for thumbnails to be rendered first.
    static let longestYield = 5.0

    /// Gives the candidates not known under their path whose file was hashed under another (its
    /// folder renamed or moved: the same inode, size, mtime and ctime) that entry under their
    /// own key; the candidates so known, to be written. Made-up inode numbers (0) are hashed again.
    private static func adoptMoved(_ candidates: PassCandidates, _ known: inout KnownPictures) -> [Int] {
        guard !known.isEmpty else { return [] }
        let unknown = candidates.indices.filter { candidates[$0].identity.inode != 0 && !candidates.isKnown($0, in: known) }
        guard !unknown.isEmpty else { return [] }
        let byFile = Dictionary(known.values.map { ($0.file, $0) }, uniquingKeysWith: { a, _ in a })
        var adopted: [Int] = []
        for c in unknown {
            guard let entry = byFile[FileStamp(candidates[c]).fingerprint] else { continue }
            known[candidates.keys[c]] = entry
            adopted.append(c)
        }
        return adopted
    }

    private func save(_ records: [SimilarHashRecord], removing gone: [String]) {
        guard let store else { return }
        do throws(Errno) {
            try store.saveSimilarHashes(records, removing: gone)
            state.withLock { $0.writeFailure = nil }
        } catch {
            // (Said once per reason, as the index writer says its own failures.)
            let first = state.withLock { s in
                defer { s.writeFailure = error }
                return s.writeFailure != error
            }
            if first { log("albumfs: warning: the index cannot be written (\(error)): similar photos are hashed again by the next mount") }
        }
    }
}
