import AlbumCore

/// A node of the mounted tree: a virtual folder or file, with its inode number and parent.
struct Node: Sendable {
    enum Kind: Sendable {
        case folder(VirtualFolder, children: [UInt64])
        case file(FileContent)
    }

    let inode: UInt64
    let parent: UInt64
    /// The entry's name in its parent (most are short enough to be stored inline).
    let name: String
    let kind: Kind
    let mtime: Timestamp
}

/// Gives every virtual path an inode number that never changes while the mount lives, even
/// when the tree is rebuilt (a path seen again gets its old number back).
///
/// Keyed by (parent inode, name) rather than by the whole path: the same identity, since a
/// parent's number is itself stable, without a heap-allocated path string per node.
final class InodeAllocator: @unchecked Sendable {
    struct Key: Hashable {
        let parent: UInt64
        let name: String
    }

    // Protected by `lock`.
    private var numbers: [Key: UInt64] = [:]
    private var next: UInt64 = 2
    private let lock = NSLockShim()

    func inode(parent: UInt64, name: String) -> UInt64 {
        lock.withLock { number(parent, name) }
    }

    /// Numbers many entries under one lock (a tree build asks for hundreds of thousands).
    func batch<T>(_ body: ((UInt64, String) -> UInt64) -> T) -> T {
        lock.withLock { body(number) }
    }

    private func number(_ parent: UInt64, _ name: String) -> UInt64 {
        let key = Key(parent: parent, name: name)
        if let n = numbers[key] { return n }
        let n = next
        next += 1
        numbers[key] = n
        return n
    }
}

/// An immutable snapshot of the mounted tree: inode → node.
struct NodeTable: Sendable {
    static let rootInode: UInt64 = 1
    /// Indexed by inode: inode numbers are dense (allocated from 1 up, never reused), so an array
    /// costs a third of a dictionary. Slots of paths no longer in the tree are nil.
    let slots: ContiguousArray<Node?>
    /// How many nodes the tree has.
    let count: Int
    /// Each photo's inode in `by-date/` (what a pick's link points to), by photo index (0: none).
    let canonicalInodes: ContiguousArray<UInt64>
    /// Photo index by source path, to find a pick's photo again.
    let photoBySource: [String: Int]
    /// The `picked/` folder's inode, if the tree has one.
    let pickedInode: UInt64?

    init(library: Library, inodes allocator: InodeAllocator) {
        self = allocator.batch { inode in NodeTable(library: library, inode: inode) }
    }

    private init(library: Library, inode inodeFor: (UInt64, String) -> UInt64) {
        var nodes = ContiguousArray<Node?>()
        nodes.reserveCapacity(library.photos.count * 4 + 16)
        var count = 0
        func store(_ node: Node) {
            let i = Int(node.inode)
            if i >= nodes.count { nodes.append(contentsOf: repeatElement(nil, count: i - nodes.count + 1)) }
            nodes[i] = node
            count += 1
        }
        var canonical = ContiguousArray<UInt64>(repeating: 0, count: library.photos.count)
        var pickedInode: UInt64?
        func add(_ folder: VirtualFolder, name: String, inode: UInt64, parent: UInt64, inByDate: Bool) {
            var children: [UInt64] = []
            children.reserveCapacity(folder.children.count)
            for child in folder.children {
                let childInode = inodeFor(inode, child.name)
                children.append(childInode)
                switch child {
                case .folder(let sub):
                    let top = inode == Self.rootInode
                    if top && child.name == LibraryViews.picked { pickedInode = childInode }
                    add(sub, name: child.name, inode: childInode, parent: inode,
                        inByDate: inByDate || (top && child.name == LibraryViews.byDate))
                case .file(let name, let content, let mtime):
                    if inByDate, case .original(let i) = content { canonical[i] = childInode }
                    store(Node(inode: childInode, parent: inode, name: name, kind: .file(content), mtime: mtime))
                }
            }
            store(Node(inode: inode, parent: parent, name: name, kind: .folder(folder, children: children), mtime: folder.mtime))
        }
        add(library.root, name: "", inode: Self.rootInode, parent: Self.rootInode, inByDate: false)
        self.slots = nodes
        self.count = count
        self.canonicalInodes = canonical
        self.pickedInode = pickedInode
        var bySource: [String: Int] = [:]
        for (i, p) in library.photos.enumerated() { bySource[p.relativePath] = i }
        self.photoBySource = bySource
    }

    subscript(inode: UInt64) -> Node? { inode < UInt64(slots.count) ? slots[Int(inode)] : nil }

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

    /// A photo's path in `by-date/`, or nil.
    func canonicalPath(ofPhoto i: Int) -> String? {
        guard i < canonicalInodes.count, canonicalInodes[i] != 0 else { return nil }
        return path(of: canonicalInodes[i])
    }
}
