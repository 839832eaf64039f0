import AlbumCore
import AlbumSystem

/// Gives every virtual path an inode number that never changes while the mount lives, even
/// when the tree is rebuilt.
///
/// Folders, `.albumfs` files and picks get a number keyed by (parent inode, name). A photo gets
/// one number keyed by its source path, and each of its entries (`PhotoSlot`: by-date, flat
/// view, thumbnails) the inode `1 + number * PhotoSlot.count + slot` (the flat view's entry
/// sharing the by-date one's: one original, one inode). So no table holds an entry
/// per file, and a photo that moves (a new date, a new name after a collision) keeps its inodes,
/// as a renamed file does; `TreeChanges` tells the kernel to drop the old names. A photo whose
/// source folder was renamed takes its old path's number along (`renamed`): the same file, the
/// same inodes, nothing for the kernel to forget.
///
/// A source path gone from the trees is forgotten (the photo deleted, renamed or moved): kept,
/// every rename of a big library's folder would grow the daemon for good. Its
/// number is never handed out again, since the kernel may still hold inodes made from it (they
/// answer ENOENT, as a removed photo's do); the path, if it comes back, gets a new one.
final class InodeAllocator: Sendable {
    struct Key: Hashable {
        let parent: UInt64
        let name: String

        // Names are bytes: "Café" composed and decomposed are two names (String's `==` makes them one).
        static func == (a: Key, b: Key) -> Bool { a.parent == b.parent && a.name.utf8.elementsEqual(b.name.utf8) }

        func hash(into hasher: inout Hasher) {
            hasher.combine(parent)
            name.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
                ?? name.utf8.forEach { hasher.combine($0) }
        }
    }

    /// Photo paths in a tree's order, `paths[i]` numbered `numbers[i]`.
    typealias ByPosition = (paths: [String], numbers: ContiguousArray<UInt32>)

    /// The numbers given and the next one, reached only under this lock.
    private let numbering = Locked(Numbering())

    /// The inode of a photo's entry in `slot` (its original shares one between its views:
    /// `PhotoSlot.inodeSlot`).
    static func inode(number: UInt32, slot: Int) -> UInt64 {
        1 + UInt64(number) * UInt64(PhotoSlot.count) + UInt64(PhotoSlot.inodeSlot(slot))
    }

    static func split(_ inode: UInt64) -> (number: Int, slot: Int)? {
        guard inode >= 1 else { return nil }
        let (q, r) = (inode - 1).quotientAndRemainder(dividingBy: UInt64(PhotoSlot.count))
        return q < UInt64(UInt32.max) ? (Int(q), Int(r)) : nil
    }

    /// The inode of a folder, control file or pick.
    func inode(parent: UInt64, name: String) -> UInt64 {
        numbering.withLock { Self.inode(number: $0.number(parent, name), slot: 0) }
    }

    /// The number of the photo at a source path, if it has one (in this tree or the one before).
    func photoNumber(source path: String) -> UInt32? {
        numbering.withLock { n in
            n.mapFirstBuild()
            return n.photoNumbers[path]
        }
    }

    /// How many source paths the map holds (the rest are numbered by position), for the tests.
    var mappedPathCount: Int { numbering.withLock { $0.photoNumbers.count } }

    /// How many source paths have a number.
    var photoPathCount: Int {
        numbering.withLock { n in
            n.mapFirstBuild()
            return n.photoNumbers.count
        }
    }

    /// Numbers a whole tree of `photoCount` photos under one lock (a build asks for hundreds of
    /// thousands), then forgets the paths of photos in neither this tree nor the one before.
    /// - Parameter renamed: source files found under a new path since the last build (their folder
    ///   renamed or moved): each new path takes the old one's number.
    /// A path is asked for at most once per build (a tree's photos have paths of their own).
    /// - Parameter same: for the k-th photo asked for, the number the last build gave the photo
    ///   at that position when it has the same path (a live change leaves nearly every photo where
    ///   it was: a million paths hashed again was half a second of every change shown).
    /// - Parameter complete: whether `same` knows every photo of the last build (those that moved
    ///   too), so that its nil is a photo the last build did not have.
    func batch<T>(photoCount: Int, renamed: [FileMove] = [], same: ((Int) -> UInt32?)? = nil, complete: Bool = false,
                  _ body: (_ named: (UInt64, String) -> UInt64, _ photo: (String) -> UInt32) -> T) -> (T, count: Int) {
        // (`Locked.withLock` wants a result it could send to another thread: this one goes back to
        // the caller's own.)
        nonisolated(unsafe) var out: (T, count: Int)?
        numbering.withLock { out = $0.numberTree(photoCount: photoCount, renamed: renamed, same: same, complete: complete, body) }
        return out!
    }
}

extension InodeAllocator {
    /// What the allocator knows, mutated under its lock only.
    /// (`@unchecked Sendable`: reached only through the `Locked` that holds it, `numbering`.)
    private final class Numbering: @unchecked Sendable {
        // Number 0 is the root (inode 1).
        var named: [Key: UInt32] = [:]
        var photoNumbers: [String: UInt32] = [:]
        /// Paths numbered by position (`buildByPosition`) and not put in `photoNumbers` yet:
        /// `paths[i]` has number `numbers[i]`. A first build (a mount's first tree, from a scan or the index) numbers
        /// every photo anew, at the end of the first scan, on one thread while the other cores have
        /// nothing left to do, so hashing every path into the map there is the scan's last wait. They are put in
        /// the map when it is next needed (the next build, a lookup by path).
        var unmapped: ByPosition?
        /// The photo numbers the last tree build gave out.
        var numberedLastBuild = NumberSet()
        var next: UInt32 = 1


        /// `batch`'s work, under the lock.
        func numberTree<T>(photoCount: Int, renamed: [FileMove], same: ((Int) -> UInt32?)?, complete: Bool,
                                   _ body: (_ named: (UInt64, String) -> UInt64, _ photo: (String) -> UInt32) -> T) -> (T, count: Int) {
            let first = photoNumbers.isEmpty && unmapped == nil && numberedLastBuild.count == 0
            if renamed.isEmpty && (first || unmapped != nil) {
                if let same, complete, unmapped != nil { return renumberByPosition(photoCount: photoCount, same: same, body) }
                return buildByPosition(photoCount: photoCount, body)
            }
            mapFirstBuild()
            move(renamed)
            // A first scan numbers every photo at once: grow the map once, not by doublings.
            if photoCount > photoNumbers.capacity { photoNumbers.reserveCapacity(photoCount) }
            var numbered = NumberSet()
            // (A rename moves numbers between paths: a path where it was may have another number now.)
            let same = renamed.isEmpty ? same : nil
            var position = 0
            let result = body({ InodeAllocator.inode(number: self.number($0, $1), slot: 0) }) { path in
                defer { position += 1 }
                let n = same?(position) ?? self.photo(path)
                numbered.insert(n)
                return n
            }
            forgetPathsGone(numbered: numbered)
            return (result, Int(next))
        }

        /// The first build, and the builds after it while its paths are unmapped: while the tree's
        /// photos come in the order they were numbered (`unmapped`), each takes its number by
        /// position, and photos past them are new (a first build's every photo; a first scan's
        /// later trees: each is the one before with the photos read since after it), numbered and
        /// noted in `unmapped` in turn, where hashing the paths of a first scan's last tree into the
        /// map would hold up its very end, on one thread. A photo out of that
        /// order puts every path in the map, and the rest go by it; the tree is then noted by
        /// position in its own order (`keepOwnOrder`).
        private func buildByPosition<T>(photoCount: Int, _ body: (_ named: (UInt64, String) -> UInt64, _ photo: (String) -> UInt32) -> T)
            -> (T, count: Int) {
            var (paths, numbers) = unmapped ?? ([], [])
            let known = paths.count
            paths.reserveCapacity(photoCount)
            numbers.reserveCapacity(photoCount)
            var matched = 0
            var inOrder = true
            var numbered = NumberSet()
            // This tree's paths and numbers in its own order, once it leaves the order of the one before.
            var own: ByPosition?
            let result = body({ InodeAllocator.inode(number: self.number($0, $1), slot: 0) }) { path in
                let n: UInt32
                if inOrder && matched < known && paths[matched] == path {
                    n = numbers[matched]
                    // (The new tree's string kept: the first tree's, a views snapshot's, can go.)
                    paths[matched] = path
                    matched += 1
                } else if inOrder && matched == known {
                    n = self.next
                    self.next += 1
                    paths.append(path)
                    numbers.append(n)
                } else {
                    if inOrder {
                        inOrder = false
                        own = (Array(paths[..<matched]), ContiguousArray(numbers[..<matched]))
                        own?.paths.reserveCapacity(photoCount)
                        own?.numbers.reserveCapacity(photoCount)
                        unmapped = (paths, numbers)
                        mapFirstBuild()
                    }
                    n = self.photo(path)
                    own?.paths.append(path)
                    own?.numbers.append(n)
                }
                numbered.insert(n)
                return n
            }
            if let own {
                keepOwnOrder(own, numbered: numbered)
                return (result, Int(next))
            }
            if inOrder {
                unmapped = (paths, numbers)
                // Every photo numbered before is in this tree too: nothing to forget.
                if matched == known {
                    numberedLastBuild = numbered
                    return (result, Int(next))
                }
                mapFirstBuild()
            }
            forgetPathsGone(numbered: numbered)
            return (result, Int(next))
        }

        /// A build after one numbered by position, whose photos `same` knows (`complete`): the numbers by
        /// position are kept, each position taking its photo's path and number (a photo removed
        /// leaves the last in its place: two positions change, no path is hashed). The paths the
        /// positions no longer hold go to the map (the tree before is still asked for them).
        private func renumberByPosition<T>(photoCount: Int, same: @escaping (Int) -> UInt32?,
                                           _ body: (_ named: (UInt64, String) -> UInt64, _ photo: (String) -> UInt32) -> T) -> (T, count: Int) {
            var (paths, numbers) = unmapped!
            unmapped = nil
            var left: [(path: String, number: UInt32)] = []
            var position = 0
            var numbered = NumberSet()
            let result = body({ InodeAllocator.inode(number: self.number($0, $1), slot: 0) }) { path in
                defer { position += 1 }
                let n: UInt32
                if position < paths.count && paths[position] == path {
                    n = numbers[position]
                    paths[position] = path
                } else {
                    n = same(position) ?? { defer { self.next += 1 }; return self.next }()
                    if position < paths.count {
                        left.append((paths[position], numbers[position]))
                        paths[position] = path
                        numbers[position] = n
                    } else {
                        paths.append(path)
                        numbers.append(n)
                    }
                }
                numbered.insert(n)
                return n
            }
            if paths.count > position {
                left += zip(paths[position...], numbers[position...]).map { ($0, $1) }
                paths.removeSubrange(position...)
                numbers.removeSubrange(position...)
            }
            // (Swept as `forgetPathsGone` sweeps: kept, every removal would grow the map for good.)
            if photoNumbers.count > paths.count / 4 + 1024 { keepPaths(numbered: numbered) }
            for (path, n) in left where photoNumbers[path] == nil { photoNumbers[path] = n }
            unmapped = (paths, numbers)
            numberedLastBuild = numbered
            return (result, Int(next))
        }

        /// After a build out of the order of the one before, by position in its own: the map's
        /// keys are the tree before's strings (a views snapshot's, after a remount), a second copy of
        /// every path beside this tree's; the map keeps only the paths the tree before had and this
        /// one has not (still asked for: `keepPaths`).
        private func keepOwnOrder(_ own: ByPosition, numbered: NumberSet) {
            photoNumbers = photoNumbers.filter { !numbered.contains($0.value) && numberedLastBuild.contains($0.value) }
            unmapped = own
            numberedLastBuild = numbered
        }

        /// Puts the paths numbered by position in the map.
        func mapFirstBuild() {
            guard let (paths, numbers) = unmapped else { return }
            unmapped = nil
            photoNumbers.reserveCapacity(paths.count)
            for (path, n) in zip(paths, numbers) { photoNumbers[path] = n }
        }

        /// Drops the paths of photos in neither this build nor the last (the tree before is still
        /// asked for the photo a lost pick had: `followMovedPicks`), once they are a quarter of
        /// the map: one pass over it per that many paths gone, not one per build.
        private func forgetPathsGone(numbered: NumberSet) {
            defer { numberedLastBuild = numbered }
            let gone = photoNumbers.count - numbered.count
            guard gone > numbered.count / 4 + 1024 else { return }
            keepPaths(numbered: numbered)
        }

        /// Keeps in the map only the paths of photos in this build (`numbered`) or the last.
        private func keepPaths(numbered: NumberSet) {
            photoNumbers = photoNumbers.filter { numbered.contains($0.value) || numberedLastBuild.contains($0.value) }
        }

        /// Gives each new path its old path's number, all at once: two folders that swapped names
        /// swap numbers, and an old path named twice moves once (no two paths share a number).
        private func move(_ renamed: [FileMove]) {
            guard !renamed.isEmpty else { return }
            var moving: [(to: String, number: UInt32)] = []
            for r in renamed {
                if let n = photoNumbers.removeValue(forKey: r.from) { moving.append((r.to, n)) }
            }
            for (to, n) in moving { photoNumbers[to] = n }
        }

        func number(_ parent: UInt64, _ name: String) -> UInt32 {
            let key = Key(parent: parent, name: name)
            if let n = named[key] { return n }
            return allocate { named[key] = $0 }
        }

        /// The path's number, given now if it has none: one hash of the path either way (a first
        /// scan numbers every photo: looked up, then inserted, was two).
        private func photo(_ path: String) -> UInt32 {
            Self.numbering(&photoNumbers[path, default: Self.unnumbered], from: &next)
        }

        /// No number yet (`next` never reaches it: inodes run out long before).
        private static let unnumbered = UInt32.max

        private static func numbering(_ slot: inout UInt32, from next: inout UInt32) -> UInt32 {
            if slot == unnumbered {
                slot = next
                next += 1
            }
            return slot
        }

        private func allocate(_ record: (UInt32) -> Void) -> UInt32 {
            let n = next
            next += 1
            record(n)
            return n
        }
    }
}

/// A set of photo numbers, one bit each (numbers are dense: they count up from 1).
struct NumberSet {
    private var words: [UInt64] = []
    private(set) var count = 0

    mutating func insert(_ n: UInt32) {
        let (word, bit) = (Int(n / 64), UInt64(1) << (n % 64))
        if word >= words.count { words += repeatElement(0, count: max(word + 1 - words.count, words.count)) }
        if words[word] & bit == 0 { words[word] |= bit; count += 1 }
    }

    func contains(_ n: UInt32) -> Bool {
        let word = Int(n / 64)
        return word < words.count && words[word] & (UInt64(1) << (n % 64)) != 0
    }
}
