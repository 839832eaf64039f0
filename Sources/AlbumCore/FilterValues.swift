/// The values filter terms take: each term's value read, or refused saying what was expected.
enum FilterValues {
    typealias Made = Result<FilterPredicate, FilterError>

    /// `rating>=4`, or as a shell takes it unquoted, `rating=4..` (`=..2`, `=3..4`: both ends
    /// in): -1 (rejected) to 5; a photo without a rating has none to compare.
    static func rating(_ op: FilterOperator?, _ value: String) -> Made {
        let bad = Made.failure(FilterError("rating takes a number from -1 to 5, or a range such as 4.., not \"\(value)\""))
        func number(_ s: Substring) -> Int? { Int(s).flatMap { (-1...5).contains($0) ? $0 : nil } }
        guard let op else { return bad }
        if op == .equal, let (from, to) = range(value) {
            guard from.isEmpty || number(from) != nil, to.isEmpty || number(to) != nil, !(from.isEmpty && to.isEmpty) else { return bad }
            let low = number(from) ?? -1, high = number(to) ?? 5
            return .success(FilterPredicate { s in s.photo.rating.map { (low...max(low, high)).contains($0) } ?? false })
        }
        guard let n = number(Substring(value)) else { return bad }
        return .success(FilterPredicate { s in s.photo.rating.map { compare($0, op, n, n) } ?? false })
    }

    /// A range's two ends (`FROM..TO`, either may be empty), if `value` is one.
    static func range(_ value: String) -> (Substring, Substring)? {
        var i = value.startIndex
        while i < value.endIndex {
            let next = value.index(after: i)
            if value[i] == ".", next < value.endIndex, value[next] == "." { return (value[..<i], value[value.index(after: next)...]) }
            i = next
        }
        return nil
    }

    /// `format=jpeg`: a format's name (`ImageFormat`) or one of its extensions (`jpg`, `heic`, `mov`).
    static func format(_ op: FilterOperator?, _ value: String) -> Made {
        let lower = value.lowercased()
        guard let format = ImageFormat.allCases.first(where: { $0.rawValue == lower || $0.extensions.contains(lower) }) else {
            let names = ImageFormat.allCases.map(\.rawValue)
            return .failure(FilterError("no format \"\(value)\" (formats: \(names.joined(separator: ", ")))"
                + FilterSuggestions.didYouMean(lower, among: names + ImageFormat.allCases.flatMap(\.extensions))))
        }
        return .success(FilterPredicate { $0.photo.format == format })
    }

    /// `camera=Apple iPhone 15 Pro`: a `by-camera/` folder's name, ASCII case ignored.
    static func camera(_ op: FilterOperator?, _ value: String) -> Made {
        guard !value.isEmpty else { return .failure(FilterError("camera takes a by-camera/ folder's name")) }
        let wanted = asciiLowercased(value)
        return .success(FilterPredicate { asciiLowercased($0.photo.camera) == wanted })
    }

    /// `country=`, `region=`, `city=`: the photo's city's folder of that level in `places/`, ASCII
    /// case ignored; `place=`: any of the three. The gazetteer's cities of that name are found
    /// once, so a photo is tested by its city's number alone.
    static func place(level: Int?) -> @Sendable (FilterOperator?, String) -> Made {
        { _, value in
            let term = ["country", "region", "city"][level ?? 2]
            guard !value.isEmpty else { return .failure(FilterError("\(level == nil ? "place" : term) takes a places/ folder's name")) }
            guard let gazetteer = Gazetteer.system else {
                return .failure(FilterError("places are not known: libgeonames, which names them, could not be loaded"))
            }
            let wanted = asciiLowercased(value)
            let levels = level.map { [$0] } ?? [0, 1, 2]
            let cities = Set((0..<gazetteer.count).filter { i in
                PlacesView.placeFolders(i, gazetteer).map { names in levels.contains { asciiLowercased(names[$0]) == wanted } } ?? false
            })
            return .success(FilterPredicate { $0.photo.place.map(cities.contains) ?? false })
        }
    }

    /// `folder=DCIM%2FCamera`: the photo's source file is in that folder of the library, or below it.
    static func folder(_ op: FilterOperator?, _ value: String) -> Made {
        var path = Substring(value)
        while path.hasPrefix("/") { path = path.dropFirst() }
        while path.hasSuffix("/") { path = path.dropLast() }
        guard !path.isEmpty else { return .failure(FilterError("folder takes a folder of the library, as in \"folder=DCIM\"")) }
        let folder = String(path)
        return .success(FilterPredicate { $0.photo.sourcePath.isWithin(folder: folder) })
    }

    /// Which written form a date term takes (nil: any of them).
    enum DateForm { case year, month, day }

    /// `year=2024`, `month=2024-06` (or `month=06`, June of any year), `day=2024-06-15`,
    /// `date>=2024-03`, `date=2024-03..2024-05` (both ends in; `date=2024-03..` from, `=..2024-05`
    /// until): the day written on the photo, its day folder's, compared as whole periods.
    static func date(_ op: FilterOperator?, _ value: String, as form: DateForm?) -> Made {
        guard let op else { return .failure(FilterError("a date needs a value")) }
        if form == .month, let m = Int(value), value.count == 2, (1...12).contains(m) {
            guard op == .equal else { return .failure(FilterError("a month of any year takes \"=\" only")) }
            return .success(FilterPredicate { $0.photo.capture.time.local.month == m })
        }
        if op == .equal, let (fromText, toText) = range(value) {
            let from = fromText.isEmpty ? (first: 0, last: 0) : period(String(fromText), as: form)
            let to = toText.isEmpty ? (first: 99_999_999, last: 99_999_999) : period(String(toText), as: form)
            guard let from, let to, !(fromText.isEmpty && toText.isEmpty) else { return badDate(value, form) }
            return .success(FilterPredicate { s in (from.first...max(from.first, to.last)).contains(dayKey(s.photo)) })
        }
        guard let p = period(value, as: form) else { return badDate(value, form) }
        return .success(FilterPredicate { s in compare(dayKey(s.photo), op, p.first, p.last) })
    }

    private static func badDate(_ value: String, _ form: DateForm?) -> Made {
        let wanted = switch form {
        case .year: "a year, as in \"year=2024\""
        case .month: "a month, as in \"month=2024-06\" or \"month=06\""
        case .day: "a day, as in \"day=2024-06-15\""
        case nil: "YYYY, YYYY-MM, YYYY-MM-DD, or a range FROM..TO (either end may be left out)"
        }
        return .failure(FilterError("\"\(value)\" is no date: \(wanted)"))
    }

    /// The days (yyyymmdd) a written year, month or day spans.
    static func period(_ text: String, as form: DateForm?) -> (first: Int, last: Int)? {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        let widths = [4, 2, 2]
        guard (1...3).contains(fields.count), fields.enumerated().allSatisfy({ $1.count == widths[$0] && $1.allSatisfy(\.isASCII) }),
              let year = Int(fields[0]), (1900...9999).contains(year) else { return nil }
        switch (form, fields.count) {
        case (.year, 1), (.month, 2), (.day, 3), (nil, _): break
        default: return nil
        }
        guard fields.count > 1 else { return (year * 10_000 + 101, year * 10_000 + 1231) }
        guard let month = Int(fields[1]), (1...12).contains(month) else { return nil }
        guard fields.count > 2 else { return (year * 10_000 + month * 100 + 1, year * 10_000 + month * 100 + 31) }
        guard let day = Int(fields[2]), (1...31).contains(day) else { return nil }
        let key = year * 10_000 + month * 100 + day
        return (key, key)
    }

    /// A photo's day, as `by-date/` names it, as yyyymmdd.
    static func dayKey(_ photo: Photo) -> Int {
        let d = photo.capture.time.local
        return d.year * 10_000 + d.month * 100 + d.day
    }

    /// Whether `x` compares with the period `first...last` as `op` says (`>` is after it all).
    static func compare(_ x: Int, _ op: FilterOperator, _ first: Int, _ last: Int) -> Bool {
        switch op {
        case .equal: return (first...last).contains(x)
        case .atLeast: return x >= first
        case .atMost: return x <= last
        case .above: return x > last
        case .below: return x < first
        }
    }

    static func asciiLowercased(_ s: String) -> String {
        String(decoding: s.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}

/// The did-you-mean rule: a name that is one of the known ones misspelt.
public enum FilterSuggestions {
    /// Words people write for a term (other spellings, singulars, the Photos apps' names).
    static let aliases = [
        "favourites": "favorites", "favorite": "favorites", "favourite": "favorites", "favs": "favorites",
        "photos": "images", "stills": "images", "pictures": "images", "movies": "videos", "clips": "videos",
        "live": "live-photos", "livephotos": "live-photos", "stars": "rating", "make": "camera", "model": "camera",
        "type": "format", "kind": "format", "path": "folder", "dir": "folder", "directory": "folder",
        "screen-shots": "screenshots", "nonscreenshots": "non-screenshots",
        "or": "any", "and": "all", "dupes": "duplicates",
    ]

    /// A date written alone (`2024`, `2024-06`, `2024-06-15`) as the term that takes it.
    public static func dateTerm(_ name: String) -> String? {
        let forms: [FilterValues.DateForm: String] = [.year: "year", .month: "month", .day: "day"]
        for (form, term) in forms where FilterValues.period(name, as: form) != nil { return term + "=" + name }
        return nil
    }

    /// ` (did you mean "X"?)` for the closest known name, or "" when none is close.
    public static func didYouMean(_ name: String, among known: [String]) -> String {
        suggestion(name, among: known).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// An alias's term, else the known name at the smallest edit distance, if that is at most
    /// 1 for names of up to four letters and 2 for longer ones (`screenshot`, `vidoes`).
    public static func suggestion(_ name: String, among known: [String]) -> String? {
        if let alias = aliases[name], known.contains(alias) { return alias }
        let limit = name.count <= 4 ? 1 : 2
        let scored = known.map { ($0, distance(Array(name), Array($0))) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }?.0
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// two neighbours each cost one.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
