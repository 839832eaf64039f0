/// `places/COUNTRY/REGION/CITY/`: the photos and videos taken within `Gazetteer.reachKilometres`
/// of a city (`PlaceRules`), flat inside each city, newest first; countries, regions and cities
/// by name (docs/rules.md, "Places").
extension LibraryViews {
    public static let places = "places"

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
                byFolders[folders] = (shown + group).sorted { precedes(photos, $0, $1) }
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

    /// `places/` of `order` (newest first, the photos the flat views list), which grouping keeps
    /// in each city's folder.
    static func placesView(_ photos: [Photo], _ order: [Int], _ emptyMtime: Timestamp) -> VirtualFolder {
        let byCity = byPlaceFolders(photos, order, gazetteer(for: photos, order))
        return placesTree(byCity.map { ($0.key, flatFolder($0.key[2], photos, $0.value, emptyMtime, slot: PhotoSlot.places)) }, emptyMtime)
    }

    /// `places/` of its city folders, each with its country and region: every level by name
    /// (byte order, as `ls` in the C locale).
    static func placesTree(_ cities: [([String], VirtualFolder)], _ emptyMtime: Timestamp) -> VirtualFolder {
        func byName(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
        var tree: [String: [String: [VirtualFolder]]] = [:]
        for (names, folder) in cities { tree[names[0], default: [:]][names[1], default: []].append(folder) }
        let countries = tree.keys.sorted(by: byName).map { country in
            let regions = tree[country]!.keys.sorted(by: byName).map { region in
                VirtualFolder(name: region, entries: .folders(tree[country]![region]!.sorted { byName($0.name, $1.name) }), emptyMtime: emptyMtime)
            }
            return VirtualFolder(name: country, entries: .folders(regions), emptyMtime: emptyMtime)
        }
        return VirtualFolder(name: places, entries: .folders(countries), emptyMtime: emptyMtime)
    }

    /// `places/` with the photos gone taken out of their cities and `added` put in theirs, or nil
    /// when it is to be built again. A city, region or country left empty goes.
    static func updatedPlaces(_ folder: VirtualFolder, _ photos: [Photo], _ changes: PhotoChanges, _ added: [Int],
                              _ emptyMtime: Timestamp) -> VirtualFolder? {
        var addedByCity = byPlaceFolders(photos, added, gazetteer(for: photos, added))
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
            cities.append((names, flatFolder(names[2], photos, members, emptyMtime, slot: PhotoSlot.places)))
        }
        return placesTree(cities, emptyMtime)
    }
}
