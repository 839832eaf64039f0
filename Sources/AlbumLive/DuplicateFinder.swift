import AlbumCore
import AlbumMetadata
import AlbumSystem
import Dispatch
import Glibc
import Synchronization

/// Finds the groups of exact duplicates among a library's photos (`DuplicateGroups`): files of
/// one size only, a partial hash first, a full hash only where partial hashes agree, each hash
/// kept in the index by the file's path and identity so that a remount or a rescan reads only
/// files new or changed (a file under a new path, its folder renamed, by its identity).
///
/// Files the scan read whole come with their hashes already (`HashesWhileReading`, taken after
/// each batch merged); the others are read on a thread of its own at nice 10 in the idle I/O
/// class (`BackgroundPriority`), one file at a time through one 1 MiB buffer, each opened beneath
/// SOURCE through no link and checked to be the file scanned (`SourceOpening.scanned`). The coordinator waits for it as its
/// scan's last step; listings and reads are answered from the views shown meanwhile.
/// (`@unchecked Sendable`: `known`, `loaded` and `writeFailure` are used only on the
/// coordinator's queue; the reading thread touches none of them, and hands its digests back
/// under a `Locked`.)
final class DuplicateFinder: @unchecked Sendable {
    let root: String
    let store: ContentHashStore?
    let log: @Sendable (String) -> Void
    /// What is known of each hashed file's content, by its path's hash (read from the index at
    /// the first search, on the coordinator's queue, not when the mount starts). Every file that
    /// shares its size with another has an entry for the mount's life: 48 bytes, no string.
    private var known = KnownContents()
    private var loaded = false
    /// Why the last write of hashes to the index failed (nil: it did not), so a full disk is said once.
    private var writeFailure: Errno?
    /// The reading thread, at background priority once it runs (`BackgroundPriority`): a pool of
    /// its own, so no thread of another pool is left at nice 10.
    private let reader = WorkerPool(name: "albumfs-hash", width: 1, idleSeconds: nil)
    /// Files read for a hash since the mount (0 on a remount of an unchanged library).
    let filesHashed = Atomic<Int>(0)
    /// The hashes the scan's readers make of the files they read whole (`LibraryScanner.hashesWhileReading`).
    let whileReading = HashesWhileReading()

    init(root: String, store: ContentHashStore?, log: @escaping @Sendable (String) -> Void) {
        self.root = root
        self.store = store
        self.log = log
    }

    static func load(_ store: ContentHashStore?, log: (String) -> Void) -> KnownContents {
        guard let store else { return KnownContents() }
        do throws(Errno) {
            return KnownContents(try store.contentHashes())
        } catch {
            log("albumfs: warning: the index's content hashes cannot be read (\(error)); duplicates are hashed again")
            return KnownContents()
        }
    }

    /// Each copy's group (its path → its group) from the hashes the index holds alone, reading
    /// no file (the first tree a mount shows, before its scan).
    static func groupsFromIndex(_ photos: [Photo], store: ContentHashStore?, log: (String) -> Void) -> [String: UInt32] {
        let known = load(store, log: log)
        let valid = { (i: Int) in known[KnownContent.key(photos[i].sourcePath)].flatMap { $0.holds(photos[i]) ? $0 : nil } }
        // Only files whose partial hashes agree, as `groups` takes them: a file hashed while the
        // scan read it has a full hash whether or not another shares its partial one.
        var full: [String: String] = [:]
        for i in DuplicateGroups.sameSizeRuns(photos).flatMap({ DuplicateGroups.split($0) { valid($0)?.partial } }).joined() {
            if let hash = valid(i)?.full { full[photos[i].sourcePath] = hash.hex }
        }
        return DuplicateGroups.numbers(full)
    }

    /// The group of each file in one (its path → its group), reading the files whose hashes are
    /// not known; `progress` gets (files read, files to read) as they go.
    func groups(for photos: [Photo], progress: @escaping @Sendable (Int, Int) -> Void) -> [String: UInt32] {
        keepHashesMadeWhileReading()
        let runs = DuplicateGroups.sameSizeRuns(photos)
        var key = [UInt64](repeating: 0, count: photos.count)
        for i in runs.joined() { key[i] = KnownContent.key(photos[i].sourcePath) }
        // Photos whose file could not be read (changed since the scan: its rescan follows) are in no group.
        let valid = { (i: Int) in self.known[key[i]].flatMap { $0.holds(photos[i]) ? $0 : nil } }
        // (Those hashed while the scan read them first: an entry adopted below may be a copy of one.)
        var saved = runs.joined().filter { known[key[$0]]?.unsaved == true && valid($0) != nil }
        saved += adoptMoved(runs.joined().filter { valid($0) == nil }, photos, key)
        let needPartial = runs.joined().filter { valid($0) == nil }
        for (k, digest) in read(needPartial.map { ScannedFile(photos[$0]) }, full: false, progress: progress) {
            let i = needPartial[k]
            known[key[i]] = KnownContent(photos[i], partial: digest.partial!)
            saved.append(i)
        }
        let alike = runs.flatMap { DuplicateGroups.split($0) { valid($0)?.partial } }.joined()
        let needFull = alike.filter { valid($0)?.full == nil }
        for (k, digest) in read(needFull.map { ScannedFile(photos[$0]) }, full: true, progress: progress) {
            let i = needFull[k]
            known[key[i]]?.full = digest.full
            saved.append(i)
        }
        var fullHashes: [String: String] = [:]
        for i in alike { if let hash = valid(i)?.full { fullHashes[photos[i].sourcePath] = hash.hex } }
        // The index keeps a full hash only where partial hashes agree, as if the search had made
        // it: one made while reading for a file whose partial hash is its own is not written.
        let compared = Set(alike)
        save(saved.compactMap { i in known[key[i]].map { compared.contains(i) ? $0.record(photos[i]) : $0.record(photos[i], full: false) } },
             keeping: Set(runs.joined().map { key[$0] }))
        return DuplicateGroups.numbers(fullHashes)
    }

    /// Keeps the hashes the scan's readers made since the last call (on the coordinator's queue,
    /// after each batch it merges: they stay few between calls), to be written with the next groups.
    func keepHashesMadeWhileReading() {
        if !loaded {
            known = Self.load(store, log: log)
            loaded = true
        }
        for digest in whileReading.take() {
            known[digest.pathKey] = KnownContent(digest)
            known.settleWhenLarge()
        }
    }

    /// Gives the photos of `unknown` whose file was hashed under another path (its folder renamed
    /// or moved: the same inode, size, mtime and ctime) that record under their own path; the
    /// records so made, to be saved. Files whose inode numbers are made up (0) are read again.
    private func adoptMoved(_ unknown: [Int], _ photos: [Photo], _ key: [UInt64]) -> [Int] {
        guard !unknown.isEmpty else { return [] }
        let byFile = Dictionary(known.values.map { ($0.file, $0) }, uniquingKeysWith: { a, _ in a })
        var adopted: [Int] = []
        for i in unknown where photos[i].identity.inode != 0 {
            guard let content = byFile[KnownContent.file(photos[i])] else { continue }
            known[key[i]] = content
            adopted.append(i)
        }
        return adopted
    }

    /// Keeps what is known of the files that share a size with another (the only ones a later copy
    /// can match without a read of its own) and forgets the rest here; writes `records`. (The
    /// index drops a file's row with the file; one that no longer shares its size keeps its row,
    /// checked by its identity when it shares one again.)
    private func save(_ records: [ContentHashRecord], keeping candidates: Set<UInt64>) {
        known.settle(keeping: candidates)
        for record in records { known.modify(KnownContent.key(record.relativePath)) { $0.unsaved = false } }
        guard let store else { return }
        do throws(Errno) {
            try store.saveContentHashes(records, removing: [])
            writeFailure = nil
        } catch {
            // (Said once per reason, as the index writer says its own failures.)
            if writeFailure != error { log("albumfs: warning: the index cannot be written (\(error)): content hashes are read again by the next mount") }
            writeFailure = error
        }
    }

    /// A file's hashes, read: the partial one, or the full one.
    struct Digest: Sendable {
        var partial: UInt64?
        var full: FullContentHash?
    }

    /// Reads `files` on the reader thread and waits: (position in `files`, digest) of each file
    /// read whole; a file changed or gone since the scan is left out.
    private func read(_ files: [ScannedFile], full: Bool, progress: @escaping @Sendable (Int, Int) -> Void) -> [(Int, Digest)] {
        guard !files.isEmpty else { return [] }
        let results = Locked<[(Int, Digest)]>([])
        let done = Promise<Void>()
        reader.submit(.ahead) { [self] in
            _ = BackgroundPriority.lowerThisThread()
            var buffer: [UInt8] = []
            for (k, file) in files.enumerated() {
                defer { progress(k + 1, files.count) }
                guard let opened = try? SourceOpening.scanned(file, beneath: root) else { continue }
                defer { close(opened.fd) }
                var digest = Digest()
                do throws(Errno) {
                    if full { digest.full = try ContentDigest.fullHash(opened.fd, size: opened.size, buffer: &buffer) }
                    else { digest.partial = try ContentDigest.partial(opened.fd, size: opened.size, buffer: &buffer) }
                } catch { continue }
                filesHashed.add(1, ordering: .relaxed)
                results.withLock { $0.append((k, digest)) }
            }
            done.fulfil(())
        }
        done.wait()
        return results.withLock { $0 }
    }
}

/// XXH3-128 of a file's bytes, as two numbers (its hex form is what the index and picks keep).
struct FullContentHash: Hashable, Sendable {
    var high: UInt64
    var low: UInt64

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// From the 32 hex digits `hex` gives; nil for anything else.
    init?(hex: String) {
        guard hex.utf8.count == 32, let high = UInt64(hex.prefix(16), radix: 16), let low = UInt64(hex.suffix(16), radix: 16) else { return nil }
        self.init(high: high, low: low)
    }

    var hex: String { ContentDigest.hex(high) + ContentDigest.hex(low) }
}

/// What `DuplicateFinder` keeps of one hashed file between passes (40 bytes, no string): which
/// file it was (`file`: a hash of its identity and ctime when hashed) and its hashes. Kept by its
/// path's XXH3-64 (`key`): two paths of one key share an entry, which then holds for whichever
/// file it was made from (a hard link has its other name's content anyway), so a collision of
/// either hash costs a read at most, or (2^-64) a wrong group.
struct KnownContent: Sendable {
    /// `file(_:)` of the file when hashed.
    var file: UInt64
    var partial: UInt64
    var full: FullContentHash?
    /// Made while the scan read the file, and not yet written to the index.
    var unsaved = false

    static func key(_ path: String) -> UInt64 { PathKeyed<KnownContent>.key(path) }

    /// A file as scanned (its identity and its ctime when read), as one number.
    static func file(_ identity: FileIdentity, _ changedWhenRead: Timestamp?) -> UInt64 {
        FileStamp(identity: identity, changedWhenRead: changedWhenRead).fingerprint
    }

    static func file(_ photo: Photo) -> UInt64 { FileStamp(photo).fingerprint }

    init(_ photo: Photo, partial: UInt64) {
        file = Self.file(photo)
        self.partial = partial
    }

    init(_ digest: HashesWhileReading.Digest) {
        file = digest.stamp
        partial = digest.partial
        full = FullContentHash(high: digest.fullHigh, low: digest.fullLow)
        unsaved = true
    }

    init(_ record: ContentHashRecord) {
        file = record.stamp.fingerprint
        partial = record.partial
        full = record.full.flatMap(FullContentHash.init(hex:))
    }

    /// Whether this stands for `photo`'s file as scanned.
    func holds(_ photo: Photo) -> Bool { file == Self.file(photo) }

    /// What the index keeps of this for `photo`'s file (`full` false: its partial hash alone).
    func record(_ photo: Photo, full withFull: Bool = true) -> ContentHashRecord {
        ContentHashRecord(relativePath: photo.sourcePath, identity: photo.identity, changedWhenRead: photo.changedWhenRead,
                          partial: partial, full: withFull ? full?.hex : nil)
    }
}
