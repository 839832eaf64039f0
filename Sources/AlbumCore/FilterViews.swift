/// `filter/EXPRESSION/…/`: folders found on lookup whose photos a chain of expressions selects
/// (docs/filters.md). `filter/` itself lists only `README.txt`, not its folders.
struct FilterView: LibraryView {
    var name: String { LibraryViews.filter }

    func built(_ inputs: ViewInputs, order: [Int]) -> VirtualFolder {
        VirtualFolder(name: name, entries: .files([.init(name: LibraryViews.filterReadmeName, content: .filterReadme)]),
                      emptyMtime: inputs.emptyMtime)
    }

    func updated(_ shown: VirtualFolder, _ inputs: ViewInputs, _ update: ViewUpdate) -> VirtualFolder? {
        built(inputs, order: [])
    }
}

/// What every filter folder of one library picks from: the photos as the flat views list them
/// (a Live Photo through its still, a RAW+JPEG pair through its JPEG, a motion photo's video
/// through its still), newest first, made once per library.
public struct FilterScope: Sendable {
    public let library: Library
    /// The listed photos' indices, newest first.
    let order: ContiguousArray<Int32>
    /// The copies `duplicates/` lists, read from its folders (a views snapshot keeps them there,
    /// not the groups), or nil where the mount does not show `duplicates/`.
    let copies: Set<Int32>?
    /// The photos `duplicates/similar/` lists, read from its folders likewise.
    let alike: Set<Int32>?

    public init(_ library: Library) {
        self.library = library
        let duplicates = library.root.child(named: LibraryViews.duplicates).flatMap { node -> VirtualFolder? in
            if case .folder(let folder) = node { return folder }
            return nil
        }
        copies = duplicates.map { Self.members(of: $0.subfolders) }
        alike = duplicates.map { folder in
            Self.members(of: folder.subfolders.filter { $0.name == LibraryViews.similar }.flatMap(\.subfolders))
        }
        let photos = library.photos
        let keys = photos.indices.filter { Self.isListed($0, library) }.map { (instant: photos[$0].captureInstant, index: $0) }
        order = ContiguousArray(keys.sorted { a, b in
            if a.instant != b.instant { return a.instant > b.instant }
            return newestFirst(photos[a.index], photos[b.index])
        }.lazy.map { Int32($0.index) })
    }

    /// The photos of folders of photos.
    static func members(of folders: [VirtualFolder]) -> Set<Int32> {
        Set(folders.flatMap { group -> ContiguousArray<Int32> in
            if case .photos(let entries) = group.entries { return entries.members }
            return []
        })
    }

    /// Whether a photo has an entry of its own in a flat view.
    static func isListed(_ i: Int, _ library: Library) -> Bool {
        let photo = library.photos[i]
        if photo.isEmbeddedVideo { return false }
        if photo.format.isStill { return !RawPairs.hidesFromFlatViews(i, library.photos, library.rawPartners) }
        return library.livePartners[Int32(i)] == nil
    }

    /// What a term is tested on for photo `i`.
    public func subject(_ i: Int) -> FilterSubject {
        let photo = library.photos[i]
        return FilterSubject(photo: photo, isLivePhoto: photo.format.isStill && library.livePartners[Int32(i)] != nil,
                             hasRawPartner: photo.format != .raw && library.rawPartners[Int32(i)] != nil,
                             isCopy: copies?.contains(Int32(i)) ?? false, isSimilar: alike?.contains(Int32(i)) ?? false)
    }

    /// The photos `predicate` selects, newest first.
    public func members(_ predicate: FilterPredicate) -> [Int] {
        order.lazy.map(Int.init).filter { predicate.test(subject($0)) }
    }

    /// The folder of those photos, named `name`: the same names and inodes as the flat views give them.
    public func folder(named name: String, _ predicate: FilterPredicate, emptyMtime: Timestamp) -> VirtualFolder {
        LibraryViews.flatFolder(name, library.photos, members(predicate), emptyMtime)
    }
}

/// `filter/README.txt`: how to write a filter folder's name, with examples that work.
public enum FilterReadme {
    /// The examples, each a path below the mount point (held by
    /// `FilterTests.testReadmeHoldsItsTextAndEveryExampleIsAFolder`: each is a folder of a mount).
    public static let examples: [(path: String, meaning: String)] = [
        ("filter/favorites/", "favourites (rated at or above -o favorite_rating, or favourited)"),
        ("filter/images+not-screenshots/", "images, or anything that is not a screenshot (+ is \"or\")"),
        ("filter/any(images,not(screenshots))/", "the same written with functions (quote it in a shell)"),
        ("filter/images/not-screenshots/", "photos that are not screenshots (a folder inside narrows)"),
        ("filter/favorites/year=2024/camera=Apple iPhone 15 Pro/", "favourites from 2024 taken with that camera"),
        ("filter/rating=3../", "rated 3 or more (rating>=3 too, quoted in a shell)"),
        ("filter/videos/date=2024-06..2024-08/", "videos from June to August 2024"),
        ("filter/format=heif+raw/", "HEIC files and camera RAWs"),
        ("filter/folder=DCIM%2FCamera/", "from SOURCE/DCIM/Camera and below (%2F is a slash)"),
        ("filter/live-photos/month=12/", "Live Photos taken in any December"),
    ]

    public static var text: String {
        var lines = [
            "albumfs filter folders",
            "",
            "Each folder name below filter/ is an expression; a folder inside another narrows it",
            "(filter/A/B/ holds the photos both A and B select). Folders appear when opened: this",
            "folder lists only this file. Photos are newest first, as in the other views.",
            "",
            "Examples (cd into them, or open them in a file manager):",
        ]
        for (path, meaning) in examples { lines.append("  \(path)\n      \(meaning)") }
        lines += [
            "",
            "Terms: " + FilterTerms.all.filter { $0.make != nil }.map { term in
                if case .value(let ops) = term.takes { return term.name + (ops.contains(.equal) ? "=" : ops[0].rawValue) + "…" }
                return term.name
            }.joined(separator: ", "),
            "Combine: A+B (either)  not-A  any(A,B,…)  all(A,B,…)  not(A); a folder inside another: both",
            "Compare: = >= <= > <  and ranges FROM..TO, FROM.., ..TO  dates: YYYY, YYYY-MM, YYYY-MM-DD",
            "In a value write + as %2B and / as %2F; inside any(…), all(…), not(…) also , ( ) % as",
            "%2C %28 %29 %25. Quote ( ) < > in a shell, or use the forms above without them.",
            "",
            "A name that is no expression is not found (ENOENT); .albumfs/errors says why.",
            "More: man albumfs, under filter/.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    public static let bytes: [UInt8] = Array(text.utf8)
}
