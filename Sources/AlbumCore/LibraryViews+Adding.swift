/// The views after photos were added, made from the views before: a photo copied into a library
/// of a million is merged into each view it belongs to, where building every view again sorted
/// and named a million photos for each (docs/benchmarks.md, "A million photos").
///
/// The same tree `build` makes of the same photos, or nil when `adding` cannot tell it: any
/// photo before changed (the photos are the ones before, unchanged, then the ones added), a Live
/// Photo paired anew, or an added photo's name taken where it goes (its name is then decided with
/// the others', as `build` does).
extension LibraryViews {
    /// Added photos past which `build` does better (their names are searched one by one).
    static let mostAdded = 4096

    public static func adding(to previous: Library, photos: [Photo], thumbnailBoxes: [ThumbnailBox] = [], withStatus: Bool = false,
                              withPicks: Bool = false, emptyMtime: Timestamp) -> Library? {
        let before = previous.photos
        let addedCount = photos.count - before.count
        guard addedCount > 0, addedCount <= mostAdded, addedCount * 16 <= photos.count,
              before.indices.allSatisfy({ sameInViews(before[$0], photos[$0]) }) else { return nil }
        let partners = LivePhotos.partners(photos)
        guard partners == previous.livePartners else { return nil }
        let added = Array(before.count..<photos.count).sorted { precedes(photos, $0, $1) }
        let boxes = Array(Array(Set(thumbnailBoxes)).sorted().prefix(ThumbnailBox.maxFolders))
        let views = previous.root.subfolders
        func view(_ name: String) -> VirtualFolder? { views.first { $0.name == name } }
        func flat(_ name: String, _ keep: (Photo) -> Bool) -> VirtualFolder? {
            view(name).flatMap { addingTo($0, photos, added.filter { keep(photos[$0]) }, emptyMtime) }
        }
        guard let dates = view(byDate).flatMap({ addingToByDate($0, photos, added, emptyMtime) }),
              let shots = flat(screenshots, { $0.format.isStill && $0.screenshot.isScreenshot }),
              let others = flat(nonScreenshots, { $0.format.isStill && !$0.screenshot.isScreenshot }),
              let clips = flat(videos, { !$0.format.isStill }) else { return nil }
        var top = [dates, shots, others, clips]
        if !boxes.isEmpty {
            guard let shown = view(thumbnails), shown.subfolders.map(\.name) == boxes.map(\.description),
                  let folders = addingToThumbnails(shown, photos, added.filter { !Unrenderable.any(photos[$0].problems, format: photos[$0].format) },
                                                   boxes, emptyMtime) else { return nil }
            top.append(folders)
        }
        if withPicks { top.append(VirtualFolder(name: picked, entries: .folders([]), emptyMtime: emptyMtime)) }
        if withStatus { top.append(statusFolder(emptyMtime)) }
        return Library(photos: photos, root: VirtualFolder(name: "", entries: .folders(top), emptyMtime: emptyMtime),
                       livePartners: partners)
    }

    /// Whether a photo shows in the same places under the same name (its path, format, time,
    /// day, kind, problems, Live Photo identifier: all that `build` looks at).
    static func sameInViews(_ a: Photo, _ b: Photo) -> Bool {
        a.relativePath == b.relativePath && a.format == b.format && a.captureInstant == b.captureInstant
            && a.capture.time.local == b.capture.time.local && a.screenshot.isScreenshot == b.screenshot.isScreenshot
            && a.liveIdentifier == b.liveIdentifier && a.problems == b.problems
    }

    /// `build`'s order: newest first, ties by name, then path.
    static func precedes(_ photos: [Photo], _ a: Int, _ b: Int) -> Bool {
        if photos[a].captureInstant != photos[b].captureInstant { return photos[a].captureInstant > photos[b].captureInstant }
        return newestFirst(photos[a], photos[b])
    }

    /// A flat view with `added` (in order) merged in, or nil.
    static func addingTo(_ folder: VirtualFolder, _ photos: [Photo], _ added: [Int], _ emptyMtime: Timestamp) -> VirtualFolder? {
        guard case .photos(let entries) = folder.entries, let merged = entries.adding(added, photos: photos) else { return nil }
        return VirtualFolder(name: folder.name, entries: .photos(merged), emptyMtime: emptyMtime)
    }

    /// `thumbnails/` with `added` merged into the names and order its sizes share, or nil.
    static func addingToThumbnails(_ folder: VirtualFolder, _ photos: [Photo], _ added: [Int], _ boxes: [ThumbnailBox],
                                   _ emptyMtime: Timestamp) -> VirtualFolder? {
        guard case .photos(let entries)? = folder.subfolders.first?.entries, let shared = entries.adding(added, photos: photos) else { return nil }
        let folders = boxes.enumerated().map { k, box in
            VirtualFolder(name: box.description, entries: .photos(shared.withThumbnailBox(box, slot: PhotoSlot.thumbnail(k))),
                          emptyMtime: emptyMtime)
        }
        return VirtualFolder(name: thumbnails, entries: .folders(folders), emptyMtime: emptyMtime)
    }

    /// `by-date/` with `added` in their days: a day with none added is the day before, with the
    /// photos now; a day with some has them merged in (or is built again, if a name is taken there).
    static func addingToByDate(_ folder: VirtualFolder, _ photos: [Photo], _ added: [Int], _ emptyMtime: Timestamp) -> VirtualFolder? {
        var addedByDay: [Int: [Int]] = [:]
        for i in added { addedByDay[dayKey(photos[i]), default: []].append(i) }
        var days: [Int: VirtualFolder] = [:]
        for month in folder.subfolders.lazy.flatMap(\.subfolders) {
            for day in month.subfolders {
                guard case .photos(let entries) = day.entries, let first = entries.members.first else { return nil }
                let key = dayKey(photos[Int(first)])
                let more = addedByDay.removeValue(forKey: key) ?? []
                let merged = entries.adding(more, photos: photos).map { VirtualFolder(name: day.name, entries: .photos($0), emptyMtime: emptyMtime) }
                days[key] = merged ?? flatFolder(day.name, photos, entries.mergedMembers(more, photos: photos), emptyMtime, slot: PhotoSlot.byDate)
            }
        }
        for (key, members) in addedByDay {
            days[key] = flatFolder(photos[members[0]].capture.time.local.dayString, photos, members, emptyMtime, slot: PhotoSlot.byDate)
        }
        return byDateTree(days.keys.sorted(by: >).map { days[$0]! }, emptyMtime)
    }
}

extension PhotoEntries {
    /// These entries over `photos` (the photos before, then those added) with `added` (in
    /// `build`'s order, none of them here yet) merged in, in order and by name; nil when an added
    /// photo's name is taken here or by another added one.
    func adding(_ added: [Int], photos: [Photo]) -> PhotoEntries? {
        guard !added.isEmpty else {
            return PhotoEntries(photos: photos, members: members, byName: byName, renamed: renamed, thumbnailBox: thumbnailBox, slot: slot)
        }
        let defaults = added.map { Self.defaultName(photos[$0], thumbnail: thumbnailBox != nil) }
        let names = defaults.map(EntryNames.sanitise)
        guard Set(names).count == names.count else { return nil }
        // Where each name goes in the names' order (none may be there already).
        var insertions: [(at: Int, name: String, photo: Int)] = []
        // (An added photo's name is its own unless made safe: `EntryNames.sanitise`.)
        var safeNames = renamed
        for (k, photo) in added.enumerated() where names[k] != defaults[k] { safeNames[Int32(photo)] = names[k] }
        for (photo, name) in zip(added, names) {
            var low = 0, high = byName.count
            while low < high {
                let mid = (low + high) / 2
                if self.name(ofPhoto: Int(members[Int(byName[mid])])) < name { low = mid + 1 } else { high = mid }
            }
            if low < byName.count && self.name(ofPhoto: Int(members[Int(byName[low])])) == name { return nil }
            insertions.append((low, name, photo))
        }
        insertions.sort { $0.at != $1.at ? $0.at < $1.at : $0.name < $1.name }
        let (merged, moved, placed) = merging(added, photos: photos)
        var order = ContiguousArray<Int32>()
        order.reserveCapacity(merged.count)
        var next = 0
        for (k, position) in byName.enumerated() {
            while next < insertions.count && insertions[next].at == k {
                order.append(placed[insertions[next].photo]!)
                next += 1
            }
            order.append(moved[Int(position)])
        }
        for insertion in insertions[next...] { order.append(placed[insertion.photo]!) }
        return PhotoEntries(photos: photos, members: merged, byName: order, renamed: safeNames, thumbnailBox: thumbnailBox, slot: slot)
    }

    /// The members with `added` merged in, in `build`'s order.
    func mergedMembers(_ added: [Int], photos: [Photo]) -> [Int] {
        merging(added, photos: photos).members.map { Int($0) }
    }

    /// The members with `added` merged in; where each member before went (by its position
    /// before), and where each added photo went.
    private func merging(_ added: [Int], photos: [Photo]) -> (members: ContiguousArray<Int32>, moved: ContiguousArray<Int32>, placed: [Int: Int32]) {
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
