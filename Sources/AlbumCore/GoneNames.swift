extension PhotoEntries {
    /// These entries without the photos gone and the others at their indices now, over `photos`;
    /// a name its holder left is taken by the next photo wanting it (`GoneNames`). Nil where the
    /// names cannot be told without naming every entry again.
    func removing(_ changes: PhotoChanges, photos: [Photo]) -> PhotoEntries? {
        guard let now = changes.now else {
            return PhotoEntries(photos: photos, members: members, byName: byName, renamed: renamed, thumbnailBox: thumbnailBox, slot: slot)
        }
        // Where each member before is now among the members (-1: gone).
        var at = ContiguousArray<Int32>(repeating: -1, count: members.count)
        var kept = ContiguousArray<Int32>()
        kept.reserveCapacity(members.count)
        var leaving: [Int] = []
        for (k, member) in members.enumerated() {
            let index = now[Int(member)]
            if index < 0 { leaving.append(k); continue }
            at[k] = Int32(kept.count)
            kept.append(index)
        }
        guard let naming = GoneNames(self, leaving: leaving) else { return nil }
        var order = ContiguousArray<Int32>()
        order.reserveCapacity(kept.count)
        for position in byName.lazy.map({ Int($0) }) {
            if let next = naming.takesPlace[position] {
                order.append(at[next])
            } else if at[position] >= 0 && !naming.moves.contains(position) {
                order.append(at[position])
            }
        }
        return PhotoEntries(photos: photos, members: kept, byName: order, renamed: renamedNow(now, changes, naming, photos), thumbnailBox: thumbnailBox,
                            slot: slot)
    }

    /// `renamed` keyed by the indices now, without the photos gone, with the names `naming` gives.
    private func renamedNow(_ now: [Int32], _ changes: PhotoChanges, _ naming: GoneNames, _ photos: [Photo]) -> [Int32: String] {
        var names = movedNames(now, changes.shifted)
        for (photo, name) in naming.names {
            let index = now[photo]
            names[index] = name == Self.defaultName(photos, Int(index), thumbnail: thumbnailBox != nil) ? nil : name
        }
        return names
    }

    /// `renamed` keyed by the indices now, without the photos gone; `shifted`: the photos at
    /// another index now or gone. Whichever is fewer is gone through: a camera library's flat
    /// folder renames most of its photos, and a file added moves every motion photo's video.
    private func movedNames(_ now: [Int32], _ shifted: [Int]) -> [Int32: String] {
        if renamed.count < shifted.count {
            var names: [Int32: String] = [:]
            names.reserveCapacity(renamed.count)
            for (index, name) in renamed where now[Int(index)] >= 0 { names[now[Int(index)]] = name }
            return names
        }
        var names = renamed
        var moving: [(Int32, String)] = []
        // (Looked up before removed: a folder with none of them keeps its names unshared.)
        for index in shifted where names[Int32(index)] != nil {
            let name = names.removeValue(forKey: Int32(index))!
            if now[index] >= 0 { moving.append((now[index], name)) }
        }
        for (to, name) in moving { names[to] = name }
        return names
    }

    /// The readdir positions of the entries whose names begin with `prefix`.
    func positions(named prefix: String) -> [Int] {
        var result: [Int] = []
        var k = lowerBound(of: prefix)
        while k < byName.count, name(ofPhoto: photo(at: Int(byName[k]))).hasPrefix(prefix) {
            result.append(Int(byName[k]))
            k += 1
        }
        return result
    }
}

/// The names that change in a folder as photos leave it, as `EntryNames.assignAndOrder` gives
/// them when it names every entry: where the photo holding a name others want leaves, the next
/// of them by path takes it (its `stem~tag.ext` goes). Nil where that could differ from naming
/// every entry again: a name that goes may have made another's tag longer (which would now be
/// shorter), a tag not the plain 6 digits, a long name cut to fit: left to `build`.
struct GoneNames {
    /// A leaving holder's position → the position of the entry that takes its name (and place).
    var takesPlace: [Int: Int] = [:]
    /// Those entries' positions, which leave their own places.
    var moves: Set<Int> = []
    /// Photos (indices before) and their new names.
    var names: [(photo: Int, name: String)] = []

    init?(_ entries: PhotoEntries, leaving: [Int]) {
        guard !leaving.isEmpty else { return }
        let gone = Set(leaving)
        func wanted(_ position: Int) -> String {
            entries.wantedName(entries.photos[entries.photo(at: position)])
        }
        func name(_ position: Int) -> String { entries.name(ofPhoto: entries.photo(at: position)) }
        var going: [String] = []
        for position in leaving {
            let held = name(position), wants = wanted(position)
            guard held.utf8.count <= EntryNames.maxBytes - 24 else { return nil }
            guard held == wants else { going.append(held); continue }
            // The holder leaves: the next photo wanting the name, by path, takes it.
            let (stem, ext) = EntryNames.split(wants)
            let others = entries.positions(named: stem + "~").filter { !gone.contains($0) && wanted($0) == wants }
            let path = { (p: Int) in PhotoEntries.collisionKey(entries.photos, entries.photo(at: p)) }
            guard let next = others.min(by: { path($0) < path($1) }) else { going.append(held); continue }
            guard name(next) == EntryNames.tagged(stem: stem, ext: ext, path: path(next)) else { return nil }
            going.append(name(next))
            takesPlace[position] = next
            moves.insert(next)
            names.append((entries.photo(at: next), wants))
        }
        // A name that goes may have taken another's tag, which then got longer: left to `build`.
        for held in going where held.contains("~") {
            guard entries.positions(named: EntryNames.split(held).stem).allSatisfy({ gone.contains($0) || name($0) == held }) else { return nil }
        }
    }
}
