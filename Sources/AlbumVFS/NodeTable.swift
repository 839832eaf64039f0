import AlbumCore

/// A node of the mounted tree, made on demand from a `NodeTable`.
struct Node: Sendable {
    enum Kind: Sendable {
        case folder(VirtualFolder)
        case file(FileContent)
    }

    let inode: UInt64
    let parent: UInt64
    /// The entry's name in its parent.
    let name: String
    let kind: Kind
    let mtime: Timestamp
}

/// An immutable snapshot of the mounted tree, answering inode → node.
///
/// Folders and `.albumfs` files are stored (a few thousand at most); photo entries are not: an
/// inode gives the photo and the slot, the slot gives the folder, the folder gives the name.
/// That costs about 4 bytes per photo per slot instead of a node per entry.
struct NodeTable: Sendable {
    static let rootInode: UInt64 = 1

    struct Folder: Sendable {
        let inode: UInt64
        let parent: UInt64
        let name: String
        let folder: VirtualFolder
        /// Inodes of the entries of a folder of folders or of control files (photo folders: empty).
        let childInodes: ContiguousArray<UInt64>
    }

    struct ControlFile: Sendable {
        let inode: UInt64
        let parent: UInt64
        let name: String
        let content: FileContent
        let mtime: Timestamp
    }

    let photos: [Photo]
    private(set) var folders: [UInt64: Folder] = [:]
    private(set) var controlFiles: [UInt64: ControlFile] = [:]
    /// Folders of photos; `folderOfPhoto[slot][photo]` indexes this (`UInt32.max`: none).
    private var photoFolders: [Folder] = []
    /// Each photo folder's inode and its names that are not the photos' own (nil: none), beside
    /// `photoFolders`: `TreeChanges` compares a million photos' places without making names.
    private var photoFolderPlaces: [(inode: UInt64, renamed: [Int32: String]?)] = []
    private var folderOfPhoto: [SlotFolders] = Array(repeating: SlotFolders(), count: PhotoSlot.count)
    /// Photo index → its number, and number → photo index (-1: not a photo now).
    private(set) var numberOfPhoto: ContiguousArray<UInt32> = []
    private var photoOfNumber: ContiguousArray<Int32> = []
    /// How many nodes the tree has.
    private(set) var count = 0
    /// The `picked/` folder's inode, if the tree has one.
    private(set) var pickedInode: UInt64?
    /// The `filter/` folder's inode, if the tree has one: its folders are found on lookup (`FilterFolders`).
    private(set) var filterInode: UInt64?
    private let inodes: InodeAllocator

    /// - Parameter previous: the tree before, whose photos keep their numbers without a lookup
    ///   by path: at the same positions, or among the few that moved.
    init(library: Library, inodes allocator: InodeAllocator, renamed: [FileMove] = [], previous: NodeTable? = nil) {
        photos = library.photos
        inodes = allocator
        let moved = previous.flatMap { Self.numbersMoved($0, library.photos) }
        let same = previous.map { before in
            let files = (from: library.filePhotoCount, to: MotionPhotos.fileCount(before.photos))
            return { (k: Int) -> UInt32? in
                let i = MotionPhotos.counterpart(of: k, files: files)
                return i < before.photos.count && before.photos[i].relativePath == library.photos[k].relativePath
                    ? before.numberOfPhoto[i] : moved?[library.photos[k].relativePath]
            }
        }
        let (_, numbers) = allocator.batch(photoCount: library.photos.count, renamed: renamed, same: same, complete: moved != nil) { named, photo in
            numberOfPhoto.reserveCapacity(library.photos.count)
            for p in library.photos { numberOfPhoto.append(photo(p.relativePath)) }
            add(library.root, inode: Self.rootInode, parent: Self.rootInode, name: "", named)
        }
        photoOfNumber = ContiguousArray(repeating: -1, count: numbers)
        for (i, n) in numberOfPhoto.enumerated() { photoOfNumber[Int(n)] = Int32(i) }
    }

    /// The numbers of the tree before's photos not at the same position now (a photo removed
    /// leaves the last in its place; a file added or removed moves the motion photos' videos
    /// after the files, each to its same place among them: `MotionPhotos.counterpart`), by path;
    /// nil when they are more than a few (a map of them would cost what a lookup of every path costs).
    static func numbersMoved(_ before: NodeTable, _ photos: [Photo]) -> [String: UInt32]? {
        var moved: [String: UInt32] = [:]
        let files = (from: MotionPhotos.fileCount(before.photos), to: MotionPhotos.fileCount(photos))
        for k in before.photos.indices {
            let j = MotionPhotos.counterpart(of: k, files: files)
            guard j >= photos.count || before.photos[k].relativePath != photos[j].relativePath else { continue }
            moved[before.photos[k].relativePath] = before.numberOfPhoto[k]
            if moved.count > 4096 { return nil }
        }
        return moved
    }

    private mutating func add(_ folder: VirtualFolder, inode: UInt64, parent: UInt64, name: String, _ named: (UInt64, String) -> UInt64) {
        var childInodes = ContiguousArray<UInt64>()
        switch folder.entries {
        case .folders(let subfolders):
            for sub in subfolders {
                let child = named(inode, sub.name)
                childInodes.append(child)
                if inode == Self.rootInode && sub.name == LibraryViews.picked { pickedInode = child }
                if inode == Self.rootInode && sub.name == LibraryViews.filter { filterInode = child }
                add(sub, inode: child, parent: inode, name: sub.name, named)
            }
        case .files(let files):
            for file in files {
                let child = named(inode, file.name)
                childInodes.append(child)
                controlFiles[child] = ControlFile(inode: child, parent: inode, name: file.name, content: file.content, mtime: folder.mtime)
                count += 1
            }
        case .photos(let entries):
            let index = UInt32(photoFolders.count)
            let sparse = PhotoSlot.isSparse(entries.slot)
            for member in entries.members { folderOfPhoto[entries.slot].set(Int(member), index, photoCount: photos.count, sparse: sparse) }
            count += entries.count
        }
        let node = Folder(inode: inode, parent: parent, name: name, folder: folder, childInodes: childInodes)
        if case .photos(let entries) = folder.entries {
            photoFolders.append(node)
            photoFolderPlaces.append((inode, entries.renamed.isEmpty ? nil : entries.renamed))
        }
        folders[inode] = node
        count += 1
    }

    subscript(inode: UInt64) -> Node? {
        if let (photo, slot) = photoEntry(inode) {
            let folder = photoFolders[Int(folderOfPhoto[slot][photo])]
            guard case .photos(let entries) = folder.folder.entries else { return nil }
            return node(ofPhoto: photo, in: entries, of: folder)
        }
        if let f = folders[inode] { return Node(inode: inode, parent: f.parent, name: f.name, kind: .folder(f.folder), mtime: f.folder.mtime) }
        if let c = controlFiles[inode] { return Node(inode: inode, parent: c.parent, name: c.name, kind: .file(c.content), mtime: c.mtime) }
        return nil
    }

    /// The node of `inode` where its name is known already (a listing's entry): a photo's name
    /// is not made again (a listing of a million photos made each twice).
    func node(_ inode: UInt64, named name: String) -> Node? {
        guard let (photo, slot) = photoEntry(inode) else { return self[inode] }
        let folder = photoFolders[Int(folderOfPhoto[slot][photo])]
        guard case .photos(let entries) = folder.folder.entries else { return nil }
        return Node(inode: inode, parent: folder.inode, name: name, kind: .file(entries.content(ofPhoto: photo)),
                    mtime: photos[photo].captureInstant)
    }

    /// What kind of node an inode stands for, without making the node: a listing's types
    /// (`readdir` sends each entry's inode number and type only).
    func kind(of inode: UInt64) -> Attributes.Kind? {
        if photoEntry(inode) != nil { return .regular }
        if folders[inode] != nil { return .directory }
        return controlFiles[inode] != nil ? .regular : nil
    }

    /// The photo and slot an inode stands for, if it is a photo entry of this tree.
    private func photoEntry(_ inode: UInt64) -> (photo: Int, slot: Int)? {
        guard let (number, slot) = InodeAllocator.split(inode), number < photoOfNumber.count else { return nil }
        let photo = Int(photoOfNumber[number])
        guard photo >= 0 else { return nil }
        // An original's inode is its by-date slot's; with `by-date/` not shown (`-o views=`) its
        // node is its entry in another view of originals.
        let candidates = slot == PhotoSlot.byDate ? PhotoSlot.originals : [slot]
        guard let found = candidates.first(where: { !folderOfPhoto[$0].isEmpty && folderOfPhoto[$0][photo] != UInt32.max }) else { return nil }
        return (photo, found)
    }

    /// The inode of a photo's entry in a slot.
    func inode(ofPhoto i: Int, slot: Int) -> UInt64 { InodeAllocator.inode(number: numberOfPhoto[i], slot: slot) }

    /// Where a photo's entry in a slot is: its folder's inode and its name.
    func place(ofPhoto i: Int, slot: Int) -> (parent: UInt64, name: String)? {
        guard !folderOfPhoto[slot].isEmpty, folderOfPhoto[slot][i] != UInt32.max else { return nil }
        let folder = photoFolders[Int(folderOfPhoto[slot][i])]
        guard case .photos(let entries) = folder.folder.entries else { return nil }
        return (folder.inode, entries.name(ofPhoto: i))
    }

    /// Where a photo's entry in a slot is, without its name: its folder's inode, and the name it
    /// has there when that is not the photo's own (nil: its own). nil when it has no entry there.
    func placeUnnamed(ofPhoto i: Int, slot: Int) -> (parent: UInt64, renamed: String?)? {
        guard !folderOfPhoto[slot].isEmpty, folderOfPhoto[slot][i] != UInt32.max else { return nil }
        let place = photoFolderPlaces[Int(folderOfPhoto[slot][i])]
        return (place.inode, place.renamed?[Int32(i)])
    }

    /// The photo index a number stands for now.
    func photo(number: UInt32) -> Int? {
        Int(number) < photoOfNumber.count && photoOfNumber[Int(number)] >= 0 ? Int(photoOfNumber[Int(number)]) : nil
    }

    /// The photo whose original is at `path` (below the source root), if it is in this tree.
    /// (A tree before a rename holds a photo under its old path, whose number is the new path's now.)
    func photo(source path: String) -> Int? {
        inodes.photoNumber(source: path).flatMap(photo(number:)).flatMap { photos[$0].relativePath == path ? $0 : nil }
    }

    /// The entry called `name` in a folder, found once and answered from what the search found
    /// (a photo's node is not looked up again by its inode, nor its name made again).
    func child(of folder: Folder, named name: String) -> Node? {
        guard let position = folder.folder.index(named: name) else { return nil }
        guard case .photos(let entries) = folder.folder.entries else { return self[folder.childInodes[position]] }
        return node(ofPhoto: entries.photo(at: position), in: entries, of: folder)
    }

    /// A photo's entry in a photo folder.
    private func node(ofPhoto photo: Int, in entries: PhotoEntries, of folder: Folder) -> Node {
        Node(inode: inode(ofPhoto: photo, slot: entries.slot), parent: folder.inode, name: entries.name(ofPhoto: photo),
             kind: .file(entries.content(ofPhoto: photo)), mtime: photos[photo].captureInstant)
    }

    /// The entry at a readdir position of a folder: its inode and name.
    func child(of folder: Folder, at position: Int) -> (inode: UInt64, name: String) {
        if case .photos(let entries) = folder.folder.entries {
            let photo = entries.photo(at: position)
            return (inode(ofPhoto: photo, slot: entries.slot), entries.name(ofPhoto: photo))
        }
        return (folder.childInodes[position], folder.folder.child(at: position).name)
    }

    /// A node's path from the root (`by-date/2024/…/IMG_1.JPG`), built from the parent chain.
    func path(of inode: UInt64) -> String? {
        var parts: [String] = []
        var current = inode
        while current != Self.rootInode {
            guard let node = self[current] else { return nil }
            parts.append(node.name)
            current = node.parent
        }
        return parts.reversed().joined(separator: "/")
    }

    /// How many views list a photo's original (its `st_nlink`): `by-date/`, its flat view and `by-camera/`.
    func viewCount(ofPhoto i: Int) -> UInt32 {
        func listed(_ slot: Int) -> UInt32 { !folderOfPhoto[slot].isEmpty && folderOfPhoto[slot][i] != UInt32.max ? 1 : 0 }
        return PhotoSlot.linkCounted.reduce(0) { $0 + listed($1) }
    }

    /// A photo's path in `by-date/` (or, with that view not shown, in the first view that lists
    /// its original), or nil.
    func canonicalPath(ofPhoto i: Int) -> String? {
        guard i < numberOfPhoto.count, PhotoSlot.originals.contains(where: { place(ofPhoto: i, slot: $0) != nil }) else { return nil }
        return path(of: inode(ofPhoto: i, slot: PhotoSlot.byDate))
    }

    /// Slots that hold folders in this tree.
    var usedSlots: [Int] { (0..<PhotoSlot.count).filter { !folderOfPhoto[$0].isEmpty } }
}

/// Which photo folder lists each photo in one slot (`UInt32.max`: none). Dense, 4 bytes a photo
/// of the library, for the slots most photos are in; a map for a kind's slot while it holds few
/// photos (a kind is a small part of most libraries, and eleven dense arrays would cost 44 bytes
/// a photo), dense once it holds an eighth of them.
struct SlotFolders {
    private var dense = ContiguousArray<UInt32>()
    private var sparse: [Int32: UInt32] = [:]

    var isEmpty: Bool { dense.isEmpty && sparse.isEmpty }

    subscript(photo: Int) -> UInt32 { dense.isEmpty ? sparse[Int32(photo)] ?? .max : dense[photo] }

    mutating func set(_ photo: Int, _ folder: UInt32, photoCount: Int, sparse mayBeSparse: Bool) {
        if dense.isEmpty && (!mayBeSparse || sparse.count >= photoCount / 8) {
            dense = ContiguousArray(repeating: .max, count: photoCount)
            for (p, f) in sparse { dense[Int(p)] = f }
            sparse = [:]
        }
        if dense.isEmpty { sparse[Int32(photo)] = folder } else { dense[photo] = folder }
    }
}
