/// What `open` answers: the handle, whether the kernel keeps the file's pages, and how reads of
/// the handle are served. The FUSE adapter acts on it once (mountpoint-s3's `Opened`).
public struct OpenedFile: Sendable, Equatable {
    /// `fi->fh`: what `read` and `release` name.
    public let handle: UInt64
    public let cache: CachePolicy
    /// How the handle's reads are served at the open (a thumbnail's turns `inline` once made:
    /// `AlbumFileSystem.readService`).
    public let reads: ReadService
}

/// Whether the kernel may keep a file's pages between opens.
public enum CachePolicy: Sendable, Equatable {
    /// Originals and thumbnails do not change under a snapshot: `keep_cache`.
    case keep
    /// Content made at open (`.albumfs/` texts): `direct_io`, so a grown text is never cut short.
    case direct
}

/// Where a read of a handle runs.
public enum ReadService: Sendable, Equatable {
    /// From memory, on the request's thread (texts, thumbnails made already).
    case inline
    /// From the library's storage, on the request's thread, answered EIO past `-o source_timeout`.
    case source
    /// A thumbnail not made yet: its render waits on a decoder, on the slow-work threads.
    case render
}
