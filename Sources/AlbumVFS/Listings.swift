import AlbumCore
import AlbumSystem

/// Folder listings: `opendir` fixes what a listing shows, `readdir` and `readdirplus` page
/// through it by offset, `releasedir` lets it go.
final class Listings: Sendable {
    let names: Namespace
    /// The open listings, by handle.
    let directories = HandleTable<DirectoryListing>()
    /// Thumbnails written for desktop file managers when a folder of photos is listed (`-o desktop_thumbnails`).
    let desktopThumbnails: DesktopThumbnailing?
    let owner: Owner

    init(names: Namespace, desktopThumbnails: DesktopThumbnailing?, owner: Owner) {
        self.names = names
        self.desktopThumbnails = desktopThumbnails
        self.owner = owner
    }

    private var current: TreeView { names.tree.current }
    private var picks: PickRegistry? { names.picked.picks }

    /// Whether the kernel may cache this directory's listing (not `picked/`, which changes).
    func isStatic(_ inode: UInt64) -> Bool { inode != current.table.pickedInode }

    /// The corresponding FUSE operation is `opendir`. The listing is fixed at open, so a
    /// rebuild during `ls` never skips or repeats an entry.
    func openDirectory(_ inode: UInt64, caller: UInt32 = 0) -> Result<UInt64, Errno> {
        opened(inode, caller: caller).map(\.handle)
    }

    /// As `openDirectory`, answered through `answer`: at once, or, for a folder of photos opened
    /// by the mounting user (or root) with desktop thumbnails on, once the folder's `normal`
    /// thumbnails are written or the writer's wait bound has passed, from the writer's thread
    /// (no thread waits meanwhile). A file manager looks for them as soon as it has the listing.
    /// Another user's listings cost the mounting user's cache nothing, and wait for nothing.
    /// - Parameter caller: the user asking (the kernel's request context).
    func openDirectory(_ inode: UInt64, caller: UInt32, answer: @escaping @Sendable (Result<UInt64, Errno>) -> Void) {
        switch opened(inode, caller: caller) {
        case .success(let (handle, desktop)):
            guard let desktop, let desktopThumbnails else { return answer(.success(handle)) }
            desktopThumbnails.listed(folder: desktop.path, entries: desktop.entries) { answer(.success(handle)) }
        case .failure(let e): answer(.failure(e))
        }
    }

    /// After a scan, with desktop thumbnails on: the flat folders of photos (every folder of
    /// photos outside `by-date/` and `thumbnails/`) and `by-date/`'s day folders, newest first,
    /// handed to the writer to have their thumbnails before a file manager opens them.
    func fillDesktopThumbnailsAhead() {
        guard let desktopThumbnails else { return }
        let s = current
        guard let root = s.table.folders[NodeTable.rootInode] else { return }
        var days: [MountFolder] = [], flat: [MountFolder] = []
        for top in root.childInodes {
            guard let name = s.table.folders[top]?.name, name != "thumbnails" else { continue }
            var stack = [top]
            while let inode = stack.popLast(), let folder = s.table.folders[inode] {
                if case .photos(let entries) = folder.folder.entries, entries.thumbnailBox == nil, let path = s.table.path(of: inode) {
                    if name == "by-date" { days.append(MountFolder(path: path, entries: entries)) } else { flat.append(MountFolder(path: path, entries: entries)) }
                }
                stack += folder.childInodes.filter { s.table.folders[$0] != nil }
            }
        }
        // (`by-date/YYYY/YYYY-MM/YYYY-MM-DD`: the paths sort as the days do.)
        desktopThumbnails.fillAhead(FillAheadPlan(flat: flat.sorted { $0.path < $1.path }, days: days.sorted { $0.path > $1.path }))
    }

    /// A new listing's handle, and the folder whose desktop thumbnails are to be written for it.
    private func opened(_ inode: UInt64, caller: UInt32) -> Result<(handle: UInt64, desktop: MountFolder?), Errno> {
        if picks?.pick(inode: inode) != nil { return .failure(.notDirectory) }
        let s = current
        guard let folder = s.table.folders[inode] ?? names.filters.folderRecord(inode, s) else {
            return .failure(s.table[inode] != nil ? .notDirectory : .notFound)
        }
        var listing = s.listing(folder)
        if inode == s.table.pickedInode, let picks {
            for pick in picks.all { listing.head.append((picks.inode(of: pick.name), pick.name)) }
        }
        if case .photos(let entries) = folder.folder.entries, entries.thumbnailBox != nil { names.tree.thumbnails?.warmUp() }
        var desktop: MountFolder?
        if desktopThumbnails != nil, owner.isPrivileged(caller), case .photos(let entries) = folder.folder.entries, entries.thumbnailBox == nil,
           let path = s.table.path(of: inode) {
            desktop = MountFolder(path: path, entries: entries)
        }
        return .success((directories.insert(listing), desktop))
    }

    /// The corresponding FUSE operation is `readdirplus`. Offsets: 0 is the start, entry k
    /// (0 `.`, 1 `..`, then children newest first) carries next offset k + 1.
    func readDirectory(_ handle: UInt64, from offset: Int, limit: Int = .max) -> Result<[DirectoryEntry], Errno> {
        let s = current
        return listed(handle, from: offset, limit: limit) { entry, next in
            if let node = s.table.node(entry.inode, named: entry.name) ?? names.filters.node(entry.inode, s) {
                return DirectoryEntry(name: entry.name, attributes: names.attributes(node, s), nextOffset: next)
            }
            return names.picked.linkAttributes(entry.inode, s).map { DirectoryEntry(name: entry.name, attributes: $0, nextOffset: next) }
        }
    }

    /// The corresponding FUSE operation is `readdir`: as `readDirectory`, names, inode numbers
    /// and types only, without each entry's attributes made and dropped.
    func readDirectoryNames(_ handle: UInt64, from offset: Int, limit: Int = .max) -> Result<[DirectoryName], Errno> {
        let s = current
        return listed(handle, from: offset, limit: limit) { entry, next in
            let kind = s.table.kind(of: entry.inode) ?? (picks?.pick(inode: entry.inode) != nil ? .symlink
                : names.filters.node(entry.inode, s) != nil ? .directory : nil)
            return kind.map { DirectoryName(name: entry.name, inode: entry.inode, kind: $0, nextOffset: next) }
        }
    }

    /// The entries of an open listing from `offset` on, at most `limit`, as `make` gives them
    /// (nil: an entry gone from the tree since the listing was opened, left out).
    private func listed<T>(_ handle: UInt64, from offset: Int, limit: Int,
                           _ make: ((inode: UInt64, name: String), _ next: Int) -> T?) -> Result<[T], Errno> {
        guard let listing = directories.get(handle) else { return .failure(.badFileDescriptor) }
        var out: [T] = []
        var k = max(0, offset)
        while k < listing.count && out.count < limit {
            if let entry = make(listing[k], k + 1) { out.append(entry) }
            k += 1
        }
        return .success(out)
    }

    /// The corresponding FUSE operation is `releasedir`.
    func releaseDirectory(_ handle: UInt64) { directories.remove(handle) }
}
