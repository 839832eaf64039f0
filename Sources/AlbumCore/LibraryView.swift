/// One folder at the mount root (`by-date/`, `videos/`, `places/` ...): built whole from the
/// photos, or updated from the folder shown after a few photos changed (`ViewsUpdate`). Both
/// give the same folder of the same photos: the update merges what changed where the build
/// sorts and names every photo.
protocol LibraryView: Sendable {
    /// The folder's name at the root (`LibraryViews.byDate` ...), as `-o views=` names it.
    var name: String { get }
    /// The folder of every photo; `order`: every photo's index, in `build`'s order.
    func built(_ inputs: ViewInputs, order: [Int]) -> VirtualFolder
    /// `shown` after `update`'s changes, or nil when it is to be built again (and the tree with it).
    func updated(_ shown: VirtualFolder, _ inputs: ViewInputs, _ update: ViewUpdate) -> VirtualFolder?
}

/// What every view is made from: the photos, how they pair, and the settings of the tree.
struct ViewInputs: Sendable {
    let photos: [Photo]
    /// Live Photos (and motion photos): photo index → its partner's.
    let livePartners: [Int32: Int32]
    /// RAW+JPEG pairs: photo index → its partner's (`RawPairs.partners`).
    let rawPairs: [Int32: Int32]
    let settings: ViewSettings

    var emptyMtime: Timestamp { settings.emptyMtime }

    /// The `thumbnails/WxH/` folders shown: at most `ThumbnailBox.maxFolders`, duplicates
    /// ignored, none where `thumbnails/` is not shown.
    var boxes: [ThumbnailBox] {
        settings.views.contains(LibraryViews.thumbnails)
            ? Array(Array(Set(settings.thumbnailBoxes)).sorted().prefix(ThumbnailBox.maxFolders)) : []
    }

    /// Whether a photo is a still the flat views list, as the phones' pickers' image filter: a
    /// RAW with its JPEG is in `by-date/` only (`RawPairs`).
    func isFlatStill(_ i: Int) -> Bool {
        photos[i].format.isStill && !RawPairs.hidesFromFlatViews(i, photos, rawPairs)
    }

    /// Whether a photo is one the flat views list: a still shown there, or a video that is not a
    /// Live Photo's motion part.
    func isShownFlat(_ i: Int) -> Bool {
        photos[i].format.isStill ? isFlatStill(i) : livePartners[Int32(i)] == nil
    }
}

/// What changed since the tree shown: the library it showed and how its photos stand to those now.
struct ViewUpdate {
    let previous: Library
    let changes: PhotoChanges
}
