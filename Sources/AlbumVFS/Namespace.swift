import AlbumCore
import AlbumSystem
import Glibc

/// Names, attributes and extended attributes as the kernel asks for them (`lookup`, `getattr`,
/// `access`, `getxattr`, `listxattr`): the published tree's (`TreeView`), with what lives beside
/// it answered around it: `picked/`'s links and its own attributes (`PickedFolder`), the folders
/// below `filter/` (`FilterNodes`), the sizes of `.albumfs/`'s texts (`ControlFiles`). Each
/// request reads the tree published when it starts.
final class Namespace: Sendable {
    let tree: PublishedTree
    let filters: FilterNodes
    let picked: PickedFolder
    let controls: ControlFiles

    init(tree: PublishedTree, filters: FilterNodes, picked: PickedFolder, controls: ControlFiles) {
        self.tree = tree
        self.filters = filters
        self.picked = picked
        self.controls = controls
    }

    /// The corresponding FUSE operation is `lookup`.
    func lookup(parent: UInt64, name: String) -> Result<Attributes, Errno> {
        let s = tree.current
        if let found = filters.child(of: parent, named: name, s) { return found.map { attributes($0, s) } }
        if let link = picked.lookup(parent: parent, name: name, s) { return link }
        return s.lookup(parent: parent, name: name).map { attributes($0, s) }
    }

    /// The corresponding FUSE operation is `getattr`.
    func attributes(of inode: UInt64) -> Result<Attributes, Errno> {
        let s = tree.current
        if let node = s.table[inode] { return s.isHidden(node) ? .failure(.notFound) : .success(attributes(node, s)) }
        if let node = filters.node(inode, s) { return .success(attributes(node, s)) }
        if let link = picked.linkAttributes(inode, s) { return .success(link) }
        return .failure(.notFound)
    }

    /// A node's attributes: `picked/`'s from the picks, `.albumfs/` texts' sizes made now, the
    /// rest from the tree.
    func attributes(_ node: Node, _ s: TreeView) -> Attributes {
        if node.inode == s.table.pickedInode { return picked.folderAttributes(node) }
        return s.attributes(node, textSize: controls.size)
    }

    /// A node of the tree `s` or of a filter folder, by inode (nil for a link, or none).
    func node(_ inode: UInt64, _ s: TreeView) -> Node? { s.table[inode] ?? filters.node(inode, s) }

    /// The corresponding FUSE operation is `access`: what each node's permission bits say.
    /// Writing is refused with EROFS (a read-only tree, as `open` for writing answers) except
    /// where the bits allow it (`picked/`); executing a photo is EACCES.
    func checkAccess(_ inode: UInt64, mask: Int32) -> Result<Void, Errno> {
        attributes(of: inode).flatMap { a in
            // (A photo may show its source's write bits; only `picked/` takes changes.)
            let writable = inode == tree.current.table.pickedInode && a.permissions & 0o222 != 0
            if mask & W_OK != 0 && !writable { return .failure(.readOnlyFileSystem) }
            if mask & X_OK != 0 && a.permissions & 0o111 == 0 { return .failure(.accessDenied) }
            return .success(())
        }
    }

    /// The corresponding FUSE operation is `getxattr`.
    ///
    /// Only the `user.` namespace exists here. Any other (`system.posix_acl_access`,
    /// `security.selinux`, `trusted.*`) answers EOPNOTSUPP, as ext4 mounted `noacl` does:
    /// `ls -l` asks both of those for every entry, and remembers an EOPNOTSUPP for the whole
    /// device (coreutils' `file_has_acl_cache` / `getfilecon_cache`) where an ENODATA costs two
    /// FUSE round trips per file (docs/xattrs.md).
    func extendedAttribute(_ inode: UInt64, name: String) -> Result<[UInt8], Errno> {
        switch extendedAttributes(inode) {
        case .failure(let e): return .failure(e)
        case .success where !name.hasPrefix(ExtendedAttributes.namespace): return .failure(.notSupported)
        case .success(let list):
            guard let value = list.first(where: { $0.0 == name })?.1 else { return .failure(.noAttribute) }
            // (Values hold paths and names: their bytes, as the files have them.)
            return .success(FileNameBytes.bytes(value))
        }
    }

    /// The corresponding FUSE operation is `listxattr`.
    func extendedAttributeNames(_ inode: UInt64) -> Result<[String], Errno> {
        extendedAttributes(inode).map { $0.map(\.0) }
    }

    private func extendedAttributes(_ inode: UInt64) -> Result<[(String, String)], Errno> {
        let s = tree.current
        if picked.isLink(inode) { return .success([]) }
        guard let node = node(inode, s) else { return .failure(.notFound) }
        return .success(s.extendedAttributes(node))
    }
}
