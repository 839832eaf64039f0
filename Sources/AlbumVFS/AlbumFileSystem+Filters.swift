import AlbumCore
import AlbumSystem

/// `filter/EXPRESSION/…/`: folders made on lookup from their names (docs/filters.md), kept in
/// `filters` and answered beside the node table's.
extension AlbumFileSystem {
    /// The node a lookup of `name` in `parent` finds below `filter/`, or nil when `parent` is
    /// neither `filter/` nor one of its folders (or the name is one the node table answers:
    /// `filter/README.txt`, `.`, `..`).
    func filterChild(of parent: UInt64, named name: String, _ s: TreeView) -> Result<Node, Errno>? {
        let chain: FilterPredicate?
        let parentPath: String
        if parent == s.table.filterInode {
            if name == "." || name == ".." || name == LibraryViews.filterReadmeName { return nil }
            (chain, parentPath) = (nil, LibraryViews.filter)
        } else if let known = filters.folder(parent, s.library), let folder = known.folder {
            if name == "." { return .success(filterNode(known, parent)) }
            if name == ".." { return s.table[known.parent].map { .success($0) } ?? filterNode(known.parent, s).map { .success($0) } }
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
            if !FilterProbes.isProbe(name) { filters.wrong(path: path, message: error.message) }
            return .failure(.notFound)
        case .success(let predicate):
            let combined = chain.map { outer in FilterPredicate { outer.test($0) && predicate.test($0) } } ?? predicate
            guard filters.admit(path: path) else { return .failure(.notFound) }
            let inode = inodes.inode(parent: parent, name: name)
            guard let known = filters.found(inode, parent: parent, name: name, path: path, predicate: combined, s.library) else {
                return .failure(.notFound)
            }
            return .success(filterNode(known, inode))
        }
    }

    /// The node of a filter folder kept, built for the tree `s` shows.
    func filterNode(_ inode: UInt64, _ s: TreeView) -> Node? {
        filters.folder(inode, s.library).map { filterNode($0, inode) }
    }

    private func filterNode(_ known: FilterFolders.Known, _ inode: UInt64) -> Node {
        let folder = known.folder ?? VirtualFolder(name: known.name, entries: .folders([]), emptyMtime: Timestamp(seconds: 0))
        return Node(inode: inode, parent: known.parent, name: known.name, kind: .folder(folder), mtime: folder.mtime)
    }

    /// A filter folder as the node table's folders are, for a listing.
    func filterFolderRecord(_ inode: UInt64, _ s: TreeView) -> NodeTable.Folder? {
        guard let known = filters.folder(inode, s.library), let folder = known.folder else { return nil }
        return NodeTable.Folder(inode: inode, parent: known.parent, name: known.name, folder: folder, childInodes: [])
    }

    /// The names below `filter/` that were no expression, newest last (`.albumfs/errors`): each
    /// a path below the mount point and what is wrong with it.
    public var filterErrors: [(path: String, message: String)] { filters.errors }
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
