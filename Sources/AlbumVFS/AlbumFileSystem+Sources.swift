import AlbumCore

/// What the FUSE adapter and the library's follower ask of `sources` through the filesystem.
extension AlbumFileSystem {
    /// Told by whoever answers requests with a deadline (`-o source_timeout`): the storage stopped
    /// answering (a request waited `seconds` for it), or answers again; `change` numbers the
    /// changes (one told late is ignored). Each change is logged.
    public func setSourceStalled(_ stalled: Bool, change: UInt64, seconds: Double) {
        sources.setStalled(stalled, change: change, seconds: seconds)
    }

    /// True while a request that waited on the library's storage was answered EIO at its
    /// deadline and the storage has not answered it since (`-o source_timeout`): a server that
    /// stopped answering. The views still answer from what the index holds.
    public var isSourceStalled: Bool { sources.isStalled }

    /// Whether opening this inode opens a file of the library (an original), which a stalled
    /// storage may never answer: the adapter opens it under `-o source_timeout`.
    public func opensSource(_ inode: UInt64) -> Bool {
        guard let node = current.table[inode], case .file(.original) = node.kind else { return false }
        return true
    }

    /// Who follows the library from now on: requests wait on it for the tree that shows a moved
    /// file, and tell it of files found changed (held weakly: it holds the filesystem).
    public func follow(_ follower: any LibraryFollowing) { sources.follow(follower) }

    /// The photo a file inode (an original or a thumbnail) shows in the current tree.
    func shownPhoto(inode: UInt64) -> Photo? { current.photo(inode: inode) }
}
