/// The views after a few photos were added, removed or changed, made from the views before: a
/// photo copied into (or deleted from) a library of a million is merged into (or taken out of)
/// each view it belongs to, where building every view again sorted and named a million photos
/// for each (docs/benchmarks.md, "A million photos").
///
/// The same tree `build` makes of the same photos, or nil when `updated` cannot tell it: more
/// photos changed than merging pays for, a Live Photo parted or a video shown paired anew
/// (`pairedAnewWhenAdded`), or names that cannot be told without naming every entry again
/// (`AddedNames`, `GoneNames`). A photo changed is one gone and one added; a photo removed
/// leaves the last in its place (`PhotoChanges`).
extension LibraryViews {
    /// Photos added and gone past which `build` does better (their names are searched one by one).
    static let mostChanged = 4096

    public static func updated(_ previous: Library, photos: [Photo], _ settings: ViewSettings) -> Library? {
        let views = settings.views, emptyMtime = settings.emptyMtime
        // Motion photos' videos are entries made from their stills, not from the scan: `build`
        // makes them again with the rest, for views that show one or a change that adds one.
        guard previous.filePhotoCount == previous.photos.count,
              let changes = PhotoChanges(before: previous.photos, after: photos, most: mostChanged),
              !changes.added.isEmpty || !changes.gone.isEmpty, (changes.added.count + changes.gone.count) * 16 <= photos.count,
              !changes.added.contains(where: { photos[$0].motionVideo != nil }) else { return nil }
        let partners = LivePhotos.partners(photos)
        guard let shownPairs = changes.renumbered(previous.livePartners), pairedAnewWhenAdded(partners, shownPairs, changes.added, photos)
        else { return nil }
        // A RAW paired or parted leaves or joins a flat view though it was not added: built anew.
        let pairs = RawPairs.partners(photos)
        guard let shownRawPairs = changes.renumbered(previous.rawPartners), rawPairedAnewWhenAdded(pairs, shownRawPairs, changes.added, photos)
        else { return nil }
        let added = changes.added
        let flatStill = { (i: Int) in photos[i].format.isStill && !RawPairs.hidesFromFlatViews(i, photos, pairs) }
        let boxes = views.contains(thumbnails) ? Array(Array(Set(settings.thumbnailBoxes)).sorted().prefix(ThumbnailBox.maxFolders)) : []
        let shown = previous.root.subfolders
        func view(_ name: String) -> VirtualFolder? { shown.first { $0.name == name } }
        func flat(_ name: String, _ keep: (Int) -> Bool) -> VirtualFolder? {
            view(name).flatMap { updatedFlat($0, photos, changes, added.filter(keep), emptyMtime) }
        }
        // Each view shown is updated, or the whole tree is built again (nil).
        let updaters: [(String, () -> VirtualFolder?)] = [
            (byDate, { view(byDate).flatMap { updatedByDate($0, previous.photos, photos, changes, emptyMtime) } }),
            (screenshots, { flat(screenshots, { flatStill($0) && photos[$0].screenshot.isScreenshot }) }),
            (nonScreenshots, { flat(nonScreenshots, { flatStill($0) && !photos[$0].screenshot.isScreenshot }) }),
            (videos, { flat(videos, { !photos[$0].format.isStill && partners[Int32($0)] == nil }) }),
            (byCamera, { view(byCamera).flatMap { updatedByCamera($0, photos, changes, partners, emptyMtime) } }),
            (favorites, { flat(favorites, { photos[$0].isFavorite && shownFlat($0, photos, partners, flatStill) }) }),
            (mediaTypes, { view(mediaTypes).flatMap {
                updatedMediaTypes($0, changes, KindMembership(photos: photos, livePartners: partners, flatStill: flatStill), previous, emptyMtime)
            } }),
            (places, { view(places).flatMap { folder in
                updatedPlaces(folder, photos, changes, added.filter { photos[$0].place != nil && shownFlat($0, photos, partners, flatStill) },
                              emptyMtime)
            } }),
            // Built again whole: its photos are few, and a copy added changes its original's group.
            (duplicates, { duplicatesView(photos, duplicateOrder(photos, settings.duplicates, partners, flatStill), settings.duplicates,
                                          similar: duplicateOrder(photos, settings.similar, partners, flatStill), settings.similar, emptyMtime) }),
            (filter, { filterView(emptyMtime) }),
        ]
        var top: [VirtualFolder] = []
        for (name, update) in updaters where views.contains(name) {
            guard let folder = update() else { return nil }
            top.append(folder)
        }
        if !boxes.isEmpty {
            guard let shown = view(thumbnails), shown.subfolders.map(\.name) == boxes.map(\.description),
                  let folders = updatedThumbnails(shown, photos, changes, added.filter { !Unrenderable.any(photos[$0].problems, format: photos[$0].format) },
                                                  boxes, emptyMtime) else { return nil }
            top.append(folders)
        }
        if settings.withPicks && views.contains(picked) { top.append(VirtualFolder(name: picked, entries: .folders([]), emptyMtime: emptyMtime)) }
        if settings.withStatus { top.append(statusFolder(emptyMtime)) }
        return Library(photos: photos, root: VirtualFolder(name: "", entries: .folders(top), emptyMtime: emptyMtime),
                       livePartners: partners, rawPartners: pairs)
    }

    /// Whether the Live Photo pairs now are those shown (in the indices now) and pairs whose video
    /// was added: a video added paired stays out of `videos`, as `build` leaves it out; a video
    /// shown there paired anew, or a pair parted, would change `videos` for a photo not added.
    static func pairedAnewWhenAdded(_ now: [Int32: Int32], _ shown: [Int32: Int32], _ added: [Int], _ photos: [Photo]) -> Bool {
        guard shown.allSatisfy({ now[$0.key] == $0.value }) else { return false }
        guard now.count > shown.count else { return true }
        let addedSet = Set(added)
        return now.allSatisfy { photo, partner in
            shown[photo] != nil || addedSet.contains(Int(photos[Int(photo)].format.isStill ? partner : photo))
        }
    }

    /// Whether the RAW+JPEG pairs now are those shown (in the indices now) and pairs whose RAW
    /// was added (a RAW added paired stays out of the flat views, as `build` leaves it out).
    static func rawPairedAnewWhenAdded(_ now: [Int32: Int32], _ shown: [Int32: Int32], _ added: [Int], _ photos: [Photo]) -> Bool {
        guard shown.allSatisfy({ now[$0.key] == $0.value }) else { return false }
        guard now.count > shown.count else { return true }
        let addedSet = Set(added)
        return now.allSatisfy { photo, partner in
            shown[photo] != nil || addedSet.contains(Int(photos[Int(photo)].format == .raw ? photo : partner))
        }
    }

    /// Whether a photo shows in the same places under the same name (its path, format, time,
    /// day, kind, problems, Live Photo identifier: all that `build` looks at).
    static func sameInViews(_ a: Photo, _ b: Photo) -> Bool {
        a.relativePath == b.relativePath && a.format == b.format && a.captureInstant == b.captureInstant
            && a.capture.time.local == b.capture.time.local && a.screenshot.isScreenshot == b.screenshot.isScreenshot
            && a.liveIdentifier == b.liveIdentifier && a.problems == b.problems && a.cameraCode == b.cameraCode
            && a.isFavorite == b.isFavorite && a.kindSignals == b.kindSignals && a.burstIdentifier == b.burstIdentifier && a.place == b.place
    }

    /// `build`'s order: newest first, ties by name, then path.
    static func precedes(_ photos: [Photo], _ a: Int, _ b: Int) -> Bool {
        if photos[a].captureInstant != photos[b].captureInstant { return photos[a].captureInstant > photos[b].captureInstant }
        return newestFirst(photos[a], photos[b])
    }

    /// A flat view without the photos gone and with `added` (in order) merged in, or nil.
    static func updatedFlat(_ folder: VirtualFolder, _ photos: [Photo], _ changes: PhotoChanges, _ added: [Int],
                            _ emptyMtime: Timestamp) -> VirtualFolder? {
        guard case .photos(let entries) = folder.entries,
              let merged = entries.removing(changes, photos: photos)?.adding(added, photos: photos) else { return nil }
        return VirtualFolder(name: folder.name, entries: .photos(merged), emptyMtime: emptyMtime)
    }

    /// `thumbnails/` updated in the names and order its sizes share, or nil.
    static func updatedThumbnails(_ folder: VirtualFolder, _ photos: [Photo], _ changes: PhotoChanges, _ added: [Int],
                                  _ boxes: [ThumbnailBox], _ emptyMtime: Timestamp) -> VirtualFolder? {
        guard case .photos(let entries)? = folder.subfolders.first?.entries,
              let shared = entries.removing(changes, photos: photos)?.adding(added, photos: photos) else { return nil }
        let folders = boxes.enumerated().map { k, box in
            VirtualFolder(name: box.description, entries: .photos(shared.withThumbnailBox(box, slot: PhotoSlot.thumbnail(k))),
                          emptyMtime: emptyMtime)
        }
        return VirtualFolder(name: thumbnails, entries: .folders(folders), emptyMtime: emptyMtime)
    }

    /// `by-date/` with the photos gone taken out of their days and `added` put in theirs: a day
    /// left empty goes, a day with none added or gone is the day before with the photos now (or
    /// a day is built again, if the names there cannot be told otherwise).
    static func updatedByDate(_ folder: VirtualFolder, _ before: [Photo], _ photos: [Photo], _ changes: PhotoChanges,
                              _ emptyMtime: Timestamp) -> VirtualFolder? {
        var addedByDay: [Int: [Int]] = [:]
        for i in changes.added { addedByDay[dayKey(photos[i]), default: []].append(i) }
        var days: [Int: VirtualFolder] = [:]
        for month in folder.subfolders.lazy.flatMap(\.subfolders) {
            for day in month.subfolders {
                guard case .photos(let entries) = day.entries, let first = entries.members.first else { return nil }
                let key = dayKey(before[Int(first)])
                days[key] = updatedDay(day.name, entries, photos, changes, addedByDay.removeValue(forKey: key) ?? [], emptyMtime)
            }
        }
        for (key, members) in addedByDay {
            days[key] = flatFolder(photos[members[0]].capture.time.local.dayString, photos, members, emptyMtime, slot: PhotoSlot.byDate)
        }
        return byDateTree(days.keys.sorted(by: >).map { days[$0]! }, emptyMtime)
    }

    /// A day folder updated: nil when nothing is left in it.
    static func updatedDay(_ name: String, _ entries: PhotoEntries, _ photos: [Photo], _ changes: PhotoChanges, _ more: [Int],
                           _ emptyMtime: Timestamp) -> VirtualFolder? {
        if let kept = entries.removing(changes, photos: photos), let merged = kept.adding(more, photos: photos) {
            return merged.count == 0 ? nil : VirtualFolder(name: name, entries: .photos(merged), emptyMtime: emptyMtime)
        }
        let members = changes.members(entries, adding: more, photos: photos)
        return members.isEmpty ? nil : flatFolder(name, photos, members, emptyMtime, slot: PhotoSlot.byDate)
    }
}

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
            let ordered = group.sorted { photos[$0].relativePath < photos[$1].relativePath }
            if ordered[0] != holder?.photo { names[ordered[0]] = name }
            let (stem, ext) = EntryNames.split(name)
            for photo in ordered.dropFirst() {
                let tag = EntryNames.tagged(stem: stem, ext: ext, path: photos[photo].relativePath)
                tags.append(tag)
                if let holder, photo == holder.photo { changed.append((holder.position, photo, tag)) } else { names[photo] = tag }
            }
        }
        guard Set(tags).count == tags.count, tags.allSatisfy({ wanting[$0] == nil && entries.holder(of: $0) == nil }) else { return nil }
    }
}
