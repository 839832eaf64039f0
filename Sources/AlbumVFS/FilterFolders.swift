import AlbumCore
import AlbumSystem

/// The folders below `filter/` that lookups found: each one's expression chain and, once built
/// for the library shown now, its photos. Kept until the library changes (a folder asked for
/// again is built again for the new one), at most `maxFolders` of them; the one used longest
/// ago goes first. Also the last wrong names, for `.albumfs/errors`.
final class FilterFolders: Sendable {
    /// How many folders are kept; one past it drops the one used longest ago (the kernel asks
    /// again by name for one it still holds and is told ENOENT).
    static let maxFolders = 256
    /// How many entries the built folders hold at most in all (8 bytes each, and names where they
    /// differ from the photos'): past it the folders used longest ago drop what they hold, and
    /// are built again when next asked for.
    let maxEntries: Int

    /// How many filter folders (paths) a mount gives inode numbers to in its life: a number, once
    /// given, is kept (`InodeAllocator`), so without a bound any user of an `allow_other` mount
    /// could grow the daemon by looking up endless expressions (~100 bytes each).
    let maxNumbered: Int

    init(maxEntries: Int = 4_000_000, maxNumbered: Int = 100_000) {
        self.maxEntries = maxEntries
        self.maxNumbered = maxNumbered
    }
    /// How many wrong names `.albumfs/errors` shows (the newest).
    static let maxErrors = 100

    struct Known: Sendable {
        let parent: UInt64
        let name: String
        /// The path below the mount point (`filter/A/B`).
        let path: String
        let predicate: FilterPredicate
        var folder: VirtualFolder?
        /// The `generation` `folder` was built in.
        var builtIn = -1
        var lastUse: UInt64 = 0
    }

    private struct State {
        var known: [UInt64: Known] = [:]
        /// The root of the library shown now, and how many libraries were shown before it.
        var current: VirtualFolder?
        var generation = 0
        var scope: FilterScope?
        var errors: [(path: String, message: String)] = []
        var clock: UInt64 = 0
        /// The paths given a number (`admit`), at most `maxNumbered`.
        var numbered: Set<String> = []
    }

    // Protects every field of `State`; held while a folder is built (lookups of one new
    // expression wait for one build, not one each).
    private let state = Locked(State())

    /// How many entries of the folders built for the tree before a new tree names to the kernel
    /// to forget (`libraryChanged`): past it, an entry that left its folder stays reachable by
    /// name until the kernel's entry timeout.
    static let maxEntriesForgotten = 10_000

    /// Whether the folder at `path` may have an inode number: one that has one, or a new one
    /// while fewer than `maxNumbered` have; a refusal is said in `.albumfs/errors`.
    func admit(path: String) -> Bool {
        let admitted = state.withLock { s -> Bool in
            if s.numbered.contains(path) { return true }
            guard s.numbered.count < maxNumbered else { return false }
            s.numbered.insert(path)
            return true
        }
        if !admitted { wrong(path: path, message: "more than \(maxNumbered) filter folders were asked for since the mount; remount to ask for others") }
        return admitted
    }

    /// The tree shown is now `library`'s: every folder is built again when next asked for.
    /// Returns the entries the kernel may hold of the folders built before (at most
    /// `maxEntriesForgotten`), to be forgotten: a photo that left a folder is then not found in it.
    func libraryChanged(_ library: Library) -> [(parent: UInt64, name: String)] {
        let built = state.withLock { s -> [(UInt64, VirtualFolder)] in
            s.current = library.root
            s.generation += 1
            s.scope = nil
            let built = s.known.compactMap { inode, known in known.folder.map { (inode, $0) } }
            for inode in s.known.keys { s.known[inode]?.folder = nil }
            return built
        }
        var entries: [(parent: UInt64, name: String)] = []
        for (inode, folder) in built where entries.count + folder.count <= Self.maxEntriesForgotten {
            for k in 0..<folder.count { entries.append((inode, folder.child(at: k).name)) }
        }
        return entries
    }

    /// The folder of `inode` for `library`, built now if it was built for another one. (A
    /// lookup that began before a swap asks for the tree before: built for it, not kept.)
    func folder(_ inode: UInt64, _ library: Library) -> Known? {
        state.withLock { s in
            guard var known = s.known[inode] else { return nil }
            s.clock += 1
            known.lastUse = s.clock
            guard library.root === s.current else {
                known.folder = FilterScope(library).folder(named: known.name, known.predicate, emptyMtime: library.root.mtime)
                return known
            }
            if known.builtIn != s.generation || known.folder == nil {
                let scope = s.scope ?? FilterScope(library)
                s.scope = scope
                known.folder = scope.folder(named: known.name, known.predicate, emptyMtime: library.root.mtime)
                known.builtIn = s.generation
                s.known[inode] = known
                Self.trim(&s, keeping: inode, maxEntries: maxEntries)
            }
            s.known[inode] = known
            return known
        }
    }

    /// Notes a folder found by name (the chain's predicate already combined) and builds it.
    func found(_ inode: UInt64, parent: UInt64, name: String, path: String, predicate: FilterPredicate, _ library: Library) -> Known? {
        state.withLock { s in
            if s.known[inode] == nil {
                if s.known.count >= Self.maxFolders, let oldest = s.known.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                    s.known[oldest] = nil
                }
                s.known[inode] = Known(parent: parent, name: name, path: path, predicate: predicate)
            }
        }
        return folder(inode, library)
    }

    /// Drops the built entries of the folders used longest ago (but `keeping`'s) while all of
    /// them hold more than `maxEntries`.
    private static func trim(_ s: inout State, keeping: UInt64, maxEntries: Int) {
        var total = s.known.values.reduce(0) { $0 + ($1.folder?.count ?? 0) }
        guard total > maxEntries else { return }
        let built = s.known.filter { $0.key != keeping && $0.value.folder != nil }.sorted { $0.value.lastUse < $1.value.lastUse }
        for (inode, known) in built where total > maxEntries {
            total -= known.folder?.count ?? 0
            s.known[inode]?.folder = nil
        }
    }

    /// How many entries the built folders hold (the tests).
    var builtEntries: Int { state.withLock { $0.known.values.reduce(0) { $0 + ($1.folder?.count ?? 0) } } }

    /// The inodes of every folder kept: the kernel drops what it holds of them when the tree changes.
    var inodes: [UInt64] { state.withLock { Array($0.known.keys) } }

    /// Notes a wrong name (once per path; the newest `maxErrors`).
    func wrong(path: String, message: String) {
        state.withLock { s in
            guard !s.errors.contains(where: { $0.path == path }) else { return }
            if s.errors.count >= Self.maxErrors { s.errors.removeFirst() }
            s.errors.append((path, message))
        }
    }

    /// The wrong names noted, oldest first.
    var errors: [(path: String, message: String)] { state.withLock { $0.errors } }
}
