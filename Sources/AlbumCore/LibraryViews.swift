import AlbumSystem
/// Builds the virtual folders at the mount root from a list of photos: each view is a
/// `LibraryView` of its own; this puts them together in the root's order, and `updated` asks
/// each to update itself (`ViewsUpdate`).
///
/// Pure: the same photos always give the same tree, names and order.
public enum LibraryViews {
    public static let byDate = "by-date"
    public static let screenshots = "screenshots"
    public static let nonScreenshots = "non-screenshots"
    public static let videos = "videos"
    public static let byCamera = "by-camera"
    /// Photos rated at or above `-o favorite_rating` (`FavoriteRules`), flat.
    public static let favorites = "favorites"
    public static let mediaTypes = "media-types"
    public static let places = "places"
    public static let duplicates = "duplicates"
    /// `duplicates/similar/`.
    public static let similar = "similar"
    public static let filter = "filter"
    public static let filterReadmeName = "README.txt"
    public static let thumbnails = "thumbnails"
    public static let picked = "picked"
    public static let control = ".albumfs"

    /// The views made of the photos, in the root's order (`thumbnails/` last, and only with a
    /// size to show).
    static func all(thumbnails: Bool) -> [any LibraryView] {
        let views: [any LibraryView] = [
            ByDateView(), FlatView.screenshots, FlatView.nonScreenshots, FlatView.videos, ByCameraView(), FlatView.favorites,
            MediaTypesView(), PlacesView(), DuplicatesView(), FilterView(),
        ]
        return thumbnails ? views + [ThumbnailsView()] : views
    }

    /// The tree of `photos` with what `settings` adds beside them.
    public static func build(photos scanned: [Photo], _ settings: ViewSettings) -> Library {
        // Motion photos' videos join the photos (`MotionPhotos`), paired with their stills.
        let paired = PairedPhotos(scanned: scanned), photos = paired.photos
        // Sort small keys, not whole photos (a Photo copy retains half a dozen strings).
        let keys = photos.indices.map { (instant: photos[$0].captureInstant, index: $0) }
        let order = keys.sorted { a, b in
            if a.instant != b.instant { return a.instant > b.instant }
            return newestFirst(photos[a.index], photos[b.index])
        }.map(\.index)
        let inputs = ViewInputs(photos: photos, livePartners: paired.partners, rawPairs: RawPairs.partners(photos), settings: settings)
        // The views are independent: built side by side (a publish at 100,000 photos is the last
        // step of a scan, and every core is otherwise idle then).
        let shown = all(thumbnails: !inputs.boxes.isEmpty).filter { settings.views.contains($0.name) }
        let top = Parallel.all(shown.map { view in { @Sendable in view.built(inputs, order: order) } })
        return library(inputs, top)
    }

    /// The tree of the photos after a few were added, removed or changed, made from the tree
    /// before (`previous`), or nil when `build` is to make it (`ViewsUpdate`).
    public static func updated(_ previous: Library, photos: [Photo], _ settings: ViewSettings) -> Library? {
        ViewsUpdate(previous, photos: photos, settings)?.library()
    }

    /// The library of the views `top` with the folders `settings` adds after them.
    static func library(_ inputs: ViewInputs, _ views: [VirtualFolder]) -> Library {
        let settings = inputs.settings, emptyMtime = settings.emptyMtime
        var top = views
        if settings.withPicks && settings.views.contains(picked) {
            top.append(VirtualFolder(name: picked, entries: .folders([]), emptyMtime: emptyMtime))
        }
        if settings.withStatus { top.append(statusFolder(emptyMtime)) }
        return Library(photos: inputs.photos, root: VirtualFolder(name: "", entries: .folders(top), emptyMtime: emptyMtime),
                       livePartners: inputs.livePartners, rawPartners: inputs.rawPairs)
    }

    /// `.albumfs/`: read-only files about the daemon itself; last in the root, hidden by its dot.
    static func statusFolder(_ time: Timestamp) -> VirtualFolder {
        VirtualFolder(name: control, entries: .files([
            .init(name: "status", content: .status),
            .init(name: "errors", content: .errors),
            .init(name: "not-shown", content: .notShown),
        ]), emptyMtime: time)
    }

    /// A folder of originals in the given order, names made unique.
    static func flatFolder(_ name: String, _ photos: [Photo], _ members: [Int], _ emptyMtime: Timestamp,
                           slot: Int = PhotoSlot.flat) -> VirtualFolder {
        VirtualFolder(name: name, entries: .photos(PhotoEntries(photos: photos, members: members, thumbnailBox: nil, slot: slot)),
                      emptyMtime: emptyMtime)
    }

    /// `build`'s order: newest first, ties by name, then path.
    static func precedes(_ photos: [Photo], _ a: Int, _ b: Int) -> Bool {
        if photos[a].captureInstant != photos[b].captureInstant { return photos[a].captureInstant > photos[b].captureInstant }
        return newestFirst(photos[a], photos[b])
    }
}
