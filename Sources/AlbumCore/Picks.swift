import AlbumSystem
/// One picked photo: a link in `picked/`.
public struct Pick: Sendable, Equatable {
    /// The link's name in `picked/`.
    public var name: String
    /// The photo's path below the library root: what the pick refers to.
    public var sourcePath: String
    /// XXH3-128 of the photo's bytes: the same image under another path is the same pick.
    public var contentHash: String
    public var pickedAt: Timestamp
    /// The link target last shown (`../by-date/…`), kept for when the photo is gone.
    public var target: String

    public init(name: String, sourcePath: String, contentHash: String, pickedAt: Timestamp, target: String) {
        self.name = name
        self.sourcePath = sourcePath
        self.contentHash = contentHash
        self.pickedAt = pickedAt
        self.target = target
    }
}

/// Where picks persist (AlbumIndex's SQLite store implements it). Every call is durable when it
/// returns: the kernel is answered only after.
public protocol PickStorage: Sendable {
    /// All picks of this library, oldest first.
    func loadPicks() throws(Errno) -> [Pick]
    func insert(_ pick: Pick) throws(Errno)
    func delete(name: String) throws(Errno)
    /// Renames a pick; a pick already called `to` is replaced.
    func rename(_ from: String, to: String) throws(Errno)
    /// Points a pick at the place its photo moved to (the same bytes found at another path).
    func move(name: String, toSourcePath: String, target: String) throws(Errno)
    /// The content hash of a library's file as the scan saw it, opened beneath `root` through no
    /// link and checked to be that file (ENOENT otherwise), read up to the size it had then.
    /// A read failure is EIO.
    func contentHash(of file: ScannedFile, beneath root: String) throws(Errno) -> String
    /// Whether picks can be taken at all (false: every change answers EROFS, and `picked/` shows
    /// no write bits).
    var acceptsChanges: Bool { get }
    /// Makes the database file hold every pick by itself (at unmount: its WAL folded in).
    func foldWAL() throws(Errno)
}

extension PickStorage {
    public var acceptsChanges: Bool { true }
    public func foldWAL() throws(Errno) {}
}
