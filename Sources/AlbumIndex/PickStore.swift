import AlbumCore
import AlbumSystem
import CXXHash
import FoundationEssentials
import Glibc

/// Picks in SQLite: WAL, synchronous writes, numbered migrations, bound parameters only.
/// One database may hold the picks of several libraries (`library` column: SOURCE's real path).
public final class PickStore: PickStorage, Sendable {
    /// The connection (opened NOMUTEX: SQLite does not lock it), reached only through `run`, under
    /// this lock, which also keeps each read-modify-write whole.
    private let connection: Locked<SQLiteDatabase>
    private let library: String
    public let path: String

    static let migrations = [
        """
        CREATE TABLE picks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            library TEXT NOT NULL,
            name TEXT NOT NULL,
            source_path TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            picked_at_ns INTEGER NOT NULL,
            target TEXT NOT NULL,
            UNIQUE (library, name)
        );
        CREATE INDEX picks_by_library ON picks (library, id);
        """,
    ]

    /// Why the picks database cannot be used: its errno, and SQLite's words for a caller's warning
    /// (a file written by a newer albumfs says so).
    public struct OpenFailure: Error, CustomStringConvertible {
        public let errno: Errno
        public let message: String
        public var description: String { "\(errno): \(message)" }
    }

    /// Opens (creating folders and schema as needed) the picks database at `path`. A database of a
    /// newer schema is refused and left as it is: picks are the user's data.
    public init(path: String, library: String) throws(OpenFailure) {
        self.path = path
        self.library = library
        try? FileManager.default.createDirectory(atPath: path.folderBeforeLastSlash, withIntermediateDirectories: true)
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("PRAGMA journal_mode = WAL")
            // A pick is the user's data: it is on disk before `ln -s` returns.
            try db.execute("PRAGMA synchronous = FULL")
            try db.migrate(Self.migrations)
            connection = Locked(db)
        } catch {
            throw OpenFailure(errno: error.errno, message: error.message)
        }
    }

    public func loadPicks() throws(Errno) -> [Pick] {
        try run { db in
            try db.query("SELECT name, source_path, content_hash, picked_at_ns, target FROM picks WHERE library = ? ORDER BY picked_at_ns, id",
                         [.text(library)]).map { r in
                Pick(name: r[0].text, sourcePath: r[1].text, contentHash: r[2].text,
                     pickedAt: Timestamp(nanosecondsSinceEpoch: r[3].int), target: r[4].text)
            }
        }
    }

    public func insert(_ pick: Pick) throws(Errno) {
        try run { db in
            try db.query("INSERT INTO picks (library, name, source_path, content_hash, picked_at_ns, target) VALUES (?, ?, ?, ?, ?, ?)",
                         [.text(library), .text(pick.name), .text(pick.sourcePath), .text(pick.contentHash),
                          .int(pick.pickedAt.nanosecondsSinceEpoch), .text(pick.target)])
        }
    }

    public func delete(name: String) throws(Errno) {
        try run { db in try db.query("DELETE FROM picks WHERE library = ? AND name = ?", [.text(library), .text(name)]) }
    }

    public func move(name: String, toSourcePath: String, target: String) throws(Errno) {
        try run { db in
            try db.query("UPDATE picks SET source_path = ?, target = ? WHERE library = ? AND name = ?",
                         [.text(toSourcePath), .text(target), .text(library), .text(name)])
        }
    }

    public func rename(_ from: String, to: String) throws(Errno) {
        try run { db in
            try db.execute("BEGIN IMMEDIATE")
            do {
                try db.query("DELETE FROM picks WHERE library = ? AND name = ?", [.text(library), .text(to)])
                try db.query("UPDATE picks SET name = ? WHERE library = ? AND name = ?", [.text(to), .text(library), .text(from)])
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Picks of a library that moved. When this library has none, it gets a copy of those of a
    /// library whose folder is gone or empty (`mv ~/Pictures ~/Photos`; a disk mounted at
    /// `/media/u/DISK1` after `/media/u/DISK`) if they are its photos: at least half of them found
    /// here at the same paths, the first three of those with the same content hash. (A library
    /// whose folder is still there is a copy, not a move: its picks stay its own.) The old
    /// library keeps them too: a disk that comes back at its old path finds its picks, and a
    /// backup copy mounted while the original's disk is away takes nothing from it. Returns the
    /// library they were kept under, or nil.
    public func takeOverPicksOfMovedLibrary() throws(Errno) -> String? {
        try run { db throws -> String? in
            guard try db.query("SELECT 1 FROM picks WHERE library = ? LIMIT 1", [.text(library)]).isEmpty else { return nil }
            var best: (library: String, found: Int)?
            let others = try db.query("SELECT DISTINCT library FROM picks WHERE library <> ?", [.text(library)]).map { $0[0].text }
            // Their folders asked all at once, for a second at most: a library on a share whose
            // server is gone can hang `opendir`, and this library's mount must not wait for it.
            let gone = Threads.answers(within: 1, others.map { old in { Self.isGoneOrEmpty(old) } })
            for (old, isGone) in zip(others, gone) where isGone == true {
                let picks = try db.query("SELECT source_path, content_hash FROM picks WHERE library = ? ORDER BY picked_at_ns, id",
                                         [.text(old)]).map { (path: $0[0].text, hash: $0[1].text) }
                let here = picks.filter { Self.isRegularFile(library + "/" + $0.path) }
                guard !here.isEmpty, here.count * 2 >= picks.count,
                      here.prefix(3).allSatisfy({ (try? ContentHash.ofFile($0.path, beneath: library)) == $0.hash }),
                      here.count > best?.found ?? 0 else { continue }
                best = (old, here.count)
            }
            guard let best else { return nil }
            try db.query("""
                INSERT INTO picks (library, name, source_path, content_hash, picked_at_ns, target)
                SELECT ?, name, source_path, content_hash, picked_at_ns, target FROM picks WHERE library = ? ORDER BY picked_at_ns, id
                """, [.text(library), .text(best.library)])
            return best.library
        }
    }

    /// Whether no library is at `folder` any more: nothing there, something else, or an empty
    /// folder (a disk's mount point once it is unplugged).
    static func isGoneOrEmpty(_ folder: String) -> Bool {
        guard let dir = opendir(folder) else { return errno == ENOENT || errno == ENOTDIR }
        defer { closedir(dir) }
        return folderIsEmpty(dir)
    }

    static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    public func contentHash(of file: ScannedFile, beneath root: String) throws(Errno) -> String {
        try ContentHash.of(file, beneath: root)
    }

    public func foldWAL() throws(Errno) {
        try run { db in try db.foldWAL() }
    }

    /// Runs under the store's lock; SQLite failures become the errno the kernel is told.
    @discardableResult
    private func run<T>(_ body: (SQLiteDatabase) throws -> T) throws(Errno) -> T {
        try SQLiteDatabase.locked(connection) { try body($0) }
    }
}

/// The picks of a mount whose database cannot be opened or read (a read-only home, a damaged
/// file): none shown, none taken (EROFS), the database itself left as it is. Browsing the library
/// does not depend on picks.
public struct UnsavedPicks: PickStorage {
    public init() {}
    public var acceptsChanges: Bool { false }
    public func loadPicks() throws(Errno) -> [Pick] { [] }
    public func insert(_ pick: Pick) throws(Errno) { throw .readOnlyFileSystem }
    public func delete(name: String) throws(Errno) { throw .readOnlyFileSystem }
    public func rename(_ from: String, to: String) throws(Errno) { throw .readOnlyFileSystem }
    public func move(name: String, toSourcePath: String, target: String) throws(Errno) { throw .readOnlyFileSystem }
    public func contentHash(of file: ScannedFile, beneath root: String) throws(Errno) -> String { try ContentHash.of(file, beneath: root) }
}

/// XXH3-128 of a file's bytes, streamed in 1 MiB reads.
public enum ContentHash {
    /// The hash of a library's file as scanned (`PickStorage.contentHash(of:beneath:)`): at most
    /// the size it had then is read, so a file that grows (or a device put in its place) cannot
    /// keep the hash reading for ever.
    public static func of(_ file: ScannedFile, beneath root: String) throws(Errno) -> String {
        let opened = try SourceOpening.scanned(file, beneath: root)
        defer { close(opened.fd) }
        return try of(opened.fd, count: opened.size)
    }

    /// The hash of a regular file beneath `root` (through no link), whatever it is now.
    public static func ofFile(_ relativePath: String, beneath root: String) throws(Errno) -> String {
        let fd = try SourceOpening.withRoot(root) { rootFD throws(Errno) in try SourceOpening.readOnly(relativePath, relativeTo: rootFD) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Errno.current }
        guard st.st_mode & S_IFMT == S_IFREG else { throw Errno.notFound }
        return try of(fd, count: Int(st.st_size))
    }

    /// The same for the file at an absolute path (its folder taken as the root).
    public static func ofFile(at path: String) throws(Errno) -> String {
        try ofFile(String(path.nameAfterLastSlash), beneath: path.folderBeforeLastSlash)
    }

    /// The hash of the first `count` bytes of an open file (fewer where it ends first); a read
    /// failure is EIO.
    public static func of(_ fd: Int32, count: Int) throws(Errno) -> String {
        guard let state = XXH3_createState() else { throw Errno(rawValue: ENOMEM) }
        defer { XXH3_freeState(state) }
        XXH3_128bits_reset(state)
        var buffer = [UInt8](repeating: 0, count: min(1 << 20, max(count, 1)))
        var done = 0
        while done < count {
            let wanted = min(buffer.count, count - done)
            let (filled, error) = buffer.withUnsafeMutableBytes { PositionalRead.fill(fd, into: $0.baseAddress!, count: wanted, at: Int64(done)) }
            if error != nil { throw Errno.ioError }
            if filled == 0 { break }
            XXH3_128bits_update(state, buffer, filled)
            done += filled
        }
        let h = XXH3_128bits_digest(state)
        return hex(h.high64) + hex(h.low64)
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
