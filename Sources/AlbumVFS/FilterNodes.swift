import AlbumCore
import AlbumSystem

/// `filter/EXPRESSION/…/`: folders made on lookup from their names (docs/folders.md), kept in
/// `folders` and answered beside the published tree's nodes, for the tree a request reads.
final class FilterNodes: Sendable {
    /// The folders found so far, and the wrong names.
    let folders = FilterFolders()
    let inodes: InodeAllocator

    init(inodes: InodeAllocator) { self.inodes = inodes }

    /// The node a lookup of `name` in `parent` finds below `filter/`, or nil when `parent` is
    /// neither `filter/` nor one of its folders (or the name is one the node table answers:
    /// `filter/README.txt`, `.`, `..`).
    func child(of parent: UInt64, named name: String, _ s: TreeView) -> Result<Node, Errno>? {
        let chain: FilterPredicate?
        let parentPath: String
        if parent == s.table.filterInode {
            if name == "." || name == ".." || name == LibraryViews.filterReadmeName { return nil }
            (chain, parentPath) = (nil, LibraryViews.filter)
        } else if let known = folders.folder(parent, s.library), let folder = known.folder {
            if name == "." { return .success(node(known, parent)) }
            if name == ".." { return s.table[known.parent].map { .success($0) } ?? node(known.parent, s).map { .success($0) } }
            if case .photos(let entries) = folder.entries, let position = entries.position(named: name) {
                let photo = entries.photo(at: position)
                return .success(Node(inode: s.table.inode(ofPhoto: photo, slot: entries.slot), parent: parent, name: name,
                                     kind: .file(entries.content(ofPhoto: photo)), mtime: s.library.photos[photo].captureInstant))
            }
            (chain, parentPath) = (known.predicate, known.path)
        } else {
            return nil
        }
        if FileNameBytes.count(name) > EntryNames.maxBytes { return .failure(.nameTooLong) }
        let path = parentPath + "/" + name
        switch FilterSyntax.parse(name).flatMap(FilterTerms.compile) {
        case .failure(let error):
            if !FilterProbes.isProbe(name) { folders.wrong(path: path, message: error.message) }
            return .failure(.notFound)
        case .success(let predicate):
            let combined = chain.map { outer in FilterPredicate { outer.test($0) && predicate.test($0) } } ?? predicate
            guard folders.admit(path: path) else { return .failure(.notFound) }
            let inode = inodes.inode(parent: parent, name: name)
            guard let known = folders.found(inode, parent: parent, name: name, path: path, predicate: combined, s.library) else {
                return .failure(.notFound)
            }
            return .success(node(known, inode))
        }
    }

    /// The node of a filter folder kept, built for the tree `s` shows.
    func node(_ inode: UInt64, _ s: TreeView) -> Node? {
        folders.folder(inode, s.library).map { node($0, inode) }
    }

    private func node(_ known: FilterFolders.Known, _ inode: UInt64) -> Node {
        let folder = known.folder ?? VirtualFolder(name: known.name, entries: .folders([]), emptyMtime: Timestamp(seconds: 0))
        return Node(inode: inode, parent: known.parent, name: known.name, kind: .folder(folder), mtime: folder.mtime)
    }

    /// A filter folder as the node table's folders are, for a listing.
    func folderRecord(_ inode: UInt64, _ s: TreeView) -> NodeTable.Folder? {
        guard let known = folders.folder(inode, s.library), let folder = known.folder else { return nil }
        return NodeTable.Folder(inode: inode, parent: known.parent, name: known.name, folder: folder, childInodes: [])
    }

    /// The names below `filter/` that were no expression, newest last (`.albumfs/errors`): each
    /// a path below the mount point and what is wrong with it.
    var errors: [(path: String, message: String)] { folders.errors }

    /// The tree shown is now `library`'s: the folders are built again when next asked for. Returns
    /// what the kernel is to drop: the folders' attributes and the entries it may hold of them.
    func libraryChanged(_ library: Library) -> TreeChanges {
        var changes = TreeChanges()
        changes.removedEntries = folders.libraryChanged(library)
        changes.changedInodes = folders.inodes
        return changes
    }
}

/// Names file managers and shells look up in every folder they open (`.hidden`, `.directory`,
/// `desktop.ini`, `autorun.inf`, `.Trash-0`, `Thumbs.db`): not expressions, and no one wrote them
/// as such, so their ENOENT goes without a line in `.albumfs/errors`.
enum FilterProbes {
    /// Whether `name` is a hidden name (a leading dot) or a file's name (a dot then one to four
    /// letters or digits at its end) with nothing of an expression in it (`=`, `<`, `>`, `(`, `)`, `,`).
    static func isProbe(_ name: String) -> Bool {
        if name.hasPrefix(".") { return true }
        if name.contains(where: { "=<>(),".contains($0) }) { return false }
        guard let dot = name.lastIndex(of: ".") else { return false }
        let ext = name[name.index(after: dot)...]
        return (1...4).contains(ext.count) && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}
