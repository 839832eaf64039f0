/// What a tree of views holds besides its photos: the parts shown, the groups beside the photos
/// and the time of folders with nothing in them. `LibraryViews.build` and `LibraryViews.updated`
/// take the same settings, so a tree updated and a tree built of the same photos agree.
public struct ViewSettings: Sendable {
    /// The `thumbnails/WxH/` folders to add (none: no `thumbnails/`); at most
    /// `ThumbnailBox.maxFolders`, duplicates ignored.
    public var thumbnailBoxes: [ThumbnailBox]
    /// Add `.albumfs/status`, `.albumfs/errors` and `.albumfs/not-shown`.
    public var withStatus: Bool
    /// Add the `picked/` folder (its links come from the pick registry, not from the views).
    public var withPicks: Bool
    /// The top-level views shown (`-o views=`); `.albumfs/` is not one of them.
    public var views: ShownViews
    /// Photo index → its group of exact duplicates (`DuplicateGroups`), for `duplicates/`: a
    /// table beside the photos, since only copies have an entry.
    public var duplicates: [Int32: UInt32] = [:]
    /// Photo index → its group of similar photos (`SimilarGroups`), for `duplicates/similar/`,
    /// likewise.
    public var similar: [Int32: UInt32] = [:]
    /// The time shown for folders with nothing in them (the scan time).
    public var emptyMtime: Timestamp

    public init(thumbnailBoxes: [ThumbnailBox] = [], withStatus: Bool = false, withPicks: Bool = false, views: ShownViews = .all,
                emptyMtime: Timestamp) {
        self.thumbnailBoxes = thumbnailBoxes
        self.withStatus = withStatus
        self.withPicks = withPicks
        self.views = views
        self.emptyMtime = emptyMtime
    }

    /// The same settings with the duplicate and similar groups given.
    public func grouping(duplicates: [Int32: UInt32], similar: [Int32: UInt32] = [:]) -> ViewSettings {
        var grouped = self
        grouped.duplicates = duplicates
        grouped.similar = similar
        return grouped
    }
}
