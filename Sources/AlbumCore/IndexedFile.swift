import AlbumSystem
/// What the scanner learned about one regular file of the library, as the index keeps it.
///
/// The index stores evidence, not decisions: rules (and their `-o` lists) are applied again on
/// every mount, so changing `screenshot_names` needs no re-read of any file.
public struct IndexedFile: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Indirect: the evidence is large (a dozen strings) and is often dropped once decided, so
        /// the case holds a pointer, and the slim kinds below share one empty box.
        indirect case photo(ImageFormat, PhotoEvidence)
        /// Not a photo (a text file, a video for now): remembered so it is not read again.
        case ignored
        /// Could not be read or understood, and why.
        case problem(String)

        /// A photo whose evidence was dropped after its decisions were made (shared, no allocation).
        public static func slimPhoto(_ format: ImageFormat) -> Kind {
            switch format {
            case .jpeg: slimJPEG
            case .png: slimPNG
            case .heif: slimHEIF
            case .video: slimVideo
            case .webp: slimWebP
            case .gif: slimGIF
            case .tiff: slimTIFF
            case .jxl: slimJXL
            case .raw: slimRAW
            }
        }
        private static let slimJPEG = Kind.photo(.jpeg, PhotoEvidence())
        private static let slimPNG = Kind.photo(.png, PhotoEvidence())
        private static let slimHEIF = Kind.photo(.heif, PhotoEvidence())
        private static let slimVideo = Kind.photo(.video, PhotoEvidence())
        private static let slimWebP = Kind.photo(.webp, PhotoEvidence())
        private static let slimGIF = Kind.photo(.gif, PhotoEvidence())
        private static let slimTIFF = Kind.photo(.tiff, PhotoEvidence())
        private static let slimJXL = Kind.photo(.jxl, PhotoEvidence())
        private static let slimRAW = Kind.photo(.raw, PhotoEvidence())
    }

    public var relativePath: String
    public var identity: FileIdentity
    /// `changedWhenRead`, packed (a mount keeps one record per file of the library). Stored before
    /// `kind`, whose 17 bytes then end the struct: with `LibraryState`'s photo position a mount's
    /// record is 80 bytes.
    private var changedWhenReadPacked: PackedTimestamp
    public var kind: Kind

    public init(relativePath: String, identity: FileIdentity, kind: Kind, changedWhenRead: Timestamp? = nil) {
        self.relativePath = relativePath
        self.identity = identity
        self.kind = kind
        changedWhenReadPacked = PackedTimestamp(changedWhenRead)
    }

    /// A photo's ctime when its header was read, for a photo its content made (nil for other
    /// files, and rows of indexes made before schema 7). It is what tells
    /// - a file rewritten in place with its size and mtime kept (`exiftool -P
    ///   -overwrite_original_in_place -AllDates+=1` shifts a date without changing the length, on
    ///   the same inode) from an unchanged one: its ctime moved (no program can set a ctime back),
    ///   so a scan reads it again (`LibraryScanner.survey`);
    /// - a file found at another path under this identity (its folder renamed) from one renamed or
    ///   rewritten since, and from a new file given a deleted one's inode number, size and mtime
    ///   (`LibraryScanner.isFile`).
    public var changedWhenRead: Timestamp? {
        get { changedWhenReadPacked.time }
        set { changedWhenReadPacked = PackedTimestamp(newValue) }
    }

    /// Whether `changed`, the file's ctime now, shows no change since it was read (true where that
    /// ctime is not known: the identity alone decides, as it did before ctimes were kept, and as it
    /// does for files that are not photos).
    public func unchangedSinceRead(changed: Timestamp) -> Bool {
        changedWhenRead.map { $0 == changed } ?? true
    }

    /// Whether this is a photo's full row that does not say the file's owner and mode (an index
    /// written before they were kept): it is read again rather than taken as it is.
    public var lacksAccess: Bool {
        withPhotoEvidence { e in e.access == nil && !e.problems.contains(where: ReadFailure.isReadFailure) } ?? false
    }

    /// `body` of a photo's evidence where it lies in the record (nil for a file that is no photo).
    @inlinable
    public func withPhotoEvidence<R, E: Error>(_ body: (borrowing PhotoEvidence) throws(E) -> R) throws(E) -> R? {
        switch kind {
        case .photo(_, let e): try body(e)
        default: nil
        }
    }

    /// The same file without its evidence (once decided, and saved to the index).
    public var slimmed: IndexedFile {
        var slim = self
        slim.slim()
        return slim
    }

    /// Drops the evidence, in place (a batch of records slimmed where it lies: no copy of each).
    public mutating func slim() {
        guard case .photo(let format, _) = kind else { return }
        kind = .slimPhoto(format)
    }
}

/// The problem recorded for a file that could not be opened or read (permissions, I/O errors, no
/// descriptor left), as opposed to one whose content is wrong: such a file is read again by every
/// scan, since what fixes it (a chmod, a disk back online) may change neither its size, its mtime
/// nor its inode, the identity that lets a scan trust the index.
public enum ReadFailure {
    static let prefix = "unreadable: "

    public static func message(_ error: Errno) -> String { prefix + error.description }

    public static func isReadFailure(_ problem: String) -> Bool { problem.hasPrefix(prefix) }
}

/// A file known at `from` found at `to`, the same file (`identity`): its folder renamed or moved.
public struct FileMove: Sendable, Equatable {
    public var from: String
    public var to: String
    public var identity: FileIdentity

    public init(from: String, to: String, identity: FileIdentity) {
        self.from = from
        self.to = to
        self.identity = identity
    }
}

/// The persistent index behind the scanner (AlbumIndex's SQLite store implements it).
public protocol FileIndexStore: Sendable {
    func loadAll() throws(Errno) -> [IndexedFile]
    /// Every file, one at a time (a mount keeps only what it decides from each).
    func forEach(_ body: (IndexedFile) -> Void) throws(Errno)
    /// Writes changes in one transaction.
    func save(upserts: [IndexedFile], removals: [String]) throws(Errno)
    /// Gives each moved file's row at `from`, if it is still that file's (its identity), to `to`
    /// as well, in one transaction (the row at `from` goes with the scan's removals).
    func save(moves: [FileMove]) throws(Errno)
    /// For each file found at `path`, what the store knows of one under its very identity (inode,
    /// size, mtime) at another path: a folder renamed, a photo moved or renamed. Nil where there is
    /// none, where the identity cannot tell (inode 0), or where the row cannot stand for the file
    /// there (`FileRows.holds`; the scanner then checks the ctime, `LibraryScanner.isFile`).
    func files(sameAs files: [(path: String, identity: FileIdentity)]) throws(Errno) -> [IndexedFile?]
    /// The device the library's folder was on when last listed (nil: not known yet): a mount
    /// that finds the folder empty on another device knows its disk is not mounted.
    func libraryDevice() throws(Errno) -> UInt64?
    func saveLibraryDevice(_ device: UInt64) throws(Errno)
    /// Makes ready what `files(sameAs:)` looks up, when nothing waits for it (after a first scan's
    /// rows are written), rather than at the first lookup (a photo copied in, at a live change).
    func prepareLookups()
    /// What is wrong inside the store, or nil when it is sound (a store opened without its
    /// check is checked once the mount answers).
    func damage() -> String?
}

extension FileIndexStore {
    public func prepareLookups() {}
    public func damage() -> String? { nil }
}
