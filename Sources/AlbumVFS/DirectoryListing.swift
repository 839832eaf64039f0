import AlbumCore

/// A folder's listing as it was at `opendir`: `.`, `..`, then the entries (or the picks).
///
/// It holds the snapshot's folder, not a copy of its entries, so listing a 100,000-photo
/// folder allocates nothing per entry until `readdir` asks for it; a rebuild during `ls`
/// never skips or repeats an entry since the snapshot does not change.
struct DirectoryListing: Sendable {
    /// `.`, `..`, and for small folders and `picked/` every entry.
    var head: [(inode: UInt64, name: String)]
    private let folder: NodeTable.Folder?
    private let table: NodeTable?

    init(_ folder: NodeTable.Folder, in table: NodeTable) {
        head = [(folder.inode, "."), (folder.parent, "..")]
        if case .photos = folder.folder.entries {
            self.folder = folder
            self.table = table
        } else {
            for k in 0..<folder.folder.count { head.append(table.child(of: folder, at: k)) }
            self.folder = nil
            self.table = nil
        }
    }

    var count: Int { head.count + (folder?.folder.count ?? 0) }

    subscript(k: Int) -> (inode: UInt64, name: String) {
        if k < head.count { return head[k] }
        return table!.child(of: folder!, at: k - head.count)
    }
}
