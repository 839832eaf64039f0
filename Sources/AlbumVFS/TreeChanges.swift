import AlbumCore
import AlbumSystem

/// What the kernel must forget after a tree update: folders whose listing changed, entries that
/// went away, and files whose attributes or bytes changed. The FUSE adapter turns these into
/// `notify_inval_inode` / `notify_inval_entry`.
public struct TreeChanges: Sendable {
    public var changedInodes: [UInt64] = []
    public var removedEntries: [(parent: UInt64, name: String)] = []

    public var isEmpty: Bool { changedInodes.isEmpty && removedEntries.isEmpty }

    /// Compares two snapshots (inodes are stable, so the same inode is the same entry).
    static func between(_ old: NodeTable, _ new: NodeTable) -> TreeChanges {
        var changes = TreeChanges()
        var changed = Set<UInt64>()
        func mark(_ inode: UInt64) { if changed.insert(inode).inserted { changes.changedInodes.append(inode) } }

        // Folders whose time or listing changed; entries of folders of folders that went away.
        for (inode, before) in old.folders {
            guard let after = new.folders[inode] else { continue }
            guard before.folder.mtime != after.folder.mtime || !sameListing(before, old, after, new) else { continue }
            mark(inode)
            let kept = Set(after.childInodes)
            for (i, child) in before.childInodes.enumerated() where !kept.contains(child) {
                changes.removedEntries.append((inode, before.folder.child(at: i).name))
            }
        }
        for (inode, before) in old.controlFiles where new.controlFiles[inode]?.mtime != before.mtime { mark(inode) }

        // Photo entries that moved, were renamed, went away or whose file changed: a big tree's
        // photos in parts side by side (a first scan's last tree is compared with the one before
        // at its very end, where one core alone would be the scan's last wait).
        let count = old.photos.count
        let parts = count < parallelFrom ? [0..<count]
            : stride(from: 0, to: count, by: count / 8 + 1).map { $0..<min(count, $0 + count / 8 + 1) }
        let found = parts.count == 1 ? [photoChanges(old, new, parts[0])]
            : Parallel.all(parts.map { part in { @Sendable in photoChanges(old, new, part) } })
        for part in found {
            changes.removedEntries += part.removed
            for inode in part.marked { mark(inode) }
        }
        return changes
    }

    /// Trees of fewer photos are compared on one thread.
    static let parallelFrom = 10_000

    /// The entries of `old`'s photos in `range` that changed in `new`: the ones to drop, and the
    /// inodes (entries and their folders) to invalidate, in order, maybe more than once.
    private static func photoChanges(_ old: NodeTable, _ new: NodeTable, _ range: Range<Int>)
        -> (removed: [(parent: UInt64, name: String)], marked: [UInt64]) {
        var removed: [(parent: UInt64, name: String)] = []
        var marked: [UInt64] = []
        let slots = old.usedSlots
        for p0 in range {
            let number = old.numberOfPhoto[p0]
            let p1 = new.photo(number: number)
            // (A file rewritten in place keeps its identity, and may keep its date: read again, it
            // has another ctime when read, and the kernel may hold its old bytes and thumbnails.)
            let fileChanged = p1.map {
                new.photos[$0].identity != old.photos[p0].identity || new.photos[$0].captureInstant != old.photos[p0].captureInstant
                    || new.photos[$0].changedWhenRead != old.photos[p0].changedWhenRead
            } ?? true
            // (The same file under the same name: each entry's own name is the same, and where its
            // names are the same and its folders too, nothing is to be made of them.)
            let sameName = p1.map {
                new.photos[$0].relativePath == old.photos[p0].relativePath && new.photos[$0].format == old.photos[p0].format
            } ?? false
            for slot in slots {
                let inode = InodeAllocator.inode(number: number, slot: slot)
                if sameName, let p1, let unnamed = old.placeUnnamed(ofPhoto: p0, slot: slot),
                   let unnamedAfter = new.placeUnnamed(ofPhoto: p1, slot: slot),
                   unnamed.parent == unnamedAfter.parent, unnamed.renamed == unnamedAfter.renamed {
                    if fileChanged { marked.append(inode) }
                    continue
                }
                guard let before = old.place(ofPhoto: p0, slot: slot) else { continue }
                let after = p1.flatMap { new.place(ofPhoto: $0, slot: slot) }
                if after?.parent != before.parent || after?.name != before.name {
                    removed.append(before)
                    marked.append(before.parent)
                    if let after { marked.append(after.parent) }
                    marked.append(inode)
                } else if fileChanged {
                    marked.append(inode)
                }
            }
        }
        return (removed, marked)
    }

    /// Whether two versions of a folder list the same entries in the same order (names of
    /// photo entries are compared photo by photo above).
    private static func sameListing(_ a: NodeTable.Folder, _ old: NodeTable, _ b: NodeTable.Folder, _ new: NodeTable) -> Bool {
        switch (a.folder.entries, b.folder.entries) {
        case (.photos(let x), .photos(let y)):
            guard x.count == y.count else { return false }
            for k in 0..<x.count where old.numberOfPhoto[x.photo(at: k)] != new.numberOfPhoto[y.photo(at: k)] { return false }
            return true
        case (.photos, _), (_, .photos):
            return false
        default:
            return a.childInodes == b.childInodes
        }
    }
}
