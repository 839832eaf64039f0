/// A view of originals listed flat, newest first, names made unique: `screenshots/`,
/// `non-screenshots/`, `videos/`, `favorites/`; each lists the photos its rule takes.
struct FlatView: LibraryView {
    let name: String
    let slot: Int
    /// Whether the view lists a photo.
    let lists: @Sendable (ViewInputs, Int) -> Bool

    /// The flat views, in the root's order before `by-camera/` (`screenshots/`, `non-screenshots/`, `videos/`).
    static let screenshots = FlatView(name: LibraryViews.screenshots, slot: PhotoSlot.flat) { inputs, i in
        inputs.isFlatStill(i) && inputs.photos[i].screenshot.isScreenshot
    }
    static let nonScreenshots = FlatView(name: LibraryViews.nonScreenshots, slot: PhotoSlot.flat) { inputs, i in
        inputs.isFlatStill(i) && !inputs.photos[i].screenshot.isScreenshot
    }
    /// A Live Photo's motion part is no video of its own, as in the Photos app's Videos album.
    static let videos = FlatView(name: LibraryViews.videos, slot: PhotoSlot.flat) { inputs, i in
        !inputs.photos[i].format.isStill && inputs.livePartners[Int32(i)] == nil
    }
    /// Photos rated at or above `-o favorite_rating` (`FavoriteRules`), as the flat views list them.
    static let favorites = FlatView(name: LibraryViews.favorites, slot: PhotoSlot.favorites) { inputs, i in
        inputs.photos[i].isFavorite && inputs.isShownFlat(i)
    }

    func built(_ inputs: ViewInputs, order: [Int]) -> VirtualFolder {
        LibraryViews.flatFolder(name, inputs.photos, order.filter { lists(inputs, $0) }, inputs.emptyMtime, slot: slot)
    }

    func updated(_ shown: VirtualFolder, _ inputs: ViewInputs, _ update: ViewUpdate) -> VirtualFolder? {
        Self.updated(shown, inputs.photos, update.changes, update.changes.added.filter { lists(inputs, $0) }, inputs.emptyMtime)
    }

    /// A flat folder without the photos gone and with `added` (in order) merged in, or nil.
    static func updated(_ folder: VirtualFolder, _ photos: [Photo], _ changes: PhotoChanges, _ added: [Int],
                        _ emptyMtime: Timestamp) -> VirtualFolder? {
        guard case .photos(let entries) = folder.entries,
              let merged = entries.removing(changes, photos: photos)?.adding(added, photos: photos) else { return nil }
        return VirtualFolder(name: folder.name, entries: .photos(merged), emptyMtime: emptyMtime)
    }
}
