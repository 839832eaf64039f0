import AlbumCore
import AlbumSystem
import Glibc

/// `picked/`: the one writable folder. A symlink picks a photo, `rm` unpicks, `mv` renames.
/// The rules and their errno values are in docs/picks.md.
extension AlbumFileSystem {
    /// How many photos `picked/` holds.
    public var pickCount: Int { picks?.all.count ?? 0 }

    /// Whether the kernel may cache this directory's listing (not `picked/`, which changes).
    public func isStaticDirectory(_ inode: UInt64) -> Bool { inode != current.table.pickedInode }

    func pickedFolderAttributes(_ node: Node, _ s: TreeView) -> Attributes {
        let all = picks?.all ?? []
        let writable = picks?.storage.acceptsChanges ?? false
        return Attributes(inode: node.inode, kind: .directory, permissions: owner.mode(writable ? 0o755 : 0o555), linkCount: 2, size: 4096,
                          mtime: all.map(\.pickedAt).max() ?? node.mtime, uid: owner.uid, gid: owner.gid, cacheable: false)
    }

    func linkAttributes(_ pick: Pick, _ s: TreeView) -> Attributes {
        Attributes(inode: picks!.inode(of: pick.name), kind: .symlink, permissions: owner.mode(0o777),
                   linkCount: 1, size: Int64(target(of: pick, s).utf8.count), mtime: pick.pickedAt,
                   uid: owner.uid, gid: owner.gid, cacheable: false)
    }

    /// Where a pick points now: its photo's place in `by-date/` when the photo is in the library,
    /// else the last place it had (a dangling link, which comes back when the photo does).
    func target(of pick: Pick, _ s: TreeView) -> String {
        if let i = s.table.photo(source: pick.sourcePath), let path = s.table.canonicalPath(ofPhoto: i) { return "../" + path }
        return pick.target
    }

    /// A picked photo that moved (its folder renamed, moved to another folder of the library, or
    /// renamed) keeps its pick: for a pick whose path is no longer in the tree, the photo the scan
    /// found its file at (`renamed`: its folder renamed), else the one that has the identity
    /// (inode, size, mtime) its path had in the `previous` tree, whatever its name (a batch rename
    /// by date), then the photos of the same file name (of the size it had, where the previous
    /// tree knew it), are hashed, and the one holding the pick's bytes takes it. The candidates
    /// are chosen here, on the thread that swapped the tree; they are hashed on `pickSearch`,
    /// one search at a time, at most `PickSearch.budget` bytes a search (`searchPicks`), so that
    /// a library of big files of the same name never holds up the next tree.
    func followMovedPicks(_ s: TreeView, previous: TreeView,
                          renamed: [FileMove] = []) {
        guard let picks else { return }
        let all = picks.all
        let lost = all.filter { s.table.photo(source: $0.sourcePath) == nil }
        guard !lost.isEmpty else { return }
        let taken = Set(all.map(\.sourcePath))
        // What each lost pick's photo was, if it left with this swap (inode 0: numbers made up).
        let left = Dictionary(lost.compactMap { pick -> (String, FileIdentity)? in
            guard let i = previous.table.photo(source: pick.sourcePath) else { return nil }
            return (pick.sourcePath, previous.library.photos[i].identity)
        }, uniquingKeysWith: { first, _ in first })
        let wanted = Set(lost.map { String($0.sourcePath.nameAfterLastSlash) })
        let identities = Set(left.values.filter { $0.inode != 0 })
        var byName: [String: [Int]] = [:]
        var byIdentity: [FileIdentity: Int] = [:]
        for (i, photo) in s.library.photos.enumerated() where !taken.contains(photo.relativePath) {
            if wanted.contains(photo.fileName) { byName[photo.fileName, default: []].append(i) }
            if !identities.isEmpty, identities.contains(photo.identity) { byIdentity[photo.identity] = i }
        }
        let movedTo = renamed.isEmpty ? [:] : Dictionary(renamed.map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
        let searches = lost.compactMap { pick -> PickSearch? in
            let sameFile = (movedTo[pick.sourcePath].flatMap { s.table.photo(source: $0) }
                ?? left[pick.sourcePath].flatMap { $0.inode == 0 ? nil : byIdentity[$0] }).map { [$0] } ?? []
            let size = left[pick.sourcePath]?.size
            let sameName = (byName[String(pick.sourcePath.nameAfterLastSlash)] ?? []).filter { size == nil || s.library.photos[$0].identity.size == size }
            let candidates = (sameFile + sameName).map { s.library.photos[$0] }.filter { picks.mayHold(pick, $0) }
            return candidates.isEmpty ? nil : PickSearch(pick: pick, candidates: candidates)
        }
        guard !searches.isEmpty else { return }
        pickSearch.async { [self] in searchPicks(searches) }
    }

    /// Hashes the candidates of each lost pick, at most `PickSearch.budget` bytes in all (a file
    /// over what is left is passed over, and tried at the next swap); the photo holding a pick's
    /// bytes takes it, if it is still in the tree shown now and the pick still lost.
    func searchPicks(_ searches: [PickSearch]) {
        guard let picks else { return }
        var budget = PickSearch.budget
        var taken = Set(picks.all.map(\.sourcePath))
        for search in searches {
            for photo in search.candidates where !taken.contains(photo.relativePath) {
                guard photo.identity.size <= budget else { continue }
                budget -= photo.identity.size
                // (A photo that cannot be read now is tried again at the next swap.)
                guard let hash = try? picks.storage.contentHash(of: ScannedFile(photo), beneath: sourceRoot) else { continue }
                guard hash == search.pick.contentHash else {
                    picks.ruleOut(search.pick, photo)
                    continue
                }
                let s = current
                guard s.table.photo(source: search.pick.sourcePath) == nil, let i = s.table.photo(source: photo.relativePath),
                      s.library.photos[i].identity == photo.identity, let canonical = s.table.canonicalPath(ofPhoto: i) else { break }
                if case .success = picks.move(name: search.pick.name, to: photo.relativePath, target: "../" + canonical) {
                    taken.insert(photo.relativePath)
                }
                break
            }
        }
    }

    /// Waits until the searches for lost picks asked for so far have ended (tests).
    public func waitForPickSearches() { pickSearch.sync {} }

    /// The corresponding FUSE operation is `readlink`.
    public func readlink(_ inode: UInt64) -> Result<String, Errno> {
        let s = current
        guard let pick = picks?.pick(inode: inode) else { return .failure(.invalidArgument) }
        return .success(target(of: pick, s))
    }

    /// The corresponding FUSE operation is `symlink`: `ln -s TARGET picked/NAME` picks a photo.
    /// `caller`: the user asking (the kernel's request context); see `Owner.mayChangePicks`.
    public func symlink(parent: UInt64, name: String, target: String, caller: UInt32 = 0) -> Result<Attributes, Errno> {
        let tree = sources.following.publishedTree
        var s = current
        guard let picks, parent == s.table.pickedInode else { return .failure(.readOnlyFileSystem) }
        guard owner.mayChangePicks(caller) else { return .failure(.accessDenied) }
        if FileNameBytes.count(name) > EntryNames.maxBytes { return .failure(.nameTooLong) }
        if name.isEmpty || name == "." || name == ".." || name.contains("/") { return .failure(.invalidArgument) }
        if picks.pick(named: name) != nil { return .failure(.exists) }
        var photoIndex: Int
        switch resolvePhoto(target, s) {
        case .failure(let e): return .failure(e)
        case .success(let i): photoIndex = i
        }
        // Its file is hashed: for a photo whose folder was just renamed in SOURCE, the tree that
        // shows its new path is waited for, as `open` waits (the snapshot and the photo's number
        // in it change together).
        _ = sources.followingMoves(s.library.photos[photoIndex], tree: tree, lookFirst: true, shown: { () -> Photo? in
            let now = current
            guard case .success(let i) = resolvePhoto(target, now) else { return nil }
            (s, photoIndex) = (now, i)
            return now.library.photos[i]
        }) { _ in Result<Void, Errno>.success(()) }
        let photo = s.library.photos[photoIndex]
        guard let canonical = s.table.canonicalPath(ofPhoto: photoIndex) else { return .failure(.invalidArgument) }
        let root = sourceRoot
        var hashFailure: Errno?
        let added = picks.add(name: name, sourcePath: photo.relativePath, target: "../" + canonical, now: clock()) { () throws(Errno) -> String in
            do throws(Errno) { return try picks.storage.contentHash(of: ScannedFile(photo), beneath: root) } catch {
                hashFailure = error
                throw error
            }
        }
        if let hashFailure {
            if hashFailure == .notFound { sources.reportStale(photo) }
            sources.problems.log(sourceRoot + "/" + photo.relativePath, "albumfs: cannot pick \(photo.relativePath): its bytes cannot be read (\(hashFailure))")
        }
        return added.map { linkAttributes($0, s) }
    }

    /// The corresponding FUSE operation is `unlink`: `rm picked/NAME` unpicks.
    public func unlink(parent: UInt64, name: String, caller: UInt32 = 0) -> Result<Void, Errno> {
        let s = current
        guard let picks, parent == s.table.pickedInode else {
            // Nothing else may be removed; a missing name is still "not found".
            return lookup(parent: parent, name: name).flatMap { _ in .failure(.readOnlyFileSystem) }
        }
        guard owner.mayChangePicks(caller) else { return .failure(.accessDenied) }
        return picks.remove(name: name)
    }

    /// The corresponding FUSE operation is `rename`, within `picked/` only.
    /// `flags` are renameat2's: RENAME_NOREPLACE (1) is honoured, RENAME_EXCHANGE (2) refused.
    public func rename(parent: UInt64, name: String, newParent: UInt64, newName: String, flags: UInt32, caller: UInt32 = 0) -> Result<Void, Errno> {
        let s = current
        guard let picks, parent == s.table.pickedInode, newParent == s.table.pickedInode else { return .failure(.readOnlyFileSystem) }
        guard owner.mayChangePicks(caller) else { return .failure(.accessDenied) }
        if flags & 2 != 0 { return .failure(.invalidArgument) }
        if FileNameBytes.count(newName) > EntryNames.maxBytes { return .failure(.nameTooLong) }
        return picks.rename(name, to: newName, noReplace: flags & 1 != 0)
    }

    /// What `mknod`, `mkdir`, `create` and `link` answer: EPERM in `picked/` (only links belong
    /// there), EROFS everywhere else.
    public func creationError(in parent: UInt64) -> Errno {
        parent == current.table.pickedInode && picks != nil ? .permissionDenied : .readOnlyFileSystem
    }

    /// The photo a link target names: a path inside the mount (absolute, or relative to
    /// `picked/`) to a photo file in any view, a thumbnail, or another pick.
    func resolvePhoto(_ target: String, _ s: TreeView) -> Result<Int, Errno> {
        var path: [String]
        var rest: Substring
        if target.hasPrefix("/") {
            guard let mountpoint, target == mountpoint || target.hasPrefix(mountpoint + "/") else { return .failure(.invalidArgument) }
            path = []
            rest = target.dropFirst(mountpoint.count)
        } else {
            path = [LibraryViews.picked]
            rest = Substring(target)
        }
        for part in rest.split(separator: "/") {
            switch part {
            case ".": continue
            case "..":
                guard !path.isEmpty else { return .failure(.invalidArgument) }  // leaves the mount
                path.removeLast()
            default: path.append(String(part))
            }
        }
        var node = s.table[NodeTable.rootInode]!
        for (i, name) in path.enumerated() {
            if node.inode == s.table.pickedInode {
                // Through another pick: its photo, if the link is the last part.
                guard i == path.count - 1, let pick = picks?.pick(named: name),
                      let photo = s.table.photo(source: pick.sourcePath) else { return .failure(.invalidArgument) }
                return .success(photo)
            }
            if let found = filterChild(of: node.inode, named: name, s) {
                guard case .success(let next) = found else { return .failure(.invalidArgument) }
                node = next
                continue
            }
            guard let folder = s.table.folders[node.inode], let next = s.table.child(of: folder, named: name) else {
                return .failure(.invalidArgument)
            }
            node = next
        }
        guard case .file(let content) = node.kind, let photo = content.photo else { return .failure(.invalidArgument) }
        return .success(photo)
    }
}

/// A lost pick and the photos that may hold its bytes, in the order they are hashed.
struct PickSearch: Sendable {
    /// Bytes hashed at most by one search (a search per tree swap with lost picks).
    static let budget: Int64 = 4 << 30
    let pick: Pick
    let candidates: [Photo]
}
