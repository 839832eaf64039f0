/// The views after a few photos were added, removed or changed, made from the views before: a
/// photo copied into (or deleted from) a library of a million is merged into (or taken out of)
/// each view it belongs to, where building every view again sorted and named a million photos
/// for each (docs/benchmarks.md, "A million photos").
///
/// The same tree `LibraryViews.build` makes of the same photos, or nil when it cannot tell it:
/// more photos changed than merging pays for, a Live Photo parted or a video shown paired anew
/// (`pairedAnewWhenAdded`), or names that cannot be told without naming every entry again
/// (`AddedNames`, `GoneNames`). A photo changed is one gone and one added; a photo removed
/// leaves the last in its place (`PhotoChanges`). Motion photos' videos are told with the
/// photos, made from their stills as `build` makes them (`PairedPhotos`).
struct ViewsUpdate {
    /// Photos added and gone past which `build` does better (their names are searched one by one).
    static let mostChanged = 4096

    let inputs: ViewInputs
    let update: ViewUpdate

    /// Nil where the tree is to be built again: too many changes, or pairs that changed for
    /// photos not added.
    init?(_ previous: Library, photos scanned: [Photo], _ settings: ViewSettings) {
        // Told against the photos shown with their motion photos' videos, made as `build` makes
        // them: a motion photo added or gone is its still and its video added or gone.
        let paired = PairedPhotos(scanned: scanned), photos = paired.photos
        guard let changes = PhotoChanges(before: previous.photos, after: photos, most: Self.mostChanged),
              !changes.added.isEmpty || !changes.gone.isEmpty, (changes.added.count + changes.gone.count) * 16 <= photos.count
        else { return nil }
        // Live Photos' pairs only: a motion photo's pair is made from its still alone, and a
        // still that gains or loses its video is changed (`PhotoChanges.sameInViews`), so no
        // motion pair parts or forms for a still not added. What is left to `build` in a library
        // holding motion photos is what is left to it in any (names, counts).
        guard let shownPairs = changes.renumbered(PairedPhotos.live(of: previous)),
              Self.pairedAnewWhenAdded(paired.live, shownPairs, changes.added, photos)
        else { return nil }
        // A RAW paired or parted leaves or joins a flat view though it was not added: built anew.
        let pairs = RawPairs.partners(photos)
        guard let shownRawPairs = changes.renumbered(previous.rawPartners),
              Self.rawPairedAnewWhenAdded(pairs, shownRawPairs, changes.added, photos) else { return nil }
        inputs = ViewInputs(photos: photos, livePartners: paired.partners, rawPairs: pairs, settings: settings)
        update = ViewUpdate(previous: previous, changes: changes)
    }

    /// Each view shown updated, or nil: the whole tree is built again.
    func library() -> Library? {
        let shown = update.previous.root.subfolders
        var top: [VirtualFolder] = []
        for view in LibraryViews.all(thumbnails: !inputs.boxes.isEmpty) where inputs.settings.views.contains(view.name) {
            guard let folder = shown.first(where: { $0.name == view.name }).flatMap({ view.updated($0, inputs, update) }) else { return nil }
            top.append(folder)
        }
        return LibraryViews.library(inputs, top)
    }

    /// Whether the Live Photo pairs now are those shown (in the indices now) and pairs whose video
    /// was added: a video added paired stays out of `videos`, as `build` leaves it out; a video
    /// shown there paired anew, or a pair parted, would change `videos` for a photo not added.
    static func pairedAnewWhenAdded(_ now: [Int32: Int32], _ shown: [Int32: Int32], _ added: [Int], _ photos: [Photo]) -> Bool {
        guard shown.allSatisfy({ now[$0.key] == $0.value }) else { return false }
        guard now.count > shown.count else { return true }
        let addedSet = Set(added)
        return now.allSatisfy { photo, partner in
            shown[photo] != nil || addedSet.contains(Int(photos[Int(photo)].format.isStill ? partner : photo))
        }
    }

    /// Whether the RAW+JPEG pairs now are those shown (in the indices now) and pairs whose RAW
    /// was added (a RAW added paired stays out of the flat views, as `build` leaves it out).
    static func rawPairedAnewWhenAdded(_ now: [Int32: Int32], _ shown: [Int32: Int32], _ added: [Int], _ photos: [Photo]) -> Bool {
        guard shown.allSatisfy({ now[$0.key] == $0.value }) else { return false }
        guard now.count > shown.count else { return true }
        let addedSet = Set(added)
        return now.allSatisfy { photo, partner in
            shown[photo] != nil || addedSet.contains(Int(photos[Int(photo)].format == .raw ? photo : partner))
        }
    }
}
