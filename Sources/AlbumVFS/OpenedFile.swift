/// What `open` answers: the handle, whether the kernel keeps the file's pages, and how reads of
/// the handle are served. The FUSE adapter acts on it once (mountpoint-s3's `Opened`).
public struct OpenedFile: Sendable, Equatable {
    /// `fi->fh`: what `read` and `release` name.
    public let handle: UInt64
    /// How the handle's reads are served: the handle carries it (`ReadService(handle:)`), so a
    /// read asks nothing before it is sent where it runs.
    public var reads: ReadService { ReadService(handle: handle) }
    public let cache: CachePolicy
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
    /// A thumbnail: its first read renders it (waiting on a decoder, on the request pool), and
    /// later reads are served there from the bytes kept with the handle.
    case render

    /// The service a handle was opened for, from its two top bits (`HandleTable.insert`).
    public init(handle: UInt64) {
        switch handle >> ReadService.shift {
        case 1: self = .source
        case 2: self = .render
        default: self = .inline
        }
    }

    /// The bits that carry the service in a handle.
    var handleBits: UInt64 {
        switch self {
        case .inline: return 0
        case .source: return 1 << ReadService.shift
        case .render: return 2 << ReadService.shift
        }
    }

    /// Handles are numbered from 1 and never reach 2^62 in a mount's life.
    private static var shift: UInt64 { 62 }
}
