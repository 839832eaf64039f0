import AlbumCore
import AlbumMetadata
import AlbumVFS

/// What a `LibraryCoordinator` is made of: the library's scanner and index, the filesystem it
/// publishes into, how it follows the library, and where it reports.
public struct CoordinatorParts {
    public var scanner: LibraryScanner
    public var index: FileIndexStore?
    public var fs: AlbumFileSystem
    public var options: CoordinatorOptions
    /// `(done, total, finished)` while headers are read, for a terminal progress line.
    public var progress: (@Sendable (Int, Int, Bool) -> Void)?
    /// Saves the views between mounts (nil: none kept).
    public var keeper: ViewsKeeper?
    public var log: @Sendable (String) -> Void

    public init(scanner: LibraryScanner, index: FileIndexStore?, fs: AlbumFileSystem, options: CoordinatorOptions,
                log: @escaping @Sendable (String) -> Void) {
        self.scanner = scanner
        self.index = index
        self.fs = fs
        self.options = options
        self.log = log
    }
}
