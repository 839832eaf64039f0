import AlbumCore

/// Where `survey` looks files new at their path up by their identity, and where the rows it
/// finds go (whole, under the new path: to be saved) before it keeps them slim. Sendable: made
/// where a scan is asked for, used on its walk's thread.
public struct MoveLookup: Sendable {
    /// For each file, what is known of it at another path, if anything.
    public var lookup: @Sendable ([(path: String, identity: FileIdentity)]) -> [IndexedFile?]
    /// Takes the rows found, whole and under their new path: to be saved there.
    public var found: @Sendable ([IndexedFile]) -> Void

    public init(lookup: @escaping @Sendable ([(path: String, identity: FileIdentity)]) -> [IndexedFile?],
                found: @escaping @Sendable ([IndexedFile]) -> Void) {
        self.lookup = lookup
        self.found = found
    }

    /// Looked up in an index (`files(sameAs:)`): a lookup that fails finds nothing, and the
    /// files are read.
    public init(index: FileIndexStore, found: @escaping @Sendable ([IndexedFile]) -> Void) {
        self.init(lookup: { files in (try? index.files(sameAs: files)) ?? files.map { _ in nil } }, found: found)
    }
}

/// The files a mount holds decided (slim: no evidence), by identity: a file found at another
/// path under the same name (its folder renamed or moved) is taken from there with its photo
/// (`photo(_:movedTo:)`), and only the move goes to `moved` (the index copies the row: no row
/// is read); asked before `MoveLookup.lookup` (`SurveyRequest.held`), on the walk's thread that
/// makes it. A whole library's folder renamed (100,000 photos) looked every row up in the
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
