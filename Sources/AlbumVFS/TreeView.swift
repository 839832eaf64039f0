import AlbumCore
import AlbumSystem

/// The published tree as the kernel sees it: names, attributes, listings and extended
/// attributes, answered from one immutable value with no I/O, no waits and no services.
///
/// `AlbumFileSystem` publishes a new one with each tree (`update`) and with each change of the
/// thumbnails not listed (`hiddenVersion`); a request reads the one published when it starts.
/// What lives beside the tree (`picked/`'s links, `filter/`'s folders, the texts of `.albumfs/`)
/// is answered by `AlbumFileSystem` around it.
public struct TreeView: Sendable {
    public let library: Library
    let table: NodeTable
    /// Photos (indices in `library.photos`) whose thumbnails are not listed: their content could
    /// not be made into one (`ThumbnailProvider.unrenderable`).
    public let hiddenThumbnails: Set<Int>
    /// Counts the hidden sets published during the mount: one more at each tree and each
    /// thumbnail that left its listing.
    public let hiddenVersion: Int
    let presentation: TreePresentation

    init(library: Library, table: NodeTable, hiddenThumbnails: Set<Int> = [], hiddenVersion: Int = 0, presentation: TreePresentation) {
        self.library = library
        self.table = table
        self.hiddenThumbnails = hiddenThumbnails
        self.hiddenVersion = hiddenVersion
        self.presentation = presentation
    }

    /// The same tree with another set of thumbnails not listed.
    func hiding(_ hidden: Set<Int>) -> TreeView {
        TreeView(library: library, table: table, hiddenThumbnails: hidden, hiddenVersion: hiddenVersion + 1, presentation: presentation)
    }

    /// A node of the tree by inode number, nil for one not in it or not listed (a hidden thumbnail).
    func node(_ inode: UInt64) -> Node? {
        guard let node = table[inode], !isHidden(node) else { return nil }
        return node
    }

    /// Whether `node` is a thumbnail that is not listed.
    func isHidden(_ node: Node) -> Bool {
        guard case .file(.thumbnail(let i, _)) = node.kind else { return false }
        return hiddenThumbnails.contains(i)
    }

    /// The corresponding FUSE operation is `lookup`: `name` in the folder `parent`.
    func lookup(parent: UInt64, name: String) -> Result<Node, Errno> {
        guard let dir = table[parent] else { return .failure(.notFound) }
        guard let folder = table.folders[parent] else { return .failure(.notDirectory) }
        if FileNameBytes.count(name) > EntryNames.maxBytes { return .failure(.nameTooLong) }
        if name == "." { return .success(dir) }
        if name == ".." { return table[dir.parent].map { .success($0) } ?? .failure(.notFound) }
        guard let node = table.child(of: folder, named: name), !isHidden(node) else { return .failure(.notFound) }
        return .success(node)
    }

    /// The corresponding FUSE operation is `getattr`, for a node of the tree. The texts of
    /// `.albumfs/` are made at each look, outside the tree: `textSize` gives their size.
    func attributes(_ node: Node, textSize: (FileContent) -> Int64 = { _ in 0 }) -> Attributes {
        let owner = presentation.owner
        switch node.kind {
        case .folder(let folder):
            return Attributes(inode: node.inode, kind: .directory, permissions: owner.mode(0o555),
                              linkCount: UInt32(2 + folder.subfolders.count), size: 4096, mtime: node.mtime,
                              uid: owner.uid, gid: owner.gid)
        case .file(let content):
            let size: Int64
            var links: UInt32 = 1
            var shown = (permissions: owner.mode(0o444), uid: owner.uid, gid: owner.gid)
            switch content {
            case .original(let i):
                let photo = library.photos[i]
                size = photo.isEmbeddedVideo ? photo.motionVideo!.length : photo.identity.size
                shown = owner.photoEntry(photo.access, thumbnail: false)
                links = table.viewCount(ofPhoto: i)
            case .thumbnail(let i, let box):
                size = presentation.thumbnailSizes[box] ?? 0
                shown = owner.photoEntry(library.photos[i].access, thumbnail: true)
            // Made fresh for each look; read with direct I/O so a grown text is never cut short.
            // Only the mounting user (and root) may read them: they name the library's files.
            case .status, .errors, .notShown:
                size = textSize(content)
                shown.permissions = owner.mode(0o400)
            case .filterReadme:
                size = Int64(FilterReadme.bytes.count)
            }
            // With desktop thumbnails, whole seconds: tumbler (Thunar) holds a thumbnail current only
            // when its `Thumb::MTime` equals the file's mtime to the microsecond, and GLib holds one
            // with a fraction there invalid (the specification's is whole seconds).
            let mtime = presentation.wholeSecondMtimes ? Timestamp(seconds: node.mtime.seconds) : node.mtime
            return Attributes(inode: node.inode, kind: .regular, permissions: shown.permissions, linkCount: links, size: size,
                              mtime: mtime, uid: shown.uid, gid: shown.gid)
        }
    }

    /// What `opendir` of `folder` lists: its entries, less the thumbnails not listed.
    func listing(_ folder: NodeTable.Folder) -> DirectoryListing {
        DirectoryListing(folder, in: table, hiding: hiddenPositions(folder))
    }

    /// The positions in a thumbnails folder not to list, in order.
    func hiddenPositions(_ folder: NodeTable.Folder) -> [Int] {
        guard !hiddenThumbnails.isEmpty, case .photos(let entries) = folder.folder.entries, entries.thumbnailBox != nil else { return [] }
        return hiddenThumbnails.compactMap { entries.position(named: entries.name(ofPhoto: $0)) }.sorted()
    }

    /// The corresponding FUSE operation is `listxattr`, for a node of the tree: a photo's
    /// `user.albumfs.*` attributes (docs/xattrs.md), none for anything else.
    func extendedAttributes(_ node: Node) -> [(String, String)] {
        guard case .file(let content) = node.kind, let photo = content.photo else { return [] }
        let partner = library.livePartners[Int32(photo)].flatMap { table.canonicalPath(ofPhoto: Int($0)) }
        let raw = library.rawPartners[Int32(photo)].flatMap { table.canonicalPath(ofPhoto: Int($0)) }
        let similar = table.place(ofPhoto: photo, slot: PhotoSlot.similar).flatMap { table.path(of: $0.parent) }
        return ExtendedAttributes.of(library.photos[photo], sourceRoot: presentation.sourceRoot, livePartner: partner, rawPartner: raw,
                                     similarGroup: similar)
    }

    /// The photo a file node (an original or a thumbnail) shows.
    func photo(inode: UInt64) -> Photo? {
        guard let node = table[inode], case .file(let content) = node.kind, let i = content.photo else { return nil }
        return library.photos[i]
    }
}

/// How the tree's nodes are shown, fixed for the mount (the options and the thumbnail sizes).
struct TreePresentation: Sendable {
    let owner: Owner
    /// SOURCE, named in `user.albumfs.source`.
    let sourceRoot: String
    /// The exact size of every thumbnail of each box (`ThumbnailProvider.size`).
    let thumbnailSizes: [ThumbnailBox: Int64]
    /// mtimes in whole seconds (`-o desktop_thumbnails`).
    let wholeSecondMtimes: Bool
}
