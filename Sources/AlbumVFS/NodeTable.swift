import AlbumCore

/// A node of the mounted tree: a virtual folder or file, with its inode number and parent.
struct Node: Sendable {
    enum Kind: Sendable {
        case folder(VirtualFolder, children: [UInt64])
        case file(FileContent)
    }

    let inode: UInt64
    let parent: UInt64
    let kind: Kind
    let mtime: Timestamp
}

/// Gives every virtual path an inode number that never changes while the mount lives, even
/// when the tree is rebuilt (a path seen again gets its old number back).
final class InodeAllocator: @unchecked Sendable {
    // Protected by `lock`.
    private var numbers: [String: UInt64] = ["": 1]
    private var next: UInt64 = 2
    private let lock = NSLockShim()

    func inode(for path: String) -> UInt64 {
        lock.withLock { number(path) }
    }

    /// Numbers many paths under one lock (a tree build asks for hundreds of thousands).
    func batch<T>(_ body: ((String) -> UInt64) -> T) -> T {
        lock.withLock { body(number) }
    }

    private func number(_ path: String) -> UInt64 {
        if let n = numbers[path] { return n }
        let n = next
        next += 1
        numbers[path] = n
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
    /// Each photo's path in `by-date/` (what a pick's link points to), by photo index.
    let canonicalPaths: [Int: String]
    /// Photo index by source path, to find a pick's photo again.
    let photoBySource: [String: Int]
    /// The `picked/` folder's inode, if the tree has one.
    let pickedInode: UInt64?

    init(library: Library, inodes allocator: InodeAllocator) {
        self = allocator.batch { inode in NodeTable(library: library, inode: inode) }
    }

    private init(library: Library, inode inodeFor: (String) -> UInt64) {
        var nodes = ContiguousArray<Node?>()
        nodes.reserveCapacity(library.photos.count * 4 + 16)
        var count = 0
        func store(_ node: Node) {
            let i = Int(node.inode)
            if i >= nodes.count { nodes.append(contentsOf: repeatElement(nil, count: i - nodes.count + 1)) }
            nodes[i] = node
            count += 1
        }
        var canonical: [Int: String] = [:]
        var pickedInode: UInt64?
        func add(_ folder: VirtualFolder, path: String, inode: UInt64, parent: UInt64) {
            var children: [UInt64] = []
            children.reserveCapacity(folder.children.count)
            for child in folder.children {
                let childPath = path.isEmpty ? child.name : path + "/" + child.name
                let childInode = inodeFor(childPath)
                children.append(childInode)
                switch child {
                case .folder(let sub):
                    if childPath == LibraryViews.picked { pickedInode = childInode }
                    add(sub, path: childPath, inode: childInode, parent: inode)
                case .file(_, let content, let mtime):
                    if case .original(let i) = content, childPath.hasPrefix(LibraryViews.byDate + "/") { canonical[i] = childPath }
                    store(Node(inode: childInode, parent: inode, kind: .file(content), mtime: mtime))
                }
            }
            store(Node(inode: inode, parent: parent, kind: .folder(folder, children: children), mtime: folder.mtime))
        }
        add(library.root, path: "", inode: Self.rootInode, parent: Self.rootInode)
        self.slots = nodes
        self.count = count
        self.canonicalPaths = canonical
        self.pickedInode = pickedInode
        var bySource: [String: Int] = [:]
        for (i, p) in library.photos.enumerated() { bySource[p.relativePath] = i }
        self.photoBySource = bySource
    }

    subscript(inode: UInt64) -> Node? { inode < UInt64(slots.count) ? slots[Int(inode)] : nil }
}
