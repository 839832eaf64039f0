/// `by-date/YYYY/YYYY-MM/YYYY-MM-DD/`: the day is the date written on the photo.
struct ByDateView: LibraryView {
    var name: String { LibraryViews.byDate }

    /// `order` is newest first, so grouping it keeps every level newest first.
    func built(_ inputs: ViewInputs, order: [Int]) -> VirtualFolder {
        let photos = inputs.photos
        // Group by the written date; folder order is by name (newest first), which can differ from
        // instant order only for photos taken in different zones (docs/rules.md).
        // Keyed by yyyymmdd as a number: a day string per photo was most of this view's time.
        var byDay: [Int: [Int]] = [:]
        for i in order { byDay[Self.dayKey(photos[i]), default: []].append(i) }
        let days = byDay.keys.sorted(by: >).map { key in
            let members = byDay[key]!
            return Self.dayFolder(photos, members, inputs.emptyMtime)
        }
        return Self.tree(days, inputs.emptyMtime)
    }

    /// `by-date/` with the photos gone taken out of their days and those added put in theirs: a
    /// day left empty goes, a day with none added or gone is the day before with the photos now
    /// (or a day is built again, if the names there cannot be told otherwise).
    func updated(_ folder: VirtualFolder, _ inputs: ViewInputs, _ update: ViewUpdate) -> VirtualFolder? {
        let photos = inputs.photos, before = update.previous.photos, changes = update.changes
        var addedByDay: [Int: [Int]] = [:]
        for i in changes.added { addedByDay[Self.dayKey(photos[i]), default: []].append(i) }
        var days: [Int: VirtualFolder] = [:]
        for month in folder.subfolders.lazy.flatMap(\.subfolders) {
            for day in month.subfolders {
                guard case .photos(let entries) = day.entries, let first = entries.members.first else { return nil }
                let key = Self.dayKey(before[Int(first)])
                days[key] = Self.updatedDay(day.name, entries, photos, changes, addedByDay.removeValue(forKey: key) ?? [], inputs.emptyMtime)
            }
        }
        for (key, members) in addedByDay { days[key] = Self.dayFolder(photos, members, inputs.emptyMtime) }
        return Self.tree(days.keys.sorted(by: >).map { days[$0]! }, inputs.emptyMtime)
    }

    /// A photo's day as yyyymmdd.
    static func dayKey(_ photo: Photo) -> Int {
        let d = photo.capture.time.local
        return d.year * 10_000 + d.month * 100 + d.day
    }

    /// The folder of one day's photos (`members`, newest first), named after its date.
    static func dayFolder(_ photos: [Photo], _ members: [Int], _ emptyMtime: Timestamp) -> VirtualFolder {
        LibraryViews.flatFolder(photos[members[0]].capture.time.local.dayString, photos, members, emptyMtime, slot: PhotoSlot.byDate)
    }

    /// A day folder updated: nil when nothing is left in it.
    static func updatedDay(_ name: String, _ entries: PhotoEntries, _ photos: [Photo], _ changes: PhotoChanges, _ more: [Int],
                           _ emptyMtime: Timestamp) -> VirtualFolder? {
        if let kept = entries.removing(changes, photos: photos), let merged = kept.adding(more, photos: photos) {
            return merged.count == 0 ? nil : VirtualFolder(name: name, entries: .photos(merged), emptyMtime: emptyMtime)
        }
        let members = changes.members(entries, adding: more, photos: photos)
        return members.isEmpty ? nil : LibraryViews.flatFolder(name, photos, members, emptyMtime, slot: PhotoSlot.byDate)
    }

    /// `by-date/` of its day folders, newest first (`YYYY-MM-DD` names).
    static func tree(_ days: [VirtualFolder], _ emptyMtime: Timestamp) -> VirtualFolder {
        var months: [(name: String, days: [VirtualFolder])] = []
        for folder in days {
            let month = String(folder.name.prefix(7))
            if months.last?.name == month { months[months.count - 1].days.append(folder) } else { months.append((month, [folder])) }
        }
        var years: [(name: String, months: [VirtualFolder])] = []
        for (month, days) in months {
            let folder = VirtualFolder(name: month, entries: .folders(days), emptyMtime: emptyMtime)
            let year = String(month.prefix(4))
            if years.last?.name == year { years[years.count - 1].months.append(folder) } else { years.append((year, [folder])) }
        }
        let yearFolders = years.map { VirtualFolder(name: $0.name, entries: .folders($0.months), emptyMtime: emptyMtime) }
        return VirtualFolder(name: LibraryViews.byDate, entries: .folders(yearFolders), emptyMtime: emptyMtime)
    }
}
