import AlbumCore
import AlbumSystem
import Glibc

/// The picks shown in `picked/`: kept in memory in pick order, written through to storage
/// before any change is reported to the kernel.
final class PickRegistry: Sendable {
    let storage: PickStorage
    /// `-o max_picks`: nil is no limit.
    let limit: Int?
    private struct State {
        var picks: [Pick]
        var nameByInode: [UInt64: String] = [:]
        /// (pick, photo path, photo identity and ctime when read) already hashed for a lost pick and
        /// found to hold other bytes: a pick whose photo is gone for good does not make every
        /// publish hash again. (The ctime: a photo rewritten in place keeps its identity.)
        var ruledOut: Set<String> = []
    }
    // Protects the pick list (and the inode map and ruled-out set beside it); held only in
    // memory, never across a hash or a storage write, so lookups, opens and xattrs of the mount
    // never wait on I/O.
    private let state: Locked<State>
    /// The storage as the picks' changes reach it: each change takes this lock around its checks,
    /// its storage write and its update of `state` (never a reader), so concurrent `ln -s` calls
    /// are checked against the limit one at a time (exactly N succeed). Not held while a pick's
    /// file is hashed. (`storage` is the same object, for what needs no order: its hashes.)
    private let changing: Locked<any PickStorage>
    private let inodes: InodeAllocator
    /// `picked/`'s own inode: the parent of every pick.
    private let folderInode: UInt64

    init(storage: PickStorage, limit: Int?, inodes: InodeAllocator) throws(Errno) {
        self.storage = storage
        changing = Locked(storage)
        self.limit = limit
        self.inodes = inodes
        folderInode = inodes.inode(parent: NodeTable.rootInode, name: LibraryViews.picked)
        var s = State(picks: try storage.loadPicks())
        for p in s.picks { s.nameByInode[inodes.inode(parent: folderInode, name: p.name)] = p.name }
        state = Locked(s)
    }

    var all: [Pick] { state.withLock { $0.picks } }

    func pick(named name: String) -> Pick? { state.withLock { s in s.picks.first { $0.name.sameBytes(as: name) } } }

    func pick(inode: UInt64) -> Pick? {
        state.withLock { s in s.nameByInode[inode].flatMap { n in s.picks.first { $0.name.sameBytes(as: n) } } }
    }

    func inode(of name: String) -> UInt64 { inodes.inode(parent: folderInode, name: name) }

    /// Adds a pick after the checks that need the current list: name free, not a duplicate by
    /// source path or content, under the limit. The content hash is computed by `hash` only when
    /// the cheaper checks pass, with no lock held (a slow or huge file delays only this pick);
    /// the checks are made again after it. A hash that fails is ENOENT where the photo's file is
    /// gone or replaced, EIO otherwise.
    func add(name: String, sourcePath: String, target: String, now: Timestamp, hash: () throws(Errno) -> String) -> Result<Pick, Errno> {
        if let refused = changing.withLock({ _ in state.withLock { Self.refusal(name: name, sourcePath: sourcePath, limit: limit, in: $0.picks) } }) {
            return .failure(refused)
        }
        let contentHash: String
        do throws(Errno) { contentHash = try hash() } catch { return .failure(error == .notFound ? .notFound : .ioError) }
        return changing.withLock { storage -> Result<Pick, Errno> in
            let picks = state.withLock { $0.picks }
            if let refused = Self.refusal(name: name, sourcePath: sourcePath, limit: limit, in: picks) { return .failure(refused) }
            if picks.contains(where: { $0.contentHash == contentHash }) { return .failure(.exists) }
            let pick = Pick(name: name, sourcePath: sourcePath, contentHash: contentHash, pickedAt: now, target: target)
            do throws(Errno) { try storage.insert(pick) } catch { return .failure(error) }
            state.withLock { s in
                s.picks.append(pick)
                s.nameByInode[inode(of: name)] = name
            }
            return .success(pick)
        }
    }

    /// Why a pick cannot be added to `picks`, before its content is known.
    private static func refusal(name: String, sourcePath: String, limit: Int?, in picks: [Pick]) -> Errno? {
        if picks.contains(where: { $0.name.sameBytes(as: name) }) { return .exists }
        if picks.contains(where: { $0.sourcePath == sourcePath }) { return .exists }
        if let limit, picks.count >= limit { return Errno(rawValue: EDQUOT) }
        return nil
    }

    func remove(name: String) -> Result<Void, Errno> {
        changing.withLock { storage -> Result<Void, Errno> in
            guard state.withLock({ s in s.picks.contains { $0.name.sameBytes(as: name) } }) else { return .failure(.notFound) }
            do throws(Errno) { try storage.delete(name: name) } catch { return .failure(error) }
            state.withLock { s in s.picks.removeAll { $0.name.sameBytes(as: name) } }
            return .success(())
        }
    }

    /// Records that a pick's photo is now at `sourcePath` (found by its bytes).
    func move(name: String, to sourcePath: String, target: String) -> Result<Void, Errno> {
        changing.withLock { storage -> Result<Void, Errno> in
            guard state.withLock({ s in s.picks.contains { $0.name.sameBytes(as: name) } }) else { return .failure(.notFound) }
            do throws(Errno) { try storage.move(name: name, toSourcePath: sourcePath, target: target) } catch { return .failure(error) }
            state.withLock { s in
                guard let i = s.picks.firstIndex(where: { $0.name.sameBytes(as: name) }) else { return }
                s.picks[i].sourcePath = sourcePath
                s.picks[i].target = target
            }
            return .success(())
        }
    }

    /// Whether `photo` is still worth hashing for `pick` (not found to differ before, unchanged).
    func mayHold(_ pick: Pick, _ photo: Photo) -> Bool { state.withLock { !$0.ruledOut.contains(Self.key(pick, photo)) } }

    func ruleOut(_ pick: Pick, _ photo: Photo) { state.withLock { _ = $0.ruledOut.insert(Self.key(pick, photo)) } }

    private static func key(_ pick: Pick, _ photo: Photo) -> String {
        "\(pick.name)\u{0}\(photo.relativePath)\u{0}\(photo.identity.inode)|\(photo.identity.size)|\(photo.identity.mtime.seconds).\(photo.identity.mtime.nanoseconds)"
            + "|\(photo.changedWhenRead?.nanosecondsSinceEpoch ?? -1)"
    }

    /// `mv picked/a picked/b`: keeps the pick's place and time; replaces `b` unless told not to.
    func rename(_ from: String, to: String, noReplace: Bool) -> Result<Void, Errno> {
        changing.withLock { storage -> Result<Void, Errno> in
            let picks = state.withLock { $0.picks }
            guard picks.contains(where: { $0.name.sameBytes(as: from) }) else { return .failure(.notFound) }
            if from.sameBytes(as: to) { return .success(()) }
            if picks.contains(where: { $0.name.sameBytes(as: to) }) && noReplace { return .failure(.exists) }
            do throws(Errno) { try storage.rename(from, to: to) } catch { return .failure(error) }
            state.withLock { s in
                s.picks.removeAll { $0.name.sameBytes(as: to) }
                if let i = s.picks.firstIndex(where: { $0.name.sameBytes(as: from) }) { s.picks[i].name = to }
                s.nameByInode[inode(of: to)] = to
            }
            return .success(())
        }
    }
}

extension String {
    /// Whether two names are the same bytes: names are bytes to the kernel, and `==` on Strings
    /// takes a name composed (NFC) and decomposed (NFD) for one.
    func sameBytes(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}
