/// `media-types/KIND/`: a folder per kind a phone's picker filters by (`MediaKind`), each listed
/// even when empty (the set is learnt from the listing), photos flat inside and newest first;
/// `bursts/` holds a folder per burst (docs/rules.md, "Kinds").
struct MediaTypesView: LibraryView {
    var name: String { LibraryViews.mediaTypes }

    /// Who is listed in a kind's folder, as the flat views list photos: a still not hidden by its
    /// RAW's JPEG, a video not a Live Photo's motion part nor a motion photo's; but `raw/`, which
    /// lists every RAW (a RAW with its JPEG too: the folder is the RAWs).
    struct KindMembership {
        let inputs: ViewInputs

        init(_ inputs: ViewInputs) { self.inputs = inputs }

        var photos: [Photo] { inputs.photos }
        var livePartners: [Int32: Int32] { inputs.livePartners }

        func flatStill(_ i: Int) -> Bool { inputs.isFlatStill(i) }

        func contains(_ i: Int, _ kind: MediaKind) -> Bool {
            let photo = photos[i]
            switch kind {
            case .raw: return photo.format == .raw
            case .livePhotos: return photo.format.isStill && flatStill(i) && livePartners[Int32(i)] != nil
            case .bursts: return flatStill(i) && photo.kinds.contains(kind.bit) && photo.burstIdentifier != nil
            default:
                guard photo.kinds.contains(kind.bit) else { return false }
                return photo.format.isStill ? flatStill(i) : !photo.isEmbeddedVideo && livePartners[Int32(i)] == nil
            }
        }

        /// Whether it may be of any kind (most photos are of none: one test, not eleven).
        func mayBeOfAKind(_ i: Int) -> Bool {
            let photo = photos[i]
            // (The map last: the photo's own fields answer for most.)
            return photo.kindSignals != 0 || photo.format == .raw || (!photo.format.isStill && photo.screenshot.isScreenshot)
                || (!livePartners.isEmpty && livePartners[Int32(i)] != nil)
        }

        /// Each kind's photos in `order`, by `MediaKind.rawValue`.
        func lists(_ order: [Int]) -> [[Int]] {
            var lists = Array(repeating: [Int](), count: MediaKind.allCases.count)
            for i in order where mayBeOfAKind(i) {
                for kind in MediaKind.allCases where contains(i, kind) { lists[kind.rawValue].append(i) }
            }
            return lists
        }
    }

    func built(_ inputs: ViewInputs, order: [Int]) -> VirtualFolder {
        Self.view(inputs.photos, KindMembership(inputs).lists(order), inputs.emptyMtime)
    }

    /// `media-types/` of each kind's photos (`KindMembership.lists`).
    static func view(_ photos: [Photo], _ lists: [[Int]], _ emptyMtime: Timestamp) -> VirtualFolder {
        let folders = MediaKind.allCases.map { kind in
            kind == .bursts ? burstsFolder(photos, lists[kind.rawValue], emptyMtime)
                : LibraryViews.flatFolder(kind.name, photos, lists[kind.rawValue], emptyMtime, slot: PhotoSlot.mediaType(kind))
        }
        return VirtualFolder(name: LibraryViews.mediaTypes, entries: .folders(folders), emptyMtime: emptyMtime, ignoringEmpty: true)
    }

    /// `bursts/`: a folder per burst, named after its first photo (the earliest) without its
    /// extension, its photos newest first; bursts newest first by their first photo. Two bursts
    /// whose first photos share a name are told apart by a tag of the burst's identifier.
    static func burstsFolder(_ photos: [Photo], _ order: [Int], _ emptyMtime: Timestamp) -> VirtualFolder {
        var byBurst: [String: [Int]] = [:]
        for i in order { byBurst[photos[i].burstIdentifier!, default: []].append(i) }
        let groups = byBurst.map { (id: $0.key, members: $0.value, first: $0.value.last!) }
            .sorted { LibraryViews.precedes(photos, $0.first, $1.first) }
        var taken = Set<String>()
        let folders = groups.map { group in
            let stem = EntryNames.split(EntryNames.sanitise(photos[group.first].fileName)).stem
            let name = taken.insert(stem).inserted ? stem : EntryNames.tagged(stem: stem, ext: "", path: group.id)
            return LibraryViews.flatFolder(name, photos, group.members, emptyMtime, slot: PhotoSlot.mediaType(.bursts))
        }
        return VirtualFolder(name: MediaKind.bursts.name, entries: .folders(folders), emptyMtime: emptyMtime)
    }

    /// `media-types/` with each kind's folder updated as a flat view is, or nil (built again)
    /// when a burst's photo came or went (a burst's folder name is its first photo's), or a Live
    /// Photo's part (its still, not added, may join or leave `live-photos/`).
    func updated(_ folder: VirtualFolder, _ inputs: ViewInputs, _ update: ViewUpdate) -> VirtualFolder? {
        let members = KindMembership(inputs), changes = update.changes, previous = update.previous, emptyMtime = inputs.emptyMtime
        let photos = members.photos, before = previous.photos
        let added = Set(changes.added), gone = Set(changes.gone)
        // A video gone whose still stays: that still leaves `live-photos/` (built again).
        func stillStays(_ i: Int) -> Bool {
            !before[i].format.isStill && previous.livePartners[Int32(i)].map { !gone.contains(Int($0)) } == true
        }
        guard !changes.added.contains(where: { photos[$0].burstIdentifier != nil }),
              !changes.gone.contains(where: { $0 < before.count && (before[$0].burstIdentifier != nil || stillStays($0)) })
        else { return nil }
        // A video added to a still shown: the still joins `live-photos/`.
        let joining = changes.added.compactMap { i -> Int? in
            guard !photos[i].format.isStill, let still = members.livePartners[Int32(i)].map(Int.init), !added.contains(still) else { return nil }
            return members.contains(still, .livePhotos) ? still : nil
        }
        var folders: [VirtualFolder] = []
        for kind in MediaKind.allCases {
            guard let shown = folder.subfolders.first(where: { $0.name == kind.name }) else { return nil }
            if kind == .bursts {
                // No burst's photo came or went: each burst is itself, renumbered.
                var bursts: [VirtualFolder] = []
                for burst in shown.subfolders {
                    guard let kept = FlatView.updated(burst, photos, changes, [], emptyMtime) else { return nil }
                    bursts.append(kept)
                }
                folders.append(VirtualFolder(name: kind.name, entries: .folders(bursts), emptyMtime: emptyMtime))
                continue
            }
            var added = changes.added.filter { members.contains($0, kind) }
            if kind == .livePhotos && !joining.isEmpty { added = (added + joining).sorted { LibraryViews.precedes(photos, $0, $1) } }
            guard let updated = FlatView.updated(shown, photos, changes, added, emptyMtime) else { return nil }
            folders.append(updated)
        }
        return VirtualFolder(name: LibraryViews.mediaTypes, entries: .folders(folders), emptyMtime: emptyMtime, ignoringEmpty: true)
    }
}

extension Library {
    /// A photo's kinds as `media-types/` lists it: its tags' kinds, and `livePhotos` for a
    /// still paired with its video (for a filter over kinds: `MediaKind(name:)` gives a kind's bit).
    public func kinds(ofPhoto i: Int) -> MediaKinds {
        var kinds = photos[i].kinds
        if photos[i].format.isStill && livePartners[Int32(i)] != nil { kinds.insert(MediaKind.livePhotos.bit) }
        return kinds
    }
}
