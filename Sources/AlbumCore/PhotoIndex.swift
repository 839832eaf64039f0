/// Where the views get their photos from. The scanner fills it; the persistent SQLite index
/// (issue 5) is another implementation of the same protocol.
public protocol PhotoIndex: Sendable {
    /// Every photo currently known, in no particular order.
    func allPhotos() -> [Photo]
    /// Replaces what is known with a fresh scan.
    func replaceAll(_ photos: [Photo])
}

/// An index that lives in memory for the life of the mount.
public final class MemoryPhotoIndex: PhotoIndex, @unchecked Sendable {
    // Protected by `lock`; plain NSLock keeps this module free of C and of Synchronization's
    // availability rules.
    private var photos: [Photo] = []
    private let lock = NSLockShim()

    public init(_ photos: [Photo] = []) { self.photos = photos }

    public func allPhotos() -> [Photo] { lock.withLock { photos } }
    public func replaceAll(_ new: [Photo]) { lock.withLock { photos = new } }
}
