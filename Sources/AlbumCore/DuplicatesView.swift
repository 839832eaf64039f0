/// `duplicates/GROUP/`: one folder per group of files with the same bytes (`DuplicateGroups`),
/// named after its newest copy, holding every copy newest first; groups newest first. Then
/// `duplicates/similar/GROUP/`: the same for groups of similar photos (`SimilarGroups`).
struct DuplicatesView: LibraryView {
    var name: String { LibraryViews.duplicates }

    /// From the groups' tables (`ViewSettings.duplicates`, `.similar`), not a pass over every
    /// photo: copies are few.
    func built(_ inputs: ViewInputs, order: [Int]) -> VirtualFolder {
        let groups = inputs.settings.duplicates, similar = inputs.settings.similar
        return Self.view(inputs.photos, Self.order(inputs, groups), groups, similar: Self.order(inputs, similar), similar, inputs.emptyMtime)
    }

    /// Built again whole: its photos are few, and a copy added changes its original's group.
    func updated(_ shown: VirtualFolder, _ inputs: ViewInputs, _ update: ViewUpdate) -> VirtualFolder? {
        built(inputs, order: [])
    }

    /// The photos of `groups` that the flat views list, newest first.
    static func order(_ inputs: ViewInputs, _ groups: [Int32: UInt32]) -> [Int] {
        let photos = inputs.photos
        return groups.keys.map(Int.init).filter { $0 < photos.count && inputs.isShownFlat($0) }.sorted { LibraryViews.precedes(photos, $0, $1) }
    }

    /// `duplicates/` of `order` (newest first: the photos in a group that the flat views list),
    /// which grouping keeps in each folder; `groups`: photo index → its group (`DuplicateGroups`);
    /// `similarOrder` and `similarGroups` the same for `duplicates/similar/`.
    static func view(_ photos: [Photo], _ order: [Int], _ groups: [Int32: UInt32], similar similarOrder: [Int],
                     _ similarGroups: [Int32: UInt32], _ emptyMtime: Timestamp) -> VirtualFolder {
        let shown = groupFolders(photos, order, groups)
        // (`similar` keeps its name: a group named so by a file of that name takes a suffix.)
        let names = EntryNames.assign([LibraryViews.similar] + shown.map { PhotoEntries.defaultName(photos, $0[0], thumbnail: false) }) {
            $0 == 0 ? "" : photos[shown[$0 - 1][0]].relativePath
        }
        var folders = zip(names.dropFirst(), shown).map { name, members in
            LibraryViews.flatFolder(name, photos, members, emptyMtime, slot: PhotoSlot.duplicates)
        }
        // `similar/` where its time puts it among the groups (newest first, as every listing);
        // empty, it shows `emptyMtime` and does not count for `duplicates/`'s own time.
        let alike = similarView(photos, similarOrder, similarGroups, emptyMtime)
        folders.insert(alike, at: folders.firstIndex { $0.mtime < alike.mtime } ?? folders.endIndex)
        return VirtualFolder(name: LibraryViews.duplicates, entries: .folders(folders), emptyMtime: emptyMtime, ignoringEmpty: true)
    }

    /// `duplicates/similar/`: a folder per group of similar photos, as exact groups are made.
    static func similarView(_ photos: [Photo], _ order: [Int], _ groups: [Int32: UInt32], _ emptyMtime: Timestamp) -> VirtualFolder {
        let shown = groupFolders(photos, order, groups)
        let names = EntryNames.assign(shown.map { PhotoEntries.defaultName(photos, $0[0], thumbnail: false) }) { photos[shown[$0][0]].relativePath }
        let folders = zip(names, shown).map { name, members in LibraryViews.flatFolder(name, photos, members, emptyMtime, slot: PhotoSlot.similar) }
        return VirtualFolder(name: LibraryViews.similar, entries: .folders(folders), emptyMtime: emptyMtime)
    }

    /// The members of each group of `order`'s photos, newest first, groups by their newest.
    static func groupFolders(_ photos: [Photo], _ order: [Int], _ groups: [Int32: UInt32]) -> [[Int]] {
        var byGroup: [UInt32: [Int]] = [:]
        for i in order { if let g = groups[Int32(i)] { byGroup[g, default: []].append(i) } }
        // A group of which one member alone is shown (the other a Live Photo's motion part) is none.
        return byGroup.values.filter { $0.count > 1 }.sorted { LibraryViews.precedes(photos, $0[0], $1[0]) }
    }
}
