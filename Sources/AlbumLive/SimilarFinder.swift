import AlbumCore
import AlbumSystem
import Dispatch
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
        /// The index's records, by path (read by the first pass, on its thread).
        var known: [String: SimilarHashRecord]?
        var running = false
        /// The pass asked for while one ran: only the newest is worth making.
        var next: Pass?
        var writeFailure: Errno?
        /// The mount is over: no pass starts, the one under way ends.
        var stopping = false
        /// The last pass's hashes by path, and every group it found (`regroup`).
        var lastHashes: [String: UInt64]?
        var lastGroups: [[String]] = []
    }
    // Protects `State`; never held while a photo is hashed.
    private let state = Locked(State())
    /// The pass's thread, while it runs (`stop` waits for it).
    private let passes = DispatchGroup()

    init(root: String, store: SimilarHashStore?, hasher: any PerceptualHasher, log: @escaping @Sendable (String) -> Void) {
        self.root = root
        self.store = store
        self.hasher = hasher
        self.log = log
    }

    /// The photos that take part, of `photos` (all the library's), read from it as they are
    /// asked for: an array of them would copy 160 bytes a photo, 160 MB at a million.
    static func candidates(_ photos: [Photo]) -> LazyMapSequence<[Int], Photo> { SimilarGroups.candidates(photos).lazy.map { photos[$0] } }

    static func load(_ store: SimilarHashStore?, log: (String) -> Void) -> [String: SimilarHashRecord] {
        guard let store else { return [:] }
        do throws(Errno) {
            return Dictionary(try store.similarHashes().map { ($0.relativePath, $0) }, uniquingKeysWith: { a, _ in a })
        } catch {
            log("albumfs: warning: the index's similar-photo hashes cannot be read (\(error)); stills are hashed again")
            return [:]
        }
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
        var members: [UInt32: [String]] = [:]
        for photo in candidates(photos) {
            guard let record = byPath[photo.sourcePath], record.holds(photo), record.hash != nil, let group = record.group else { continue }
            members[group, default: []].append(photo.sourcePath)
        }
        return SimilarGroups.numbers(of: Array(members.values), exact: exact)
    }

    /// The hashes `known` holds for `candidates` as they are, by path.
    static func hashes(_ candidates: some Sequence<Photo>, known: [String: SimilarHashRecord]) -> [String: UInt64] {
        var hashes: [String: UInt64] = [:]
        for photo in candidates {
            guard let record = known[photo.sourcePath], record.holds(photo), let hash = record.hash else { continue }
            hashes[photo.sourcePath] = hash
        }
        return hashes
    }

    /// The groups of `hashes`, searching only the hashes new since the last pass's when none of
    /// its groups lost or changed a member (a photo added to a big library is compared with the
    /// others, not every photo with every other again); kept for the next pass.
    private func regroup(_ hashes: [String: UInt64], exact: [String: UInt32]) -> (numbers: [String: UInt32], groups: [[String]]) {
        let (last, lastGroups) = state.withLock { ($0.lastHashes, $0.lastGroups) }
        var added: Set<String>?
        if let last {
            let grouped = Set(lastGroups.joined())
            let lost = last.contains { path, hash in hashes[path] != hash && grouped.contains(path) }
            if !lost { added = Set(hashes.keys.filter { last[$0] != hashes[$0] }) }
        }
        let (numbers, groups) = SimilarGroups.numbered(hashes, exact: exact, joined: added == nil ? [] : lastGroups, added: added)
        state.withLock {
            $0.lastHashes = hashes
            $0.lastGroups = groups
        }
        return (numbers, groups)
    }

    /// What the index's records say of the last search (the hashes it searched, the groups it
    /// found), for a mount's first pass to search only what is new since.
    static func lastSearch(_ known: [String: SimilarHashRecord]) -> (hashes: [String: UInt64], groups: [[String]]) {
        var hashes: [String: UInt64] = [:]
        var members: [UInt32: [String]] = [:]
        for record in known.values {
            guard let hash = record.hash, let group = record.group else { continue }
            hashes[record.relativePath] = hash
            if group > 0 { members[group, default: []].append(record.relativePath) }
        }
        return (hashes, Array(members.values))
    }

    /// The records whose group the search changed, given it (0: none), to be written.
    static func regrouped(_ groups: [[String]], _ hashes: [String: UInt64], _ known: inout [String: SimilarHashRecord]) -> [SimilarHashRecord] {
        var group: [String: UInt32] = [:]
        for (k, members) in groups.enumerated() { for path in members { group[path] = UInt32(k + 1) } }
        var changed: [SimilarHashRecord] = []
        for path in hashes.keys {
            guard var record = known[path], record.group != group[path] ?? 0 else { continue }
            record.group = group[path] ?? 0
            known[path] = record
            changed.append(record)
        }
        return changed
    }

    /// Starts a pass over `photos` (all the library's) in the background, or, while one runs,
    /// after it; returns at once. `progress` and `done` are called on the pass's thread.
    func start(_ photos: [Photo], exact: [String: UInt32], progress: @escaping @Sendable (Int, Int) -> Void,
               done: @escaping @Sendable ([String: UInt32]) -> Void) {
        let pass = Pass(photos: photos, exact: exact, progress: progress, done: done)
        let startsNow = state.withLock { s in
            guard !s.stopping else { return false }
            if s.running { s.next = pass } else { s.running = true }
            return s.next == nil
        }
        guard startsNow else { return }
        passes.enter()
        Threads.detach { [self] in
            defer { passes.leave() }
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
        state.withLock { $0.stopping = true }
        _ = passes.wait(timeout: .now() + seconds)
    }

    /// One pass: hashes the candidates the index holds no hash of, writes them, forgets the
    /// records of files no longer there; the groups, or nil when the pass was stopped.
    private func run(_ pass: Pass) -> [String: UInt32]? {
        var known: [String: SimilarHashRecord]
        if let kept = state.withLock({ $0.known }) { known = kept } else {
            known = Self.load(store, log: log)
            let last = Self.lastSearch(known)
            state.withLock {
                $0.lastHashes = last.hashes
                $0.lastGroups = last.groups
            }
        }
        let photos = pass.photos
        let chosen = SimilarGroups.candidates(photos)
        let candidates = chosen.lazy.map { photos[$0] }
        var batch = adoptMoved(candidates, &known)
        let unknown = chosen.filter { !(known[photos[$0].sourcePath]?.holds(photos[$0]) ?? false) }
        pending.store(unknown.count, ordering: .relaxed)
        defer { pending.store(0, ordering: .relaxed) }
        pass.progress(0, unknown.count)
        for (k, i) in unknown.enumerated() {
            let photo = photos[i]
            if state.withLock({ $0.stopping }) { break }
            hasher.yieldToRenders(seconds: SimilarFinder.longestYield)
            defer {
                pending.subtract(1, ordering: .relaxed)
                pass.progress(k + 1, unknown.count)
            }
            let hash: UInt64?
            switch hasher.perceptualHash(of: photo, sourceRoot: root) {
            case .hash(let value): hash = value
            case .undecodable: hash = nil
            case .unreadable: continue  // (changed or gone since the scan: its rescan follows)
            }
            filesHashed.add(1, ordering: .relaxed)
            let record = SimilarHashRecord(relativePath: photo.sourcePath, identity: photo.identity, changedWhenRead: photo.changedWhenRead, hash: hash)
            known[record.relativePath] = record
            batch.append(record)
            if batch.count >= Self.batch {
                save(batch, removing: [])
                batch = []
            }
        }
        let stopped = state.withLock { $0.stopping }
        let paths = Set(candidates.lazy.map(\.sourcePath))
        let gone = stopped ? [] : known.keys.filter { !paths.contains($0) }
        for path in gone { known[path] = nil }
        var numbers: [String: UInt32]?
        if !stopped {
            let hashes = Self.hashes(candidates, known: known)
            let found = regroup(hashes, exact: pass.exact)
            // (Each record's group written with it: the next mount shows them without a search.)
            let changed = Self.regrouped(found.groups, hashes, &known)
            let byPath = Dictionary(batch.map { ($0.relativePath, $0) }, uniquingKeysWith: { _, b in b })
                .merging(changed.map { ($0.relativePath, $0) }) { _, b in b }
            batch = Array(byPath.values)
            numbers = found.numbers
        }
        save(batch, removing: gone)
        // Between passes the records live in the index alone (with their groups: the next pass
        // searches only what is new, as a mount's first does), not in the daemon: a record a photo
        // and the last search's hashes cost ~300 bytes a photo, 300 MB at a million. Without an
        // index they stay here, or every pass would hash the library again.
        state.withLock { s in
            guard store != nil else { return s.known = known }
            s.known = nil
            s.lastHashes = nil
            s.lastGroups = []
        }
        return numbers
    }

    /// The longest a hash waits for thumbnails to be rendered first.
    static let longestYield = 5.0

    /// Gives the candidates not known under their path whose file was hashed under another (its
    /// folder renamed or moved: the same inode, size, mtime and ctime) that record under their
    /// own path; the records so made, to be written. Made-up inode numbers (0) are hashed again.
    private func adoptMoved(_ candidates: some Sequence<Photo>, _ known: inout [String: SimilarHashRecord]) -> [SimilarHashRecord] {
        let unknown = { (photo: Photo, known: [String: SimilarHashRecord]) in
            !(known[photo.sourcePath]?.holds(photo) ?? false) && photo.identity.inode != 0
        }
        guard !known.isEmpty, candidates.contains(where: { unknown($0, known) }) else { return [] }
        let byIdentity = Dictionary(known.values.lazy.filter { $0.identity.inode != 0 }.map { ($0.identity, $0) }, uniquingKeysWith: { a, _ in a })
        var adopted: [SimilarHashRecord] = []
        for photo in candidates where unknown(photo, known) {
            guard var record = byIdentity[photo.identity], record.changedWhenRead == photo.changedWhenRead else { continue }
            record.relativePath = photo.sourcePath
            known[record.relativePath] = record
            adopted.append(record)
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
