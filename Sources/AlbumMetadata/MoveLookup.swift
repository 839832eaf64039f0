import AlbumCore

/// Where `survey` looks files new at their path up by their identity, and where the rows it
/// finds go (whole, under the new path: to be saved) before it keeps them slim.
public struct MoveLookup {
    /// For each file, what is known of it at another path, if anything.
    public var lookup: ([(path: String, identity: FileIdentity)]) -> [IndexedFile?]
    /// Takes the rows found, whole and under their new path: to be saved there.
    public var found: ([IndexedFile]) -> Void
    /// What the caller holds decided already, asked before `lookup` (`KnownMoves`).
    public var held: KnownMoves?

    public init(lookup: @escaping ([(path: String, identity: FileIdentity)]) -> [IndexedFile?], found: @escaping ([IndexedFile]) -> Void,
                held: KnownMoves? = nil) {
        self.lookup = lookup
        self.found = found
        self.held = held
    }

    /// Looked up in an index (`files(sameAs:)`): a lookup that fails finds nothing, and the
    /// files are read.
    public init(index: FileIndexStore, found: @escaping ([IndexedFile]) -> Void, held: KnownMoves? = nil) {
        self.init(lookup: { files in (try? index.files(sameAs: files)) ?? files.map { _ in nil } }, found: found, held: held)
    }
}

/// The files a mount holds decided (slim: no evidence), by identity: a file found at another
/// path under the same name (its folder renamed or moved) is taken from there with its photo
/// (`photo(_:movedTo:)`), and only the move goes to `moved` (the index copies the row: no row
/// is read). A whole library's folder renamed (100,000 photos) looked every row up in the
/// index, evidence and all, to decide again what the mount had decided.
public struct KnownMoves {
    /// The file of that identity, where it is, with its photo.
    public var file: (FileIdentity) -> (path: String, file: IndexedFile, photo: Photo?)?
    public var moved: ([FileMove]) -> Void
    /// How many files new at their path make it worth asking (fewer go to `lookup` alone):
    /// a mount finds files by inode in a map it makes when first asked, the index looks a few
    /// files up in less (a photo or a dozen copied in: new files, found nowhere).
    public var minimumBatch: Int

    public init(file: @escaping (FileIdentity) -> (path: String, file: IndexedFile, photo: Photo?)?, moved: @escaping ([FileMove]) -> Void,
                minimumBatch: Int = 1) {
        self.file = file
        self.moved = moved
        self.minimumBatch = minimumBatch
    }
}
