import AlbumCore

/// Which entries of a folder a reader reading its files one after another reads next, as the
/// kernel's readahead guesses the next pages of a file: once the entry opened follows the one
/// opened before in the folder's readdir order (`find`, `tar`, `cp -r`, `rsync`) or in its name
/// order (`ls`, a shell's `*`, file managers and image viewers), either way round, the next
/// `depth` entries that way. Any other open starts over, and asks for nothing.
struct ReadAhead: Sendable {
    /// Which way a reader goes through a folder.
    enum Order: Equatable, Sendable {
        case listing(step: Int)
        case names(step: Int)
    }

    /// What to make ahead of a reader.
    struct Guess: Equatable, Sendable {
        let order: Order
        /// Readdir positions (`.listing`) or name ranks (`.names`), nearest first.
        let next: [Int]
    }

    /// The last entry opened, by folder inode.
    private var last: [UInt64: EntryPlace] = [:]

    /// The folders followed at once: a reader is in one folder at a time; more are several
    /// readers, each a folder of its own at most.
    static let foldersFollowed = 16

    /// Notes `place`, opened in the folder `folder` of `count` entries, and guesses what is read next.
    mutating func opened(_ place: EntryPlace, in folder: UInt64, count: Int, depth: Int) -> Guess? {
        let before = last[folder]
        if before == nil && last.count >= Self.foldersFollowed { last.removeAll(keepingCapacity: true) }
        last[folder] = place
        guard let before, depth > 0 else { return nil }
        let order: Order
        let from: Int
        if abs(place.position - before.position) == 1 {
            order = .listing(step: place.position - before.position)
            from = place.position
        } else if abs(place.rank - before.rank) == 1 {
            order = .names(step: place.rank - before.rank)
            from = place.rank
        } else {
            return nil
        }
        let step: Int
        switch order { case .listing(let s), .names(let s): step = s }
        let next = (1...depth).map { from + $0 * step }.filter { (0..<count).contains($0) }
        return next.isEmpty ? nil : Guess(order: order, next: next)
    }
}
