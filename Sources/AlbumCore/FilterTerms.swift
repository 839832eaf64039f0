/// What a filter's term is tested on: a photo as the flat views list it, with what its pairs say.
/// A term whose data is not in `Photo` (a photo's group of copies) gets a field here, filled by
/// `FilterScope.subject(_:)`.
public struct FilterSubject {
    public let photo: Photo
    /// A Live Photo's (or motion photo's) still: its motion part is listed through it.
    public let isLivePhoto: Bool
    /// A RAW+JPEG pair's JPEG, which lists the pair (`RawPairs`).
    public let hasRawPartner: Bool
    /// A copy `duplicates/` lists (`DuplicateGroups`).
    public let isCopy: Bool
    /// A photo `duplicates/similar/` lists (`SimilarGroups`).
    public let isSimilar: Bool

    public init(photo: Photo, isLivePhoto: Bool = false, hasRawPartner: Bool = false, isCopy: Bool = false, isSimilar: Bool = false) {
        self.photo = photo
        self.isLivePhoto = isLivePhoto
        self.hasRawPartner = hasRawPartner
        self.isCopy = isCopy
        self.isSimilar = isSimilar
    }
}

/// A compiled filter: a test of one photo.
public struct FilterPredicate: Sendable {
    public let test: @Sendable (FilterSubject) -> Bool
    public init(_ test: @escaping @Sendable (FilterSubject) -> Bool) { self.test = test }
}

/// One row of the table of terms: a name, what it takes, and how it is tested.
public struct FilterTerm: Sendable {
    public enum Takes: Sendable {
        /// A word alone (`favorites`).
        case nothing
        /// A value after one of these operators (`rating>=4`).
        case value([FilterOperator])
    }

    public let name: String
    public let takes: Takes
    /// The predicate for an operator and value (nil and "" for a word alone), or why the value is
    /// wrong. nil: the data the term reads is not in this build (`missingData` says where it comes from).
    public let make: (@Sendable (FilterOperator?, String) -> Result<FilterPredicate, FilterError>)?
    public let missingData: String

    public init(_ name: String, _ takes: Takes = .nothing,
                make: (@Sendable (FilterOperator?, String) -> Result<FilterPredicate, FilterError>)?, missingData: String = "") {
        self.name = name
        self.takes = takes
        self.make = make
        self.missingData = missingData
    }

    /// A word alone that tests each photo with `test`.
    public static func word(_ name: String, _ test: @escaping @Sendable (FilterSubject) -> Bool) -> FilterTerm {
        FilterTerm(name, make: { _, _ in .success(FilterPredicate(test)) })
    }

    /// A term whose data another part of albumfs brings: in the grammar, refused with that said.
    public static func notInThisBuild(_ name: String, _ takes: Takes = .nothing, from view: String) -> FilterTerm {
        FilterTerm(name, takes, make: nil, missingData: view)
    }
}

/// The terms a filter knows, by name: the one table the grammar's words come from. A view that
/// brings new data (media types, places, duplicates) makes its terms work by giving its row a
/// `make` here.
public enum FilterTerms {
    public static let all: [FilterTerm] = kinds + mediaKinds + values + comingWithOtherViews
    private static let byName = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

    /// Words alone over what the scan decides.
    static let kinds: [FilterTerm] = [
        .word("images") { $0.photo.format.isStill },
        .word("videos") { !$0.photo.format.isStill },
        .word("screenshots") { $0.photo.format.isStill && $0.photo.screenshot.isScreenshot },
        .word("non-screenshots") { $0.photo.format.isStill && !$0.photo.screenshot.isScreenshot },
        .word("favorites") { $0.photo.isFavorite },
        .word("live-photos") { $0.isLivePhoto },
        .word("raw") { $0.photo.format == .raw || $0.hasRawPartner },
        .word("duplicates") { $0.isCopy },
        .word("similar") { $0.isSimilar },
    ]

    /// `media-types/`'s kinds but Live Photos and RAW (above, which count pairs): a photo is in
    /// the filter's `portraits` as it is in `media-types/portraits/`.
    static let mediaKinds: [FilterTerm] = MediaKind.allCases.filter { $0 != .livePhotos && $0 != .raw }.map { kind in
        .word(kind.name) { $0.photo.kinds.contains(kind.bit) }
    }

    /// Terms that take a value.
    static let values: [FilterTerm] = [
        FilterTerm("rating", .value(FilterOperator.allCases), make: FilterValues.rating),
        FilterTerm("format", .value([.equal]), make: FilterValues.format),
        FilterTerm("camera", .value([.equal]), make: FilterValues.camera),
        FilterTerm("year", .value(FilterOperator.allCases), make: { FilterValues.date($0, $1, as: .year) }),
        FilterTerm("month", .value(FilterOperator.allCases), make: { FilterValues.date($0, $1, as: .month) }),
        FilterTerm("day", .value(FilterOperator.allCases), make: { FilterValues.date($0, $1, as: .day) }),
        FilterTerm("date", .value(FilterOperator.allCases), make: { FilterValues.date($0, $1, as: nil) }),
        FilterTerm("folder", .value([.equal]), make: FilterValues.folder),
        FilterTerm("place", .value([.equal]), make: FilterValues.place(level: nil)),
        FilterTerm("country", .value([.equal]), make: FilterValues.place(level: 0)),
        FilterTerm("region", .value([.equal]), make: FilterValues.place(level: 1)),
        FilterTerm("city", .value([.equal]), make: FilterValues.place(level: 2)),
    ]

    /// Terms whose data the other smart folders bring (issue #50): named here so that the
    /// grammar and its docs hold them, answered "not known to this build" until their row is
    /// given a `make`.
    static let comingWithOtherViews: [FilterTerm] = []

    public static func term(named name: String) -> FilterTerm? { byName[name] }

    /// The predicate of a whole expression, or what is wrong with its first wrong term.
    public static func compile(_ expression: FilterExpression) -> Result<FilterPredicate, FilterError> {
        do throws(FilterError) { return .success(try predicate(expression)) } catch { return .failure(error) }
    }

    private static func predicate(_ expression: FilterExpression) throws(FilterError) -> FilterPredicate {
        switch expression {
        case .term(let c): return try predicate(c)
        case .not(let e):
            let inner = try predicate(e)
            return FilterPredicate { !inner.test($0) }
        case .any(let list):
            let parts = try predicates(list)
            return FilterPredicate { s in parts.contains { $0.test(s) } }
        case .all(let list):
            let parts = try predicates(list)
            return FilterPredicate { s in parts.allSatisfy { $0.test(s) } }
        }
    }

    private static func predicates(_ list: [FilterExpression]) throws(FilterError) -> [FilterPredicate] {
        var parts: [FilterPredicate] = []
        for e in list { parts.append(try predicate(e)) }
        return parts
    }

    private static func predicate(_ c: FilterCondition) throws(FilterError) -> FilterPredicate {
        guard let term = byName[c.name] else {
            let meant = FilterSuggestions.dateTerm(c.name).map { " (did you mean \"\($0)\"?)" }
            throw FilterError("no term \"\(c.name)\"" + (meant ?? FilterSuggestions.didYouMean(c.name, among: all.map(\.name))))
        }
        guard let make = term.make else {
            throw FilterError("\"\(c.name)\" is not known to this build (its data comes with \(term.missingData))")
        }
        switch (term.takes, c.comparison) {
        case (.nothing, nil): break
        case (.nothing, .some(let (op, _))): throw FilterError("\"\(c.name)\" takes no value (\"\(c.name)\(op.rawValue)…\" written)")
        case (.value, nil): throw FilterError("\"\(c.name)\" needs a value, as in \"\(c.name)=…\"")
        case (.value(let ops), .some(let (op, _))):
            guard ops.contains(op) else {
                throw FilterError("\"\(c.name)\" takes \(ops.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")), not \"\(op.rawValue)\"")
            }
        }
        switch make(c.comparison?.operator, c.comparison?.value ?? "") {
        case .success(let p): return p
        case .failure(let e): throw e
        }
    }
}
