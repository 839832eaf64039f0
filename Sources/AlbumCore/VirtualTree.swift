/// What a virtual file holds. Thumbnails and picks (later issues) add cases here.
public enum FileContent: Sendable, Hashable {
    /// The original photo, byte for byte: an index into `Library.photos`.
    case original(photo: Int)
    /// A thumbnail of the photo, exactly `box` in size, rendered on first read.
    case thumbnail(photo: Int, box: ThumbnailBox)
    /// `.albumfs/status`: the daemon's state, made when opened.
    case status
    /// `.albumfs/errors`: files that could not be read, made when opened.
    case errors

    /// The photo this file shows, if any.
    public var photo: Int? {
        switch self {
        case .original(let i), .thumbnail(let i, _): return i
        case .status, .errors: return nil
        }
    }
}

/// One entry of a virtual folder.
public enum VirtualNode: Sendable {
    case folder(VirtualFolder)
    case file(name: String, content: FileContent, mtime: Timestamp)

    public var name: String {
        switch self {
        case .folder(let f): return f.name
        case .file(let name, _, _): return name
        }
    }

    public var mtime: Timestamp {
        switch self {
        case .folder(let f): return f.mtime
        case .file(_, _, let t): return t
        }
    }
}

/// An immutable folder: children in readdir order (newest first), looked up by name.
public final class VirtualFolder: Sendable {
    public let name: String
    public let children: [VirtualNode]
    /// The newest child's time, so `ls -t` of a parent agrees with its readdir order.
    public let mtime: Timestamp
    private let indexByName: [String: Int]

    public init(name: String, children: [VirtualNode], emptyMtime: Timestamp) {
        self.name = name
        self.children = children
        self.mtime = children.map(\.mtime).max() ?? emptyMtime
        var index: [String: Int] = [:]
        index.reserveCapacity(children.count)
        for (i, child) in children.enumerated() { index[child.name] = i }
        self.indexByName = index
    }

    public func child(named name: String) -> VirtualNode? {
        indexByName[name].map { children[$0] }
    }

    /// The position of the child called `name` in `children`.
    public func index(named name: String) -> Int? { indexByName[name] }

    public var subfolderCount: Int {
        children.reduce(0) { n, c in if case .folder = c { return n + 1 } else { return n } }
    }
}

/// The library as albumfs shows it: the photos and the tree of views over them.
public struct Library: Sendable {
    public let photos: [Photo]
    public let root: VirtualFolder

    public init(photos: [Photo], root: VirtualFolder) {
        self.photos = photos
        self.root = root
    }
}
