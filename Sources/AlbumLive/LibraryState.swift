import AlbumCore
import AlbumMetadata

/// What the mount knows about the library's files: each file's identity (to notice changes),
/// each photo's decisions, each unreadable file's problem.
///
/// The decided photos are kept as one dense array: the array the views are built from and share
/// (no copy per publish). One map by path holds each file and where its photo is in that array
/// (one map, not a second one from path to position, which would hash every path twice more and
/// resize two maps as they grow). A removal moves the last photo into the hole,
/// so the array never has gaps (views sort it anyway).
///
/// Evidence is not kept: it is needed once, to decide a photo, and the index has it on disk.
public struct LibraryState: Sendable {
    /// What the map holds for a path: a photo's place in `photos` (the photo holds the file's
    /// record: its path, identity, format and ctime when read), or the record of a file that is no
    /// photo shown (ignored, a problem, an image in a format not shown), boxed. 16 bytes beside
    /// the path, where the record itself took 80: the map has one entry per file, and at a million
    /// files its table is two million buckets.
    enum Known: Sendable {
        case photo(Int32)
        case other(Record)

        init(file: IndexedFile, photo: Int32?) {
            self = photo.map { .photo($0) } ?? .other(Record(file))
        }

        /// The position of the file's photo in `photos`, when it is one.
        var photo: Int32? {
            if case .photo(let position) = self { return position }
            return nil
        }
    }

    /// The record of a file that is no photo shown.
    final class Record: Sendable {
        let file: IndexedFile
        init(_ file: IndexedFile) { self.file = file }
    }

    private(set) var entries: [String: Known] = [:]
    private(set) var photos: [Photo] = []
    /// The files that could not be read or understood, and why (a few, so the report does not
    /// walk every file for them).
    private var problems: [String: String] = [:]
    /// The files that could not be read (`ReadFailure`): a scan is never offered them as known,
    /// so it reads them again.
    private var unreadable: Set<String> = []
    /// How many files each folder holds directly ("" the library's own), made when first asked
    /// (a first scan asks nothing) and kept up from then: a rescan of one folder tells from it
    /// that nothing below the folder is gone without looking at every path known.
    private var countsByFolder: [String: Int]?

    public init() {}

    /// The files read of which no photo is shown, with why (`LibraryScanner.notShownReason`), in
    /// no order; `images`: how many of them are images in a format not shown (HEIF with
    /// `-o heif=off`: `ScanRules.formats`), files the reader took for images. Found when asked
    /// (once per publish, beside a rebuild of every view) in one pass over the files, not kept
    /// apart as they come and go: every put and drop would look after a second map.
    func notShown(_ scanner: LibraryScanner) -> (files: [NotShownFile], images: Int) {
        var files: [NotShownFile] = []
        var images = 0
        // (By index: a photo's path is never touched, so never retained and released.)
        for i in entries.indices {
            guard case .other(let record) = entries.values[i], let reason = scanner.notShownReason(record.file) else { continue }
            if case .photo = record.file.kind { images += 1 }
            files.append(NotShownFile(path: entries.keys[i], reason: reason))
        }
        return (files, images)
    }

    public var photoCount: Int { photos.count }
    var fileCount: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    var paths: Dictionary<String, Known>.Keys { entries.keys }

    func knows(_ relativePath: String) -> Bool { entries[relativePath] != nil }

    /// Takes a file just read or loaded from the index: decides its photo, drops its evidence.
    mutating func put(_ file: IndexedFile, scanner: LibraryScanner) {
        put(file, photo: scanner.photo(from: file))
    }

    /// Takes a file whose photo was decided already (on the reader threads). Both are moved in
    /// (a first scan puts every file of the library: a copy of each record and photo was a dozen
    /// retains and releases).
    mutating func put(_ file: consuming IndexedFile, photo: consuming Photo?) {
        let path = file.relativePath
        if case .problem(let message) = file.kind {
            problems[path] = message
        } else if !problems.isEmpty {
            problems[path] = nil
        }
        if Self.readFailed(file, photo) {
            unreadable.insert(path)
        } else if !unreadable.isEmpty {
            unreadable.remove(path)
        }
        file.slim()
        if countsByFolder != nil && entries[path] == nil { countsByFolder?[path.folderBeforeLastSlash, default: 0] += 1 }
        // One lookup, through the map's in-place accessor, whether the path is new or known.
        let hole = Self.store(file, photo, in: &entries[path], photos: &photos)
        if let hole { fill(hole) }
    }

    /// Whether reading the file failed (for a photo, its decision keeps the problems: the record
    /// may be slim already).
    private static func readFailed(_ file: IndexedFile, _ photo: Photo?) -> Bool {
        if case .problem(let message) = file.kind { return ReadFailure.isReadFailure(message) }
        return photo?.problems.contains(where: ReadFailure.isReadFailure) ?? false
    }

    /// Takes a file found at a new path (`file`'s) in place of the same file at `from`, gone: a
    /// photo keeps its place in `photos` (a whole library's folder renamed dropped 100,000 paths,
    /// each filling its hole with the last photo, then appended them all again). False, and
    /// nothing changed, when `from` does not hold that file (its identity).
    mutating func move(from: String, _ file: consuming IndexedFile, photo: consuming Photo?) -> Bool {
        guard let old = entries.removeValue(forKey: from) else { return false }
        guard record(old, at: from).identity == file.identity else {
            entries[from] = old
            return false
        }
        forgetProblem(at: from)
        counted(from, -1)
        guard let position = old.photo, photo != nil, !Self.readFailed(file, photo) else {
            if let position = old.photo { fill(Int(position)) }
            put(file, photo: photo)
            return true
        }
        let to = file.relativePath
        file.slim()
        photos[Int(position)] = photo.take().unsafelyUnwrapped
        // (A file that was at `to` is replaced, as `put` replaces it.)
        if let displaced = entries.updateValue(Known(file: file, photo: position), forKey: to) {
            forgetProblem(at: to)
            if let hole = displaced.photo { fill(Int(hole)) }
        } else {
            counted(to, 1)
        }
        return true
    }

    mutating func drop(_ path: String) {
        forgetProblem(at: path)
        guard let gone = entries.removeValue(forKey: path) else { return }
        counted(path, -1)
        if let position = gone.photo { fill(Int(position)) }
    }

    /// Counts a file added at `path` (`change` 1) or gone from it (-1), once counting began.
    private mutating func counted(_ path: String, _ change: Int) {
        guard countsByFolder != nil else { return }
        let folder = path.folderBeforeLastSlash
        let count = (countsByFolder?[folder] ?? 0) + change
        countsByFolder?[folder] = count > 0 ? count : nil
    }

    /// Counts the files of every folder, and keeps counting (`fileCount(under:)`).
    /// Where the photo of the file at `relativePath` is in `photos`, if it is one.
    func photoPosition(_ relativePath: String) -> Int32? { entries[relativePath]?.photo }

    /// A table by path (duplicate groups) by photo position, as the views take it.
    func byPhoto<Value>(_ byPath: [String: Value]) -> [Int32: Value] {
        var table: [Int32: Value] = [:]
        for (path, value) in byPath { if let i = photoPosition(path) { table[i] = value } }
        return table
    }

    mutating func countFolders() {
        guard countsByFolder == nil else { return }
        var counts: [String: Int] = [:]
        for path in entries.keys { counts[path.folderBeforeLastSlash, default: 0] += 1 }
        countsByFolder = counts
    }

    /// How many files are known in `folder` and below ("" the library).
    mutating func fileCount(under folder: String) -> Int {
        if folder.isEmpty { return entries.count }
        countFolders()
        return countsByFolder?.reduce(0) { $1.key.isWithin(folder: folder) ? $0 + $1.value : $0 } ?? 0
    }

    /// Forgets what went wrong with the file at `path` (its problem, a failed read), if anything.
    private mutating func forgetProblem(at path: String) {
        if !problems.isEmpty { problems[path] = nil }
        if !unreadable.isEmpty { unreadable.remove(path) }
    }

    /// Room for `count` more files, so a big scan does not rehash the map as it grows; the photo
    /// array made the size of what it will hold, when it has far more room: a walk that ended
    /// ahead of its merges knows the library's size while the readers still read, and the copy
    /// `compactPhotos` makes at the scan's end, when nothing else runs, is made now.
    mutating func reserve(more count: Int) {
        // (Reserving makes the photo array unique: with nothing to add, that would be a copy.)
        guard count > 0 else { return }
        entries.reserveCapacity(entries.count + count)
        let total = photos.count + count
        if photos.capacity > total + total / 16 {
            compactPhotos(room: count)
        } else {
            photos.reserveCapacity(total)
        }
    }

    /// Room for at least `count` files in all, while their number is still unknown (a walk goes
    /// on): the map grows four-fold rather than two-fold as inserting does, so a first scan
    /// rehashes its paths half as often (resizing was a tenth of the merging thread's time).
    mutating func expect(atLeast count: Int) {
        guard count > entries.capacity else { return }
        entries.reserveCapacity(max(count, entries.capacity * 4))
    }

    /// The map at the size of what it holds: a first scan grows it four-fold ahead of its walk,
    /// and at a million files what was reserved and never filled was a fifth of the daemon
    /// (docs/benchmarks.md).
    mutating func compactMap() {
        guard entries.capacity > 2 * entries.count else { return }
        var exact = [String: Known](minimumCapacity: entries.count)
        for (path, known) in entries { exact[path] = known }
        entries = exact
    }

    /// The photo array at the size of what it holds, as the map (`compactMap`). It is copied only
    /// before a publish: the tree shown shares it, and would keep the old one too.
    /// `room`: photos to be added, room made for them too.
    mutating func compactPhotos(room: Int = 0) {
        let total = photos.count + room
        if photos.capacity > total + total / 16 {
            var exact: [Photo] = []
            exact.reserveCapacity(total)
            exact.append(contentsOf: photos)
            photos = exact
        }
    }

    /// The photos (the array the views share) and every problem, sorted by path.
    public func report(folderProblems: [ScanProblem] = []) -> ScanReport {
        ScanReport(photos: photos, filesSeen: entries.count,
                   fileProblems: problems.map { ScanProblem(relativePath: $0.key, message: $0.value) }, folderProblems: folderProblems)
    }

    /// Sets a path's entry; returns the position of a photo it no longer has (a hole to fill).
    private static func store(_ file: consuming IndexedFile, _ photo: consuming Photo?, in entry: inout Known?, photos: inout [Photo]) -> Int? {
        // (The stored field read where it lies: through `photo`, the whole entry was copied.)
        let had = entry?.photo
        guard photo != nil else {
            entry = Known(file: file, photo: nil)
            return had.map { Int($0) }
        }
        if let i = had {
            photos[Int(i)] = photo.take().unsafelyUnwrapped
            entry = Known(file: file, photo: i)
        } else {
            entry = Known(file: file, photo: Int32(photos.count))
            photos.append(photo.take().unsafelyUnwrapped)
        }
        return nil
    }

    /// Moves the last photo into the hole at `position`.
    private mutating func fill(_ position: Int) {
        let last = photos.removeLast()
        guard position < photos.count else { return }
        photos[position] = last
        entries[last.relativePath] = .photo(Int32(position))
    }
}

extension LibraryState {
    /// The record of the file at `path` (slim: a photo's evidence is not kept).
    func record(_ known: Known, at path: String) -> IndexedFile {
        switch known {
        case .other(let record): return record.file
        case .photo(let position):
            let photo = photos[Int(position)]
            return IndexedFile(relativePath: path, identity: photo.identity, kind: .slimPhoto(photo.format),
                               changedWhenRead: photo.changedWhenRead)
        }
    }

    /// The file at `path` with its photo, for a scan that found it at another path (nil for one
    /// that could not be read: it is read again wherever it is).
    func held(at path: String) -> (file: IndexedFile, photo: Photo?)? {
        if !unreadable.isEmpty && unreadable.contains(path) { return nil }
        guard let known = entries[path] else { return nil }
        return (record(known, at: path), known.photo.map { photos[Int($0)] })
    }

    /// Every file's path by its inode number (of hard links, one; of inode 0, which names no
    /// file, none).
    func pathsByInode() -> [UInt64: String] {
        var paths: [UInt64: String] = [:]
        paths.reserveCapacity(entries.count)
        for (path, known) in entries {
            let inode = record(known, at: path).identity.inode
            if inode != 0 { paths[inode] = path }
        }
        return paths
    }
}

extension LibraryState: KnownFiles {
    /// What the mount knows of a file, for a scan to reuse if unchanged; nil for a file that could
    /// not be read, so the scan reads it again.
    public func known(_ relativePath: String) -> IndexedFile? {
        // (A first scan asks for every file it finds: an empty map need not hash the path.)
        if entries.isEmpty || !unreadable.isEmpty && unreadable.contains(relativePath) { return nil }
        return entries[relativePath].map { record($0, at: relativePath) }
    }

    public func forEachPath(_ body: (String) -> Void) { entries.keys.forEach(body) }
}
