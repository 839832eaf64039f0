import AlbumCore
import AlbumSystem
import Dispatch
import Glibc
import Synchronization

/// Finds the groups of exact duplicates among a library's photos (`DuplicateGroups`): files of
/// one size only, a partial hash first, a full hash only where partial hashes agree, each hash
/// kept in the index by the file's path and identity so that a remount or a rescan reads only
/// files new or changed (a file under a new path, its folder renamed, by its identity).
///
/// Files are read on a thread of its own at nice 10 in the idle I/O class (`BackgroundPriority`),
/// one file at a time through one 1 MiB buffer, each opened beneath SOURCE through no link and
/// checked to be the file scanned (`SourceOpening.scanned`). The coordinator waits for it as its
/// scan's last step; listings and reads are answered from the views shown meanwhile.
/// (`@unchecked Sendable`: `known`, `loaded` and `writeFailure` are used only on the
/// coordinator's queue; the reading thread touches none of them, and hands its digests back
/// under a `Locked`.)
final class DuplicateFinder: @unchecked Sendable {
    let root: String
    let store: ContentHashStore?
    let log: @Sendable (String) -> Void
    /// What is known of each hashed file's content, by path (read from the index at the first
    /// search, on the coordinator's queue, not when the mount starts).
    private var known: [String: ContentHashRecord] = [:]
    private var loaded = false
    /// Why the last write of hashes to the index failed (nil: it did not), so a full disk is said once.
    private var writeFailure: Errno?
    private let reader = SlowWork(width: 1)
    /// Files read for a hash since the mount (0 on a remount of an unchanged library).
    let filesHashed = Atomic<Int>(0)

    init(root: String, store: ContentHashStore?, log: @escaping @Sendable (String) -> Void) {
        self.root = root
        self.store = store
        self.log = log
    }

    static func load(_ store: ContentHashStore?, log: (String) -> Void) -> [String: ContentHashRecord] {
        guard let store else { return [:] }
        do throws(Errno) {
            return Dictionary(try store.contentHashes().map { ($0.relativePath, $0) }, uniquingKeysWith: { a, _ in a })
        } catch {
            log("albumfs: warning: the index's content hashes cannot be read (\(error)); duplicates are hashed again")
            return [:]
        }
    }

    /// Each copy's group (its path → its group) from the hashes the index holds alone, reading
    /// no file (the first tree a mount shows, before its scan).
    static func groupsFromIndex(_ photos: [Photo], store: ContentHashStore?, log: (String) -> Void) -> [String: UInt32] {
        let known = load(store, log: log)
        var full: [String: String] = [:]
        for i in DuplicateGroups.sameSizeRuns(photos).joined() {
            if let record = known[photos[i].sourcePath], record.holds(photos[i]), let hash = record.full { full[record.relativePath] = hash }
        }
        return DuplicateGroups.numbers(full)
    }

    /// The group of each file in one (its path → its group), reading the files whose hashes are
    /// not known; `progress` gets (files read, files to read) as they go.
    func groups(for photos: [Photo], progress: @escaping @Sendable (Int, Int) -> Void) -> [String: UInt32] {
        if !loaded {
            known = Self.load(store, log: log)
            loaded = true
        }
        let runs = DuplicateGroups.sameSizeRuns(photos)
        var saved = adoptMoved(runs.joined().filter { i in !(known[photos[i].sourcePath]?.holds(photos[i]) ?? false) }, photos)
        let needPartial = runs.joined().filter { i in !(known[photos[i].sourcePath]?.holds(photos[i]) ?? false) }
        for (k, digest) in read(needPartial.map { ScannedFile(photos[$0]) }, full: false, progress: progress) {
            let photo = photos[needPartial[k]]
            let record = ContentHashRecord(relativePath: photo.sourcePath, identity: photo.identity, changedWhenRead: photo.changedWhenRead,
                                           partial: digest.partial!, full: nil)
            known[record.relativePath] = record
            saved.append(record)
        }
        // Photos whose file could not be read (changed since the scan: its rescan follows) are in no group.
        let valid = { (i: Int) in self.known[photos[i].sourcePath].flatMap { $0.holds(photos[i]) ? $0 : nil } }
        let alike = runs.flatMap { DuplicateGroups.split($0) { valid($0)?.partial } }.joined()
        let needFull = alike.filter { valid($0)?.full == nil }
        for (k, digest) in read(needFull.map { ScannedFile(photos[$0]) }, full: true, progress: progress) {
            let path = photos[needFull[k]].sourcePath
            known[path]?.full = digest.full
            if let record = known[path] { saved.append(record) }
        }
        var fullHashes: [String: String] = [:]
        for i in alike { if let hash = valid(i)?.full { fullHashes[photos[i].sourcePath] = hash } }
        save(saved, keeping: Set(runs.joined().map { photos[$0].sourcePath }))
        return DuplicateGroups.numbers(fullHashes)
    }

    /// Gives the photos of `unknown` whose file was hashed under another path (its folder renamed
    /// or moved: the same inode, size, mtime and ctime) that record under their own path; the
    /// records so made, to be saved. Files whose inode numbers are made up (0) are read again.
    private func adoptMoved(_ unknown: [Int], _ photos: [Photo]) -> [ContentHashRecord] {
        guard !unknown.isEmpty else { return [] }
        let byIdentity = Dictionary(known.values.lazy.filter { $0.identity.inode != 0 }.map { ($0.identity, $0) }, uniquingKeysWith: { a, _ in a })
        var adopted: [ContentHashRecord] = []
        for i in unknown {
            guard var record = byIdentity[photos[i].identity], record.changedWhenRead == photos[i].changedWhenRead else { continue }
            record.relativePath = photos[i].sourcePath
            known[record.relativePath] = record
            adopted.append(record)
        }
        return adopted
    }

    /// Keeps the records of files that share a size with another (the only ones a later copy can
    /// match without a read of its own) and forgets the rest.
    private func save(_ records: [ContentHashRecord], keeping candidates: Set<String>) {
        let gone = known.keys.filter { !candidates.contains($0) }
        for path in gone { known[path] = nil }
        guard let store else { return }
        do throws(Errno) {
            try store.saveContentHashes(records.filter { candidates.contains($0.relativePath) }, removing: gone)
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
        var full: String?
    }

    /// Reads `files` on the reader thread and waits: (position in `files`, digest) of each file
    /// read whole; a file changed or gone since the scan is left out.
    private func read(_ files: [ScannedFile], full: Bool, progress: @escaping @Sendable (Int, Int) -> Void) -> [(Int, Digest)] {
        guard !files.isEmpty else { return [] }
        let results = Locked<[(Int, Digest)]>([])
        let done = DispatchSemaphore(value: 0)
        reader.run { [self] in
            _ = BackgroundPriority.lowerThisThread()
            var buffer: [UInt8] = []
            for (k, file) in files.enumerated() {
                defer { progress(k + 1, files.count) }
                guard let opened = try? SourceOpening.scanned(file, beneath: root) else { continue }
                defer { close(opened.fd) }
                var digest = Digest()
                do throws(Errno) {
                    if full { digest.full = try ContentDigest.full(opened.fd, size: opened.size, buffer: &buffer) }
                    else { digest.partial = try ContentDigest.partial(opened.fd, size: opened.size, buffer: &buffer) }
                } catch { continue }
                filesHashed.add(1, ordering: .relaxed)
                results.withLock { $0.append((k, digest)) }
            }
            done.signal()
        }
        done.wait()
        return results.withLock { $0 }
    }
}
