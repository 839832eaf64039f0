/// Which top-level views a mount shows (`-o views=LIST`); `.albumfs/` is always there.
public struct ShownViews: Sendable, Equatable {
    /// Every view's name, in the root's order.
    public static let names = [LibraryViews.byDate, LibraryViews.screenshots, LibraryViews.nonScreenshots, LibraryViews.videos,
                               LibraryViews.byCamera, LibraryViews.favorites, LibraryViews.mediaTypes, LibraryViews.places, LibraryViews.duplicates,
                               LibraryViews.filter, LibraryViews.thumbnails, LibraryViews.picked]
    public static let all = ShownViews(Set(names))

    public let shown: Set<String>

    private init(_ shown: Set<String>) { self.shown = shown }

    /// The views a comma-separated list names, or the first name that is no view's.
    public static func parse(_ list: String) -> Result<ShownViews, UnknownView> {
        var shown = Set<String>()
        for name in list.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard names.contains(name) else { return .failure(UnknownView(name: name)) }
            shown.insert(name)
        }
        return .success(ShownViews(shown))
    }

    public func contains(_ view: String) -> Bool { shown.contains(view) }

    /// The list as `-o views=` takes it, in the root's order (a views snapshot's key).
    public var description: String { Self.names.filter(shown.contains).joined(separator: ",") }

    /// A name in `-o views=` that is no view.
    public struct UnknownView: Error, Equatable {
        public let name: String
    }
}
