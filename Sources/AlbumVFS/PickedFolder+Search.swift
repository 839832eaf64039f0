import AlbumCore
import AlbumSystem
import Dispatch

/// Picks whose photo moved: found again by content among the photos a new tree shows.
extension PickedFolder {
    /// A picked photo that moved (its folder renamed, moved to another folder of the library, or
    /// renamed) keeps its pick: for a pick whose path is no longer in the tree, the photo the scan
    /// found its file at (`renamed`: its folder renamed), else the one that has the identity
    /// (inode, size, mtime) its path had in the `previous` tree, whatever its name (a batch rename
    /// by date), then the photos of the same file name (of the size it had, where the previous
    /// tree knew it), are hashed, and the one holding the pick's bytes takes it. The candidates
    /// are chosen here, on the thread that swapped the tree; they are hashed on `search`,
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
        search.async { [self] in searchPicks(searches) }
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
    func waitForSearches() { search.sync {} }
}

/// A lost pick and the photos that may hold its bytes, in the order they are hashed.
struct PickSearch: Sendable {
    /// Bytes hashed at most by one search (a search per tree swap with lost picks).
    static let budget: Int64 = 4 << 30
    let pick: Pick
    let candidates: [Photo]
}
