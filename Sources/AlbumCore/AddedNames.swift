extension PhotoEntries {
    /// An entry's name going where the names before put it (`at`, a place in `byName`): an added
    /// photo's (`before` nil), or that of a photo there before whose name changes (`before`: its
    /// position before).
    private struct Insertion {
        let at: Int
        let name: String
        let photo: Int
        let before: Int?
    }

    /// These entries over `photos` (their members' indices already those of `photos`: after
    /// `removing`) with `added` (indices in `photos`, in `build`'s order, none of them here yet)
    /// merged in, in order and by name; nil when the names cannot be told without naming every
    /// entry again (`AddedNames`).
    func adding(_ added: [Int], photos: [Photo]) -> PhotoEntries? {
        guard !added.isEmpty else {
            return PhotoEntries(photos: photos, members: members, byName: byName, renamed: renamed, thumbnailBox: thumbnailBox, slot: slot)
        }
        guard let naming = AddedNames(self, added: added, photos: photos) else { return nil }
        var names = renamed
        var insertions: [Insertion] = []
        for photo in added {
            let name = naming.names[photo]!
            if name != Self.defaultName(photos, photo, thumbnail: thumbnailBox != nil) { names[Int32(photo)] = name }
            insertions.append(Insertion(at: lowerBound(of: name), name: name, photo: photo, before: nil))
        }
        for change in naming.changed {
            names[Int32(change.photo)] = change.name
            insertions.append(Insertion(at: lowerBound(of: change.name), name: change.name, photo: change.photo, before: change.position))
        }
        insertions.sort { $0.at != $1.at ? $0.at < $1.at : $0.name < $1.name }
        let (merged, moved, placed) = merging(added, photos: photos)
        let leaving = Set(naming.changed.map(\.position))
        func place(_ insertion: Insertion) -> Int32 { insertion.before.map { moved[$0] } ?? placed[insertion.photo]! }
        var order = ContiguousArray<Int32>()
        order.reserveCapacity(merged.count)
        var next = 0
        for (k, position) in byName.enumerated() {
            while next < insertions.count && insertions[next].at == k {
                order.append(place(insertions[next]))
                next += 1
            }
            if !leaving.contains(Int(position)) { order.append(moved[Int(position)]) }
        }
        for insertion in insertions[next...] { order.append(place(insertion)) }
        return PhotoEntries(photos: photos, members: merged, byName: order, renamed: names, thumbnailBox: thumbnailBox, slot: slot)
    }

    /// Where `name` goes among the names before: the place in `byName` of the first name not
    /// before it.
    func lowerBound(of name: String) -> Int {
        var low = 0, high = byName.count
        while low < high {
            let mid = (low + high) / 2
            if self.name(ofPhoto: Int(members[Int(byName[mid])])) < name { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The readdir position of the entry called `name` before, and its photo.
    func holder(of name: String) -> (position: Int, photo: Int)? {
        position(named: name).map { ($0, photo(at: $0)) }
    }

    /// The name `photo` wants in these entries: its own, made safe (`assignAndOrder`'s start).
    func wantedName(_ photo: Photo) -> String {
        EntryNames.sanitise(Self.defaultName(fileName: photo.fileName, format: photo.format, thumbnail: thumbnailBox != nil))
    }

    /// The members with `added` merged in; where each member before went (by its position
    /// before), and where each added photo went.
    func merging(_ added: [Int], photos: [Photo]) -> (members: ContiguousArray<Int32>, moved: ContiguousArray<Int32>, placed: [Int: Int32]) {
        var merged = ContiguousArray<Int32>()
        merged.reserveCapacity(members.count + added.count)
        var moved = ContiguousArray<Int32>(repeating: 0, count: members.count)
        var placed: [Int: Int32] = [:]
        var a = 0
        for (k, member) in members.enumerated() {
            while a < added.count && LibraryViews.precedes(photos, added[a], Int(member)) {
                placed[added[a]] = Int32(merged.count)
                merged.append(Int32(added[a]))
                a += 1
            }
            moved[k] = Int32(merged.count)
            merged.append(member)
        }
        for photo in added[a...] {
            placed[photo] = Int32(merged.count)
            merged.append(Int32(photo))
        }
        return (merged, moved, placed)
    }
}

/// The names photos added to a folder take, as `EntryNames.assignAndOrder` gives them when it
/// names every entry: photos that want one name are ordered by path, the first takes it, the
/// others `stem~tag.ext` (a camera library repeats `IMG_1234.JPG` every 10,000 photos, so an
/// added photo's name is often taken). Where the photo holding the name is no longer first, it
/// takes its tag (`changed`). Nil where that could differ from naming every entry again: a name
/// wanted that an entry holds as a tag or a tag already taken (which `assignAndOrder` would
/// lengthen): those are left to `build`.
struct AddedNames {
    /// Each added photo's name in the folder.
    var names: [Int: String] = [:]
    /// Photos there before whose name changes: their position before, and their new name.
    var changed: [(position: Int, photo: Int, name: String)] = []

    init?(_ entries: PhotoEntries, added: [Int], photos: [Photo]) {
        var wanting: [String: [Int]] = [:]
        for photo in added { wanting[entries.wantedName(photos[photo]), default: []].append(photo) }
        var tags: [String] = []
        for (name, group) in wanting {
            var group = group
            let holder = entries.holder(of: name)
            if let holder {
                // (A name held as a tag or made safe from another: the entries would be named again.)
                guard entries.wantedName(photos[holder.photo]) == name else { return nil }
                group.append(holder.photo)
            }
            // Ordered and tagged by what `assignAndOrder` orders and tags them by (a motion
            // photo's video after every file).
            let key = { PhotoEntries.collisionKey(photos, $0) }
            let ordered = group.sorted { key($0) < key($1) }
            if ordered[0] != holder?.photo { names[ordered[0]] = name }
            let (stem, ext) = EntryNames.split(name)
            for photo in ordered.dropFirst() {
                let tag = EntryNames.tagged(stem: stem, ext: ext, path: key(photo))
                tags.append(tag)
                if let holder, photo == holder.photo { changed.append((holder.position, photo, tag)) } else { names[photo] = tag }
            }
        }
        guard Set(tags).count == tags.count, tags.allSatisfy({ wanting[$0] == nil && entries.holder(of: $0) == nil }) else { return nil }
    }
}
