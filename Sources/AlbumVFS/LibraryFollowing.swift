import AlbumCore

/// Whoever follows the library (AlbumLive's `LibraryCoordinator`): where a request whose photo's
/// file is not at its path waits for the tree that shows where it went, and who is told of a
/// file found not to be the one scanned. The filesystem knows nothing else of it.
public protocol LibraryFollowing: AnyObject, Sendable {
    /// The number of the tree published now (read it before the tree itself: a tree published in
    /// between only makes a wait end at once).
    var publishedTree: Int { get }
    /// Waits until a tree newer than `tree` is published (true), or until nothing seen in SOURCE
    /// is pending, or until the monotonic clock reads `deadline` (false).
    func awaitTree(newerThan tree: Int, until deadline: Double) -> Bool
    /// A photo's file (its path below SOURCE) is not the file scanned (gone, replaced,
    /// rewritten): its folder is to be read again.
    func fileChanged(_ relativePath: String)
}

/// With nobody following the library (a test of the filesystem alone): no tree is waited for,
/// and a changed file waits for the next scan.
final class NotFollowed: LibraryFollowing {
    static let shared = NotFollowed()
    var publishedTree: Int { 0 }
    func awaitTree(newerThan tree: Int, until deadline: Double) -> Bool { false }
    func fileChanged(_ relativePath: String) {}
}

/// The follower the filesystem was given, held weakly: the follower holds the filesystem.
struct FollowerReference: Sendable {
    weak var follower: (any LibraryFollowing)?
}
