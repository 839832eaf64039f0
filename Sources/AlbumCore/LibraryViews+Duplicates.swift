/// `duplicates/GROUP/`: one folder per group of files with the same bytes (`DuplicateGroups`),
/// named after its newest copy, holding every copy newest first; groups newest first.
extension LibraryViews {
    public static let duplicates = "duplicates"

    /// `duplicates/` of `order` (newest first: the photos in a group that the flat views list),
    /// which grouping keeps in each folder; `groups`: photo index → its group (`DuplicateGroups`).
    static func duplicatesView(_ photos: [Photo], _ order: [Int], _ groups: [Int32: UInt32], _ emptyMtime: Timestamp) -> VirtualFolder {
        var byGroup: [UInt32: [Int]] = [:]
        for i in order { if let g = groups[Int32(i)] { byGroup[g, default: []].append(i) } }
        // A group of which one copy alone is shown (the other a Live Photo's motion part) is none.
        let shown = byGroup.values.filter { $0.count > 1 }.sorted { precedes(photos, $0[0], $1[0]) }
        let names = EntryNames.assign(shown.map { PhotoEntries.defaultName(photos[$0[0]], thumbnail: false) }) { photos[shown[$0][0]].relativePath }
        let folders = zip(names, shown).map { name, members in
            flatFolder(name, photos, members, emptyMtime, slot: PhotoSlot.duplicates)
        }
        return VirtualFolder(name: duplicates, entries: .folders(folders), emptyMtime: emptyMtime)
    }
}

extension LibraryViews {
    /// The photos of `groups` that the flat views list, newest first.
    static func duplicateOrder(_ photos: [Photo], _ groups: [Int32: UInt32], _ livePartners: [Int32: Int32], _ flat: (Int) -> Bool) -> [Int] {
        groups.keys.map(Int.init).filter { $0 < photos.count && shownFlat($0, photos, livePartners, flat) }.sorted { precedes(photos, $0, $1) }
    }
}
