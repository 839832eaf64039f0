/// Builds the virtual folders at the mount root from a list of photos.
///
/// Pure: the same photos always give the same tree, names and order.
public enum LibraryViews {
    public static let byDate = "by-date"
    public static let screenshots = "screenshots"
    public static let nonScreenshots = "non-screenshots"
    public static let thumbnails = "thumbnails"
    public static let control = ".albumfs"
    public static let picked = "picked"

    /// `.albumfs/`: read-only files about the daemon itself; last in the root, hidden by its dot.
    static func statusFolder(_ time: Timestamp) -> VirtualFolder {
        VirtualFolder(name: control, children: [
            .file(name: "status", content: .status, mtime: time),
            .file(name: "errors", content: .errors, mtime: time),
        ], emptyMtime: time)
    }

    /// - Parameters:
    ///   - thumbnailBoxes: the `thumbnails/WxH/` folders to add (none: no `thumbnails/`).
    ///   - emptyMtime: the time shown for folders with nothing in them (the scan time).
    ///   - withStatus: add `.albumfs/status` and `.albumfs/errors`.
    ///   - withPicks: add the `picked/` folder (its links come from the pick registry, not from here).
    public static func build(photos: [Photo], thumbnailBoxes: [ThumbnailBox] = [], withStatus: Bool = false,
                             withPicks: Bool = false, emptyMtime: Timestamp) -> Library {
        // Sort small keys, not whole photos (a Photo copy retains half a dozen strings).
        let keys = photos.indices.map { (instant: photos[$0].captureInstant, index: $0) }
        let order = keys.sorted { a, b in
            if a.instant != b.instant { return a.instant > b.instant }
            return newestFirst(photos[a.index], photos[b.index])
        }.map(\.index)
        let shots = order.filter { photos[$0].screenshot.isScreenshot }
        let others = order.filter { !photos[$0].screenshot.isScreenshot }
        let root = VirtualFolder(name: "", children: [
            .folder(byDateView(photos, order, emptyMtime)),
            .folder(flatFolder(screenshots, photos, shots, emptyMtime)),
            .folder(flatFolder(nonScreenshots, photos, others, emptyMtime)),
        ] + (thumbnailBoxes.isEmpty ? [] : [.folder(thumbnailsView(photos, order, thumbnailBoxes, emptyMtime))])
          + (withPicks ? [.folder(VirtualFolder(name: picked, children: [], emptyMtime: emptyMtime))] : [])
          + (withStatus ? [.folder(statusFolder(emptyMtime))] : []),
                                 emptyMtime: emptyMtime)
        return Library(photos: photos, root: root)
    }

    /// A folder of originals in the given order, names made unique.
    static func flatFolder(_ name: String, _ photos: [Photo], _ members: [Int], _ emptyMtime: Timestamp) -> VirtualFolder {
        let names = EntryNames.assign(members.map { (photos[$0].fileName, photos[$0].relativePath) })
        let children = zip(members, names).map { i, n in
            VirtualNode.file(name: n, content: .original(photo: i), mtime: photos[i].captureInstant)
        }
        return VirtualFolder(name: name, children: children, emptyMtime: emptyMtime)
    }

    /// `thumbnails/WxH/`: one JPEG per photo, flat, newest first, named after the photo with `.jpg`.
    static func thumbnailsView(_ photos: [Photo], _ order: [Int], _ boxes: [ThumbnailBox], _ emptyMtime: Timestamp) -> VirtualFolder {
        let names = EntryNames.assign(order.map { (EntryNames.replacingExtension(of: photos[$0].fileName, with: ".jpg"), photos[$0].relativePath) })
        let folders = Array(Set(boxes)).sorted().map { box in
            VirtualNode.folder(VirtualFolder(name: box.description, children: zip(order, names).map { i, n in
                .file(name: n, content: .thumbnail(photo: i, box: box), mtime: photos[i].captureInstant)
            }, emptyMtime: emptyMtime))
        }
        return VirtualFolder(name: thumbnails, children: folders, emptyMtime: emptyMtime)
    }

    /// `by-date/YYYY/YYYY-MM/YYYY-MM-DD/`: the day is the date written on the photo.
    /// `order` is newest first, so grouping it keeps every level newest first.
    static func byDateView(_ photos: [Photo], _ order: [Int], _ emptyMtime: Timestamp) -> VirtualFolder {
        // Group by the written date; folder order is by name (newest first), which can differ from
        // instant order only for photos taken in different zones (docs/rules.md).
        var byDay: [String: [Int]] = [:]
        for i in order { byDay[photos[i].capture.time.local.dayString, default: []].append(i) }
        let days = byDay.keys.sorted(by: >)
        var months: [(String, [VirtualNode])] = []
        var years: [(String, [(String, [VirtualNode])])] = []
        for day in days {
            let month = String(day.prefix(7)), year = String(day.prefix(4))
            let folder = flatFolder(day, photos, byDay[day]!, emptyMtime)
            if months.last?.0 == month { months[months.count - 1].1.append(.folder(folder)) } else { months.append((month, [.folder(folder)])) }
            _ = year
        }
        for (month, dayFolders) in months {
            let year = String(month.prefix(4))
            if years.last?.0 == year { years[years.count - 1].1.append((month, dayFolders)) } else { years.append((year, [(month, dayFolders)])) }
        }
        let yearNodes = years.map { year, ms in
            VirtualNode.folder(VirtualFolder(name: year, children: ms.map { m, ds in
                .folder(VirtualFolder(name: m, children: ds, emptyMtime: emptyMtime))
            }, emptyMtime: emptyMtime))
        }
        return VirtualFolder(name: byDate, children: yearNodes, emptyMtime: emptyMtime)
    }
}
