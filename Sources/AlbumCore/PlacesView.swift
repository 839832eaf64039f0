/// `places/COUNTRY/REGION/CITY/`: the photos and videos taken within `Gazetteer.reachKilometres`
/// of a city (`PlaceRules`), flat inside each city, newest first; countries, regions and cities
/// by name (docs/rules.md, "Places").
struct PlacesView: LibraryView {
    var name: String { LibraryViews.places }

    /// A city's folder names in `places/` (country, region, city), sanitised as every entry is,
    /// or nil: no gazetteer to name it, or a number it has no city for.
    static func placeFolders(_ place: Int, _ gazetteer: Gazetteer?) -> [String]? {
        guard let gazetteer, place >= 0, place < gazetteer.count else { return nil }
        let city = gazetteer.city(place)
        return [city.country, city.region, city.name].map { EntryNames.sanitise($0.isEmpty ? "_" : $0) }
    }

    /// `members` (in order) grouped by their folders in `places/`: by city number first, then
    /// named once per city (a million photos name a few thousand cities), cities of one name in
    /// one region joined.
    static func byPlaceFolders(_ photos: [Photo], _ members: [Int], _ gazetteer: Gazetteer?) -> [[String]: [Int]] {
        var byCity: [Int: [Int]] = [:]
        for i in members {
            if let place = photos[i].place { byCity[place, default: []].append(i) }
        }
        var byFolders: [[String]: [Int]] = [:]
        for (place, group) in byCity {
            guard let folders = placeFolders(place, gazetteer) else { continue }
            if let shown = byFolders[folders] {
                // (Two cities of one name in one region: one folder, newest first as `build` orders.)
                byFolders[folders] = (shown + group).sorted { LibraryViews.precedes(photos, $0, $1) }
            } else {
                byFolders[folders] = group
            }
        }
        return byFolders
    }

    /// The gazetteer the places of `photos` are numbers into: the system's, loaded only when a
    /// photo has a place (which the scan found with it).
    static func gazetteer(for photos: [Photo], _ members: [Int]) -> Gazetteer? {
        members.contains { photos[$0].place != nil } ? Gazetteer.system : nil
    }

    /// Whether the view lists a photo: as favourites list photos, those with a place alone.
    static func lists(_ inputs: ViewInputs, _ i: Int) -> Bool {
        inputs.photos[i].place != nil && inputs.isShownFlat(i)
    }

    /// `places/` of `order`'s photos it lists (newest first), which grouping keeps in each
    /// city's folder.
    func built(_ inputs: ViewInputs, order: [Int]) -> VirtualFolder {
        let photos = inputs.photos, emptyMtime = inputs.emptyMtime
        let placed = order.filter { Self.lists(inputs, $0) }
        let byCity = Self.byPlaceFolders(photos, placed, Self.gazetteer(for: photos, placed))
        return Self.tree(byCity.map { ($0.key, Self.cityFolder($0.key[2], photos, $0.value, emptyMtime)) }, emptyMtime)
    }

    /// One city's folder of `members` (newest first).
    static func cityFolder(_ name: String, _ photos: [Photo], _ members: [Int], _ emptyMtime: Timestamp) -> VirtualFolder {
        LibraryViews.flatFolder(name, photos, members, emptyMtime, slot: PhotoSlot.places)
    }

    /// `places/` of its city folders, each with its country and region: every level by name
    /// (byte order, as `ls` in the C locale).
    static func tree(_ cities: [([String], VirtualFolder)], _ emptyMtime: Timestamp) -> VirtualFolder {
        func byName(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
        var tree: [String: [String: [VirtualFolder]]] = [:]
        for (names, folder) in cities { tree[names[0], default: [:]][names[1], default: []].append(folder) }
        let countries = tree.keys.sorted(by: byName).map { country in
            let regions = tree[country]!.keys.sorted(by: byName).map { region in
                VirtualFolder(name: region, entries: .folders(tree[country]![region]!.sorted { byName($0.name, $1.name) }), emptyMtime: emptyMtime)
            }
            return VirtualFolder(name: country, entries: .folders(regions), emptyMtime: emptyMtime)
        }
        return VirtualFolder(name: LibraryViews.places, entries: .folders(countries), emptyMtime: emptyMtime)
    }

    /// `places/` with the photos gone taken out of their cities and those added put in theirs,
    /// or nil when it is to be built again. A city, region or country left empty goes.
    func updated(_ folder: VirtualFolder, _ inputs: ViewInputs, _ update: ViewUpdate) -> VirtualFolder? {
        let photos = inputs.photos, changes = update.changes, emptyMtime = inputs.emptyMtime
        let added = changes.added.filter { Self.lists(inputs, $0) }
        var addedByCity = Self.byPlaceFolders(photos, added, Self.gazetteer(for: photos, added))
        var cities: [([String], VirtualFolder)] = []
        for country in folder.subfolders {
            for region in country.subfolders {
                for city in region.subfolders {
                    guard case .photos(let entries) = city.entries else { return nil }
                    let names = [country.name, region.name, city.name]
                    let more = addedByCity.removeValue(forKey: names) ?? []
                    guard let kept = entries.removing(changes, photos: photos), let merged = kept.adding(more, photos: photos) else { return nil }
                    if merged.count > 0 { cities.append((names, VirtualFolder(name: city.name, entries: .photos(merged), emptyMtime: emptyMtime))) }
                }
            }
        }
        for (names, members) in addedByCity {
            cities.append((names, Self.cityFolder(names[2], photos, members, emptyMtime)))
        }
        return Self.tree(cities, emptyMtime)
    }
}
