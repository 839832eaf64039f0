import AlbumCore

/// What the kernel must forget after a tree update: folders whose listing changed, entries that
/// went away, and files whose attributes or bytes changed. The FUSE adapter turns these into
/// `notify_inval_inode` / `notify_inval_entry`.
public struct TreeChanges: Sendable {
    public var changedInodes: [UInt64] = []
    public var removedEntries: [(parent: UInt64, name: String)] = []

    public var isEmpty: Bool { changedInodes.isEmpty && removedEntries.isEmpty }

    /// Compares two snapshots node by node (inodes are stable per path, so equal paths compare).
    static func between(_ old: (library: Library, table: NodeTable), _ new: (library: Library, table: NodeTable)) -> TreeChanges {
        var changes = TreeChanges()
        for case let before? in old.table.slots {
            let inode = before.inode
            guard let after = new.table[inode] else { continue }
            switch (before.kind, after.kind) {
            case (.folder(let f0, let c0), .folder(let f1, let c1)):
                if c0 != c1 || f0.mtime != f1.mtime {
                    changes.changedInodes.append(inode)
                    let kept = Set(c1)
                    for (i, child) in c0.enumerated() where !kept.contains(child) {
                        changes.removedEntries.append((inode, f0.children[i].name))
                    }
                }
            case (.file(let a), .file(let b)):
                let pa = a.photo.map { old.library.photos[$0].identity }
                let pb = b.photo.map { new.library.photos[$0].identity }
                if pa != pb || before.mtime != after.mtime { changes.changedInodes.append(inode) }
            default:
                changes.changedInodes.append(inode)
            }
        }
        return changes
    }
}
