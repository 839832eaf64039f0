import AlbumCore
import AlbumVFS

/// The coordinator is who follows the library for the filesystem (`LibraryFollowing`): the
/// trees it publishes and the changes it is told are counted in its `pending`, and a file found
/// changed at an open is read again with its folder.
extension LibraryCoordinator: LibraryFollowing {
    public var publishedTree: Int { pending.publishedTree }

    public func awaitTree(newerThan tree: Int, until deadline: Double) -> Bool {
        pending.awaitTree(newerThan: tree, until: deadline)
    }

    public func fileChanged(_ relativePath: String) {
        let folder = relativePath.folderBeforeLastSlash
        follower.changed(folder.isEmpty ? follower.root : follower.root + "/" + folder, [])
    }
}
