import AlbumSystem
/// Builds the virtual folders at the mount root from a list of photos.
///
/// Pure: the same photos always give the same tree, names and order.
public enum LibraryViews {
    public static let byDate = "by-date"
    public static let screenshots = "screenshots"
    public static let nonScreenshots = "non-screenshots"
    public static let videos = "videos"
    public static let thumbnails = "thumbnails"
    public static let control = ".albumfs"
    public static let picked = "picked"
    /// Photos rated at or above `-o favorite_rating` (`FavoriteRules`), flat.
    public static let favorites = "favorites"

    /// `.albumfs/`: read-only files about the daemon itself; last in the root, hidden by its dot.
    static func statusFolder(_ time: Timestamp) -> VirtualFolder {
        VirtualFolder(name: control, entries: .files([
            .init(name: "status", content: .status),
            .init(name: "errors", content: .errors),
            .init(name: "not-shown", content: .notShown),
        ]), emptyMtime: time)
    }

    /// The tree of `photos` with what `settings` adds beside them.
    public static func build(photos scanned: [Photo], _ settings: ViewSettings) -> Library {
        let views = settings.views, emptyMtime = settings.emptyMtime
        // Motion photos' videos join the photos (`MotionPhotos`), paired with their stills.
        let (photos, motionPartners) = MotionPhotos.adding(to: scanned)
        // Sort small keys, not whole photos (a Photo copy retains half a dozen strings).
        let keys = photos.indices.map { (instant: photos[$0].captureInstant, index: $0) }
        let order = keys.sorted { a, b in
            if a.instant != b.instant { return a.instant > b.instant }
            return newestFirst(photos[a.index], photos[b.index])
        }.map(\.index)
        // Stills only, as the phones' pickers' image filter; videos have a view of their own. A
        // RAW with its JPEG is in `by-date/` only (`RawPairs`).
        let pairs = RawPairs.partners(photos)
        let flat = { (i: Int) in photos[i].format.isStill && !RawPairs.hidesFromFlatViews(i, photos, pairs) }
        let shots = order.filter { flat($0) && photos[$0].screenshot.isScreenshot }
        let others = order.filter { flat($0) && !photos[$0].screenshot.isScreenshot }
        // A Live Photo's motion part is no video of its own, as in the Photos app's Videos album.
        let partners = motionPartners.isEmpty ? LivePhotos.partners(photos) : LivePhotos.partners(photos).merging(motionPartners) { a, _ in a }
        let clips = order.filter { !photos[$0].format.isStill && partners[Int32($0)] == nil }
        // Favourites as the flat views list them: not a Live Photo's motion part, nor a RAW with its JPEG.
        let favs = order.filter { photos[$0].isFavorite && shownFlat($0, photos, partners, flat) }
        let kinds = views.contains(mediaTypes) ? KindMembership(photos: photos, livePartners: partners, flatStill: flat).lists(order) : []
        // (From the table, not a pass over every photo: copies are few.)
        let copies = duplicateOrder(photos, settings.duplicates, partners, flat)
        let alike = duplicateOrder(photos, settings.similar, partners, flat)
        // Places as favourites list photos, those with a place alone.
        let placed = order.filter { photos[$0].place != nil && shownFlat($0, photos, partners, flat) }
        let boxes = views.contains(thumbnails) ? Array(Array(Set(settings.thumbnailBoxes)).sorted().prefix(ThumbnailBox.maxFolders)) : []
        // The views are independent: built side by side (a publish at 100,000 photos is the last
        // step of a scan, and every core is otherwise idle then).
        let builders: [(String, @Sendable () -> VirtualFolder)] = [
            (byDate, { byDateView(photos, order, emptyMtime) }),
            (screenshots, { flatFolder(screenshots, photos, shots, emptyMtime) }),
            (nonScreenshots, { flatFolder(nonScreenshots, photos, others, emptyMtime) }),
            (videos, { flatFolder(videos, photos, clips, emptyMtime) }),
            (byCamera, { byCameraView(photos, order.filter { !photos[$0].isEmbeddedVideo }, partners, emptyMtime) }),
            (favorites, { flatFolder(favorites, photos, favs, emptyMtime, slot: PhotoSlot.favorites) }),
            (mediaTypes, { mediaTypesView(photos, kinds, emptyMtime) }),
            (places, { placesView(photos, placed, emptyMtime) }),
            (duplicates, { duplicatesView(photos, copies, settings.duplicates, similar: alike, settings.similar, emptyMtime) }),
            (filter, { filterView(emptyMtime) }),
        ]
        let thumbnailsBuilder: @Sendable () -> VirtualFolder = {
            thumbnailsView(photos, order.filter { hasThumbnail(photos[$0]) }, boxes, emptyMtime)
        }
        let all = builders + (boxes.isEmpty ? [] : [(thumbnails, thumbnailsBuilder)])
        var top = Parallel.all(all.filter { views.contains($0.0) }.map { $0.1 })
        if settings.withPicks && views.contains(picked) { top.append(VirtualFolder(name: picked, entries: .folders([]), emptyMtime: emptyMtime)) }
        if settings.withStatus { top.append(statusFolder(emptyMtime)) }
        return Library(photos: photos, root: VirtualFolder(name: "", entries: .folders(top), emptyMtime: emptyMtime),
                       livePartners: partners, rawPartners: pairs)
    }

    /// Whether a photo is one the flat views list: a still shown there (`flat`), or a video that
    /// is not a Live Photo's motion part.
    static func shownFlat(_ i: Int, _ photos: [Photo], _ livePartners: [Int32: Int32], _ flat: (Int) -> Bool) -> Bool {
        photos[i].format.isStill ? flat(i) : livePartners[Int32(i)] == nil
    }

    /// Whether a photo has a thumbnail entry: something to render, and not a motion photo's
    /// video (its still's thumbnail shows it; it is in no flat view).
    static func hasThumbnail(_ photo: Photo) -> Bool {
        !photo.isEmbeddedVideo && !Unrenderable.any(photo.problems, format: photo.format)
    }

    /// A folder of originals in the given order, names made unique.
    static func flatFolder(_ name: String, _ photos: [Photo], _ members: [Int], _ emptyMtime: Timestamp,
                           slot: Int = PhotoSlot.flat) -> VirtualFolder {
        VirtualFolder(name: name, entries: .photos(PhotoEntries(photos: photos, members: members, thumbnailBox: nil, slot: slot)),
                      emptyMtime: emptyMtime)
    }

    /// `thumbnails/WxH/`: one JPEG per photo (of those with something to render: `Unrenderable`),
    /// flat, newest first, named after the photo with `.jpg`.
    /// Every size shares one set of names and one order.
    static func thumbnailsView(_ photos: [Photo], _ order: [Int], _ boxes: [ThumbnailBox], _ emptyMtime: Timestamp) -> VirtualFolder {
        let shared = PhotoEntries(photos: photos, members: order, thumbnailBox: boxes[0], slot: PhotoSlot.thumbnail(0))
        let folders = boxes.enumerated().map { k, box in
            VirtualFolder(name: box.description, entries: .photos(shared.withThumbnailBox(box, slot: PhotoSlot.thumbnail(k))),
                          emptyMtime: emptyMtime)
        }
        return VirtualFolder(name: thumbnails, entries: .folders(folders), emptyMtime: emptyMtime)
    }

    /// `by-date/YYYY/YYYY-MM/YYYY-MM-DD/`: the day is the date written on the photo.
    /// `order` is newest first, so grouping it keeps every level newest first.
    static func byDateView(_ photos: [Photo], _ order: [Int], _ emptyMtime: Timestamp) -> VirtualFolder {
        // Group by the written date; folder order is by name (newest first), which can differ from
        // instant order only for photos taken in different zones (docs/rules.md).
        // Keyed by yyyymmdd as a number: a day string per photo was most of this view's time.
        var byDay: [Int: [Int]] = [:]
        for i in order { byDay[dayKey(photos[i]), default: []].append(i) }
        let days = byDay.keys.sorted(by: >).map { key in
            let members = byDay[key]!
            return flatFolder(photos[members[0]].capture.time.local.dayString, photos, members, emptyMtime, slot: PhotoSlot.byDate)
        }
        return byDateTree(days, emptyMtime)
    }

    /// A photo's day as yyyymmdd.
    static func dayKey(_ photo: Photo) -> Int {
        let d = photo.capture.time.local
        return d.year * 10_000 + d.month * 100 + d.day
    }

    /// `by-date/` of its day folders, newest first (`YYYY-MM-DD` names).
    static func byDateTree(_ days: [VirtualFolder], _ emptyMtime: Timestamp) -> VirtualFolder {
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
        return VirtualFolder(name: byDate, entries: .folders(yearFolders), emptyMtime: emptyMtime)
    }
}
