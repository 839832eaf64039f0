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
    /// Positions in a folder of photos left out (thumbnails that cannot be made), in order.
    private let hidden: [Int]

    init(_ folder: NodeTable.Folder, in table: NodeTable, hiding hidden: [Int] = []) {
        head = [(folder.inode, "."), (folder.parent, "..")]
        self.hidden = hidden
        if case .photos = folder.folder.entries {
            self.folder = folder
            self.table = table
        } else {
            for k in 0..<folder.folder.count { head.append(table.child(of: folder, at: k)) }
            self.folder = nil
            self.table = nil
        }
    }

    var count: Int { head.count + (folder?.folder.count ?? 0) - hidden.count }

    subscript(k: Int) -> (inode: UInt64, name: String) {
        if k < head.count { return head[k] }
        // The k-th position shown: past each hidden one at or before it.
        var position = k - head.count
        for h in hidden where h <= position { position += 1 }
        return table!.child(of: folder!, at: position)
    }
}
