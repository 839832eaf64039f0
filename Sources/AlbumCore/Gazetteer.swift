import CGeonames
import Glibc

/// A table of cities with their region, country and time zone, and the nearest one to a position
/// (`places/COUNTRY/REGION/CITY/`, `user.albumfs.place`; docs/rules.md, "Places").
///
/// Held compactly: a city is its name, two `Float` coordinates, its point on the unit sphere and
/// two 16-bit numbers into the tables of regions (each with its country) and zones (which
/// repeat); a grid of one degree a side finds the cities near a position without measuring the
/// distance to every one. For GeoNames' 24,361 cities that is about 1.6 MB in all (docs/rules.md).
public final class Gazetteer: Sendable {
    /// A city as its source names it.
    public struct City: Sendable, Equatable {
        public var name: String
        public var region: String
        public var country: String
        public var zone: String
        public var latitude: Double
        public var longitude: Double

        public init(name: String, region: String, country: String, zone: String, latitude: Double, longitude: Double) {
            self.name = name
            self.region = region
            self.country = country
            self.zone = zone
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// How far from its nearest city a photo is still placed in it.
    public static let reachKilometres = 50.0
    /// The mean radius of the Earth (IUGG), for the great-circle distance.
    static let earthRadiusKilometres = 6371.0088

    public let count: Int
    private let names: [String]
    private let latitudes: [Float]
    private let longitudes: [Float]
    /// Per city, its index in `regions` (a region is a country's: one name may be two countries').
    private let regionOf: [UInt16]
    private let zoneOf: [UInt16]
    /// Per region, its name and its index in `countries`.
    private let regions: [(name: String, country: UInt16)]
    private let countries: [String]
    private let zones: [String]
    private let grid: CityGrid
    /// Each city's point on the unit sphere: the chord between two points orders distances as
    /// the great circle does, for a few multiplications instead of trigonometry per city.
    private let xs: [Float], ys: [Float], zs: [Float]

    /// The table of `cities`, at most `UInt16.max - 1` (a photo keeps its city in 16 bits).
    public init(_ cities: [City]) {
        let kept = cities.prefix(Int(UInt16.max) - 1).filter { PlacePosition(latitude: $0.latitude, longitude: $0.longitude) != nil }
        count = kept.count
        names = kept.map(\.name)
        latitudes = kept.map { Float($0.latitude) }
        longitudes = kept.map { Float($0.longitude) }
        var countryIndex: [String: UInt16] = [:], regionIndex: [String: UInt16] = [:], zoneIndex: [String: UInt16] = [:]
        var countries: [String] = [], regions: [(name: String, country: UInt16)] = [], zones: [String] = []
        func number(_ key: String, _ index: inout [String: UInt16], add: () -> Void) -> UInt16 {
            if let n = index[key] { return n }
            let n = UInt16(index.count)
            index[key] = n
            add()
            return n
        }
        var regionOf: [UInt16] = [], zoneOf: [UInt16] = []
        for city in kept {
            let country = number(city.country, &countryIndex) { countries.append(city.country) }
            regionOf.append(number(city.country + "\n" + city.region, &regionIndex) { regions.append((city.region, country)) })
            zoneOf.append(number(city.zone, &zoneIndex) { zones.append(city.zone) })
        }
        (self.countries, self.regions, self.zones, self.regionOf, self.zoneOf) = (countries, regions, zones, regionOf, zoneOf)
        grid = CityGrid(latitudes: latitudes, longitudes: longitudes)
        let points = kept.map { Self.unitVector(latitude: $0.latitude, longitude: $0.longitude) }
        (xs, ys, zs) = (points.map { Float($0.x) }, points.map { Float($0.y) }, points.map { Float($0.z) })
    }

    static func unitVector(latitude: Double, longitude: Double) -> (x: Double, y: Double, z: Double) {
        let (φ, λ) = (latitude * .pi / 180, longitude * .pi / 180)
        return (cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
    }

    /// The city at `index` (0 ..< `count`).
    public func city(_ index: Int) -> City {
        let region = regions[Int(regionOf[index])]
        return City(name: names[index], region: region.name, country: countries[Int(region.country)], zone: zones[Int(zoneOf[index])],
                    latitude: Double(latitudes[index]), longitude: Double(longitudes[index]))
    }

    /// The nearest city to `position` within `reachKilometres`, or nil (none that near).
    public func nearest(_ position: PlacePosition, within reach: Double = reachKilometres) -> Int? {
        let p = Self.unitVector(latitude: position.latitude, longitude: position.longitude)
        // The chord (on the unit sphere) of an arc of `reach`.
        let chord = 2 * sin(min(Double.pi, reach / Self.earthRadiusKilometres) / 2)
        var best: (index: Int, chord2: Double)?
        grid.visit(near: position, within: reach) { i in
            let (dx, dy, dz) = (Double(xs[i]) - p.x, Double(ys[i]) - p.y, Double(zs[i]) - p.z)
            let d2 = dx * dx + dy * dy + dz * dz
            if d2 <= chord * chord, best.map({ d2 < $0.chord2 || (d2 == $0.chord2 && i < $0.index) }) ?? true { best = (i, d2) }
        }
        return best?.index
    }

    /// The great-circle distance (haversine) from `p` to a city, in kilometres: what `nearest`'s
    /// chords stand for (its tests measure with this).
    static func kilometres(_ p: PlacePosition, _ latitude: Float, _ longitude: Float) -> Double {
        let rad = Double.pi / 180
        let (φ1, φ2) = (p.latitude * rad, Double(latitude) * rad)
        let dφ = φ2 - φ1, dλ = (Double(longitude) - p.longitude) * rad
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * earthRadiusKilometres * asin(min(1, a.squareRoot()))
    }

    /// What `user.albumfs.place` says: `City, Region, Country (lat, lon)`, the position the
    /// photo's own, to six decimals (about 10 cm).
    public func description(ofCity index: Int, at position: PlacePosition) -> String {
        let c = city(index)
        return "\(c.name), \(c.region), \(c.country) (\(position.description))"
    }
}

/// The cities of each cell of one degree of latitude by one of longitude, as one array of city
/// numbers ordered by cell and the start of each cell in it.
struct CityGrid: Sendable {
    static let rows = 180, columns = 360
    private let starts: [Int32]
    private let cities: [UInt16]

    init(latitudes: [Float], longitudes: [Float]) {
        var counts = [Int32](repeating: 0, count: Self.rows * Self.columns + 1)
        let cells = latitudes.indices.map { Self.cell(row: Self.row(Double(latitudes[$0])), column: Self.column(Double(longitudes[$0]))) }
        for c in cells { counts[c + 1] += 1 }
        for i in 1..<counts.count { counts[i] += counts[i - 1] }
        var next = counts, cities = [UInt16](repeating: 0, count: latitudes.count)
        for (i, c) in cells.enumerated() {
            cities[Int(next[c])] = UInt16(i)
            next[c] += 1
        }
        starts = counts
        self.cities = cities
    }

    static func row(_ latitude: Double) -> Int { min(rows - 1, max(0, Int((latitude + 90).rounded(.down)))) }
    /// The column of a longitude, -180 and 180 being one meridian.
    static func column(_ longitude: Double) -> Int { ((Int((longitude + 180).rounded(.down)) % columns) + columns) % columns }
    static func cell(row: Int, column: Int) -> Int { row * columns + column }

    /// Calls `body` with every city in the cells that may hold one within `reach` km of `p`: the
    /// rows its latitude reaches, and in each the columns its longitude reaches at that row's
    /// latitude farthest from the equator (all of them near a pole), across the antimeridian.
    func visit(near p: PlacePosition, within reach: Double, _ body: (Int) -> Void) {
        // (A degree of latitude is at least 110.5 km; rounding down widens the search, never narrows it.)
        let dLat = reach / 110.5
        for row in Self.row(p.latitude - dLat)...Self.row(p.latitude + dLat) {
            let farthest = max(abs(Double(row) - 90), abs(Double(row) + 1 - 90))
            let cosine = cos(min(90, farthest) * .pi / 180)
            let dLon = cosine > 0 ? dLat / cosine : 360
            // Columns first to last, wrapped across the antimeridian; all of them near a pole.
            let first = Int((p.longitude - dLon + 180).rounded(.down)), last = Int((p.longitude + dLon + 180).rounded(.down))
            let span = dLon >= 179 || last - first + 1 >= Self.columns ? (0, Self.columns - 1) : (first, last)
            for c in span.0...span.1 {
                let cell = Self.cell(row: row, column: ((c % Self.columns) + Self.columns) % Self.columns)
                for k in Int(starts[cell])..<Int(starts[cell + 1]) { body(Int(cities[k])) }
            }
        }
    }
}

/// A photo's position, degrees north and east, as GPS gives it; only one that can be a place.
public struct PlacePosition: Sendable, Equatable {
    public let latitude: Double
    public let longitude: Double

    /// Nil for what names no place: a value not finite or out of range, or 0, 0 ("null island",
    /// what writers put where they had no fix).
    public init?(latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180, latitude != 0 || longitude != 0 else { return nil }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// `48.858370, 2.294481`: six decimals, as exiftool's `-n -c %.6f` writes them.
    public var description: String { "\(Self.sixDecimals(latitude)), \(Self.sixDecimals(longitude))" }

    static func sixDecimals(_ v: Double) -> String {
        let micro = Int64((abs(v) * 1_000_000).rounded())
        let fraction = String(micro % 1_000_000)
        return (v < 0 && micro != 0 ? "-" : "") + "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}

extension Gazetteer {
    /// GeoNames' cities from the system's libgeonames (loaded now, the first time; see
    /// Sources/CGeonames), or nil when it cannot be loaded: every photo is then in no place.
    /// Read once per process: the table is a system library's constant data.
    public static let system: Gazetteer? = loadSystem()

    /// Why `system` is nil (nil when it loaded).
    public static var systemFailure: String? {
        guard system == nil else { return nil }
        return albumfs_geonames_load().map { String(cString: $0) } ?? "libgeonames holds no city"
    }

    /// Whether this process tried to load libgeonames.
    public static var systemTried: Bool { albumfs_geonames_tried() != 0 }

    private static func loadSystem() -> Gazetteer? {
        guard albumfs_geonames_load() == nil else { return nil }
        let n = geonames_get_n_cities()
        guard n > 0 else { return nil }
        var cities: [City] = []
        cities.reserveCapacity(Int(n))
        for i in 0..<n {
            guard let c = geonames_get_city(i) else { continue }
            defer { geonames_city_free(c) }
            func text(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
            cities.append(City(name: text(geonames_city_get_name(c)), region: text(geonames_city_get_state(c)),
                               country: text(geonames_city_get_country(c)), zone: text(geonames_city_get_timezone(c)),
                               latitude: geonames_city_get_latitude(c), longitude: geonames_city_get_longitude(c)))
        }
        return cities.isEmpty ? nil : Gazetteer(cities)
    }
}
