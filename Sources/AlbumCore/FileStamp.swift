/// A file as scanned: its identity (inode, size, mtime) and its ctime when read. What is known of
/// a file's content (`ContentHashRecord`, `SimilarHashRecord`) holds while its file bears the
/// same stamp: a rewrite, even one that keeps size and mtime, changes the ctime.
public struct FileStamp: Hashable, Sendable {
    public var identity: FileIdentity
    public var changedWhenRead: Timestamp?

    public init(identity: FileIdentity, changedWhenRead: Timestamp?) {
        self.identity = identity
        self.changedWhenRead = changedWhenRead
    }

    /// `photo`'s file as scanned.
    public init(_ photo: Photo) { self.init(identity: photo.identity, changedWhenRead: photo.changedWhenRead) }
}

/// A record of what is known of one file under its path, made of the file as `stamp` says.
public protocol StampedRecord {
    var relativePath: String { get }
    var stamp: FileStamp { get }
}

extension StampedRecord {
    /// Whether the record stands for `photo`'s file as scanned.
    public func holds(_ photo: Photo) -> Bool { photo.sourcePath == relativePath && FileStamp(photo) == stamp }

    public var identity: FileIdentity { stamp.identity }
    public var changedWhenRead: Timestamp? { stamp.changedWhenRead }
}
