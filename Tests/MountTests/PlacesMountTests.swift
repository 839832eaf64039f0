import AlbumCore
import AlbumSample
import Foundation
import Glibc
import XCTest

/// `places/COUNTRY/REGION/CITY/` of the sample library: every photo with a GPS position in the
/// folder of the city GeoNames puts nearest, its position as exiftool reads it; newest first;
/// the same file as in `by-date/`; followed live; picks from it; libgeonames loaded only for a
/// library with positions.
final class PlacesMountTests: XCTestCase {
    var source: SampleSource!

    override func setUpWithError() throws { source = try SampleSource() }
    override func tearDown() { source?.remove() }

    /// Every photo in `places/`, by source path below SOURCE: its `COUNTRY/REGION/CITY` and name.
    func listedByPlace(_ m: Mount) -> [String: [(place: String, name: String)]] {
        var out: [String: [(place: String, name: String)]] = [:]
        for country in readdirNames(m.path("places")) ?? [] {
            for region in readdirNames(m.path("places/" + country)) ?? [] {
                for city in readdirNames(m.path("places/\(country)/\(region)")) ?? [] {
                    let place = "\(country)/\(region)/\(city)"
                    for name in readdirNames(m.path("places/" + place)) ?? [] {
                        let src = xattr(m.path("places/\(place)/\(name)"), "user.albumfs.source") ?? ""
                        out[String(src.dropFirst(source.path.count + 1)), default: []].append((place, name))
                    }
                }
            }
        }
        return out
    }

    /// exiftool's `GPSLatitude GPSLongitude` of a file, signed (`-n`), as `lat, lon` to six decimals.
    func exiftoolPosition(_ path: String) -> String {
        let run = runCommand("/usr/bin/env", ["exiftool", "-n", "-s3", "-c", "%.6f", "-p", "$GPSLatitude, $GPSLongitude", path])
        let parts = run.stdout.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return parts.count == 2 ? String(format: "%.6f, %.6f", parts[0], parts[1]) : "none"
    }

    func testEveryPhotoWithAPositionIsInItsCityNewestFirstAsTheByDateFile() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        let placed = source.items.filter { $0.expectedPlace != nil }
        XCTAssertEqual(placed.count, 10)
        let listed = listedByPlace(m)
        for item in placed {
            XCTAssertEqual(listed[item.path]?.map(\.place), [item.expectedPlace!], item.path)
        }
        XCTAssertEqual(listed.count, placed.count, "nothing else: \(listed.keys.sorted())")
        XCTAssertEqual(readdirNames(m.path("places")), ["Argentina", "Australia", "France", "Japan", "Svalbard and Jan Mayen", "United States of America"])
        XCTAssertEqual(readdirNames(m.path("places/France")), ["Auvergne-Rhône-Alpes", "Île-de-France Region"], "byte order")
        XCTAssertEqual(readdirNames(m.path("places/France/Auvergne-Rhône-Alpes/Lyon")), ["lyon-2.jpg", "lyon-1.jpg"], "newest first")
        XCTAssertEqual(readdirNames(m.path("places/" + SampleLibrary.eiffelTowerPlace)), ["IMG_5001.JPG", "PXL_20231010_081500123.MP.jpg"],
                       "a motion photo's still alone, as the flat views list it")

        // The attribute names the city and the position exiftool reads.
        let kyoto = "places/Japan/Kyoto/Kyoto/kyoto.jpg"
        XCTAssertEqual(exiftoolPosition(source.path + "/Travel/kyoto.jpg"), "35.011600, 135.768100")
        XCTAssertEqual(xattr(m.path(kyoto), "user.albumfs.place"), "Kyoto, Kyoto, Japan (35.011600, 135.768100)")
        XCTAssertEqual(exiftoolPosition(source.path + "/Travel/sydney.jpg"), "-33.856800, 151.215300")
        XCTAssertEqual(xattr(m.path("places/Australia/New South Wales/Sydney/sydney.jpg"), "user.albumfs.place"),
                       "Sydney, New South Wales, Australia (-33.856800, 151.215300)")
        let day = "by-date/2022/2022-04/"
        XCTAssertEqual(exiftoolPosition(source.path + "/Travel/atlantic.jpg"), "40.000000, -40.000000")
        XCTAssertEqual(xattr(m.path(day + "2022-04-11/atlantic.jpg"), "user.albumfs.place"), "no city within 50 km (40.000000, -40.000000)")
        for (path, name) in [("2022-04-12", "null-island.jpg"), ("2022-04-13", "no-reference.jpg")] {
            XCTAssertNil(xattr(m.path(day + path + "/" + name), "user.albumfs.place"), name)
            XCTAssertEqual(errno, ENODATA, name)
        }
        XCTAssertEqual(exiftoolPosition(source.path + "/Travel/null-island.jpg"), "0.000000, 0.000000", "written, and no place")
        // A video's QuickTime location; newest first with the photo of its city.
        XCTAssertEqual(exiftoolPosition(source.path + "/Travel/VID_san-francisco.MOV"), "37.779300, -122.419300")
        let sf = "places/United States of America/California/San Francisco"
        XCTAssertEqual(readdirNames(m.path(sf)), ["VID_san-francisco.MOV", "san-francisco.jpg"])
        XCTAssertEqual(xattr(m.path(sf + "/VID_san-francisco.MOV"), "user.albumfs.place"),
                       "San Francisco, California, United States of America (37.779300, -122.419300)")

        // Their times, written without an offset, take their place's zone's offset that day
        // (Sydney's daylight saving time ended four days before; Lyon's had begun).
        for (path, time, zone) in [(kyoto, "2022-04-05T10:00:00+09:00", "Asia/Tokyo"),
                                   ("places/Australia/New South Wales/Sydney/sydney.jpg", "2022-04-07T10:00:00+10:00", "Australia/Sydney"),
                                   ("places/France/Auvergne-Rhône-Alpes/Lyon/lyon-1.jpg", "2022-04-10T10:00:00+02:00", "Europe/Paris"),
                                   ("places/Argentina/Buenos Aires F.D./Buenos Aires/buenos-aires.jpg", "2022-04-08T10:00:00-03:00",
                                    "America/Argentina/Buenos_Aires")] {
            XCTAssertEqual(xattr(m.path(path), "user.albumfs.capture_time"), time, path)
            XCTAssertEqual(xattr(m.path(path), "user.albumfs.time_zone"), zone + " (the place's)", path)
        }
        XCTAssertNil(xattr(m.path(day + "2022-04-11/atlantic.jpg"), "user.albumfs.time_zone"), "no city: no zone")
        XCTAssertEqual(xattr(m.path(day + "2022-04-11/atlantic.jpg"), "user.albumfs.capture_time"), "2022-04-11T10:00:00")
        XCTAssertNil(xattr(m.path("places/" + SampleLibrary.eiffelTowerPlace + "/IMG_5001.JPG"), "user.albumfs.time_zone"),
                     "its GPS fix gives its offset (-05:00: the phone's clock), which the place's zone does not replace")

        // One file: the by-date entry's inode and time; one more link for the place.
        let entry = try XCTUnwrap(statOf(m.path(kyoto)))
        let dated = try XCTUnwrap(statOf(m.path(day + "2022-04-05/kyoto.jpg")))
        XCTAssertEqual(entry.st_ino, dated.st_ino)
        XCTAssertEqual(entry.st_mtim.tv_sec, dated.st_mtim.tv_sec)
        XCTAssertEqual(entry.st_nlink, 4, "by-date, non-screenshots, by-camera, places")
        XCTAssertEqual(statOf(m.path("places/Japan/Kyoto/Kyoto"))?.st_mtim.tv_sec, dated.st_mtim.tv_sec, "a folder's mtime is its newest photo's")
        XCTAssertEqual(FileManager.default.contents(atPath: m.path(kyoto)), FileManager.default.contents(atPath: source.path + "/Travel/kyoto.jpg"))
        XCTAssertNotNil(statOf(m.path("thumbnails/200x200/kyoto.jpg")), "its thumbnail as every photo's")
        XCTAssertEqual(mkdir(m.path("places/Japan/Osaka"), 0o755), -1)
        XCTAssertEqual(errno, EROFS, "read-only")
    }

    /// A photo copied in shows in its city within the live-update bound, a new city's folder
    /// with it; a pick from `places/` is a pick of the photo.
    func testAPhotoCopiedInShowsInItsCityAndPicksWorkFromPlaces() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        var exif = SampleExif.camera("SONY", "ILCE-7M4", "2022:04:20 10:00:00")
        exif.position = (48.856613, 2.352222)
        let staged = source.path + "/.staged.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: staged, contents: Data(SampleJPEG.insertingAPP1(exif.payload(),
                                                                                                             into: try SampleJPEG.jpeg(.marker(width: 48, height: 32))))))
        XCTAssertEqual(exiftoolPosition(staged), "48.856613, 2.352222")
        XCTAssertEqual(rename(staged, source.path + "/Travel/louvre.jpg"), 0)
        let start = Date()
        let paris = "places/France/Île-de-France Region/Paris"
        XCTAssertTrue(eventually(5) { readdirNames(m.path(paris)) == ["louvre.jpg"] }, "\(readdirNames(m.path(paris)) ?? [])")
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5, "within the live-update bound")
        XCTAssertEqual(readdirNames(m.path("places/France/Île-de-France Region")), ["Neuilly-sur-Seine", "Paris"])
        XCTAssertEqual(xattr(m.path(paris + "/louvre.jpg"), "user.albumfs.place"), "Paris, Île-de-France Region, France (48.856613, 2.352222)")

        XCTAssertEqual(symlink("../" + paris + "/louvre.jpg", m.path("picked/louvre.jpg")), 0, "a pick from places/: \(errno)")
        XCTAssertTrue(eventually { readdirNames(m.path("picked")) == ["louvre.jpg"] })
        XCTAssertEqual(statOf(m.path("picked/louvre.jpg"))?.st_ino, statOf(m.path(paris + "/louvre.jpg"))?.st_ino, "the pick leads to the photo")

        // Removed, the city's folder goes with it.
        XCTAssertEqual(unlink(source.path + "/Travel/louvre.jpg"), 0)
        XCTAssertTrue(eventually(5) { readdirNames(m.path("places/France/Île-de-France Region")) == ["Neuilly-sur-Seine"] })
    }

    /// A sidecar's position places a photo that has none of its own (an XMP sidecar's, Takeout's
    /// `geoData`); a JPEG's own position beats its sidecar's. exiftool reads each position.
    func testSidecarsPositionsPlaceTheirPhotos() throws {
        let folder = source.path + "/Sidecars"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        func jpeg(_ date: String, _ position: (Double, Double)?) throws -> Data {
            var exif = SampleExif.camera("Canon", "Canon EOS R5", ExifTime(date))
            exif.position = position
            return Data(SampleJPEG.insertingAPP1(exif.payload(), into: try SampleJPEG.jpeg(.marker(width: 48, height: 32))))
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/xmp.jpg", contents: try jpeg("2022:05:01 12:00:00", nil)))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/xmp.jpg.xmp",
                                                     contents: Data(SidecarWriter.xmp(latitude: 35.0116, longitude: 135.7681).utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/takeout.jpg", contents: try jpeg("2022:05:02 12:00:00", nil)))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/takeout.jpg.json", contents: Data(SidecarWriter.takeout(
            title: "takeout.jpg", takenTime: 1_651_456_800, latitude: -33.8568, longitude: 151.2153).utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/both.jpg", contents: try jpeg("2022:05:03 12:00:00", (45.764, 4.8357))))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/both.jpg.xmp",
                                                     contents: Data(SidecarWriter.xmp(latitude: 35.0116, longitude: 135.7681).utf8)))
        XCTAssertEqual(exiftoolPosition(folder + "/xmp.jpg.xmp"), "35.011600, 135.768100")
        XCTAssertEqual(exiftoolPosition(folder + "/both.jpg"), "45.764000, 4.835700")
        let m = try Mount(source: source.path)
        defer { m.finish() }
        let listed = listedByPlace(m)
        XCTAssertEqual(listed["Sidecars/xmp.jpg"]?.map(\.place), ["Japan/Kyoto/Kyoto"])
        XCTAssertEqual(listed["Sidecars/takeout.jpg"]?.map(\.place), ["Australia/New South Wales/Sydney"])
        XCTAssertEqual(listed["Sidecars/both.jpg"]?.map(\.place), ["France/Auvergne-Rhône-Alpes/Lyon"], "a JPEG's own position first")
        XCTAssertEqual(readdirNames(m.path("places/Japan/Kyoto/Kyoto")), ["xmp.jpg", "kyoto.jpg"], "newest first")
        XCTAssertEqual(xattr(m.path("places/Japan/Kyoto/Kyoto/xmp.jpg"), "user.albumfs.place")?.hasPrefix("Kyoto, Kyoto, Japan (35.0116"), true)
        // Takeout's instant (2022-05-02T02:00:00Z) on its place's day and offset.
        XCTAssertEqual(xattr(m.path("places/Australia/New South Wales/Sydney/takeout.jpg"), "user.albumfs.capture_time"),
                       "2022-05-02T12:00:00+10:00")
    }

    /// Where libgeonames cannot be loaded (a broken `libgeonames.so.0` found first through
    /// `LD_LIBRARY_PATH`), photos are in no place, their attribute says why with their position,
    /// and they are dated and listed as ever.
    func testWithoutLibgeonamesPhotosAreInNoPlaceAndSayWhy() throws {
        let libraries = makeTempFolder("libs")
        defer { try? FileManager.default.removeItem(atPath: libraries) }
        XCTAssertTrue(FileManager.default.createFile(atPath: libraries + "/libgeonames.so.0", contents: Data("not a library".utf8)))
        let m = try Mount(source: source.path, launcher: ["/usr/bin/env", "LD_LIBRARY_PATH=" + libraries])
        defer { m.finish() }
        XCTAssertEqual(readdirNames(m.path("places")), [])
        let kyoto = m.path("by-date/2022/2022-04/2022-04-05/kyoto.jpg")
        let said = try XCTUnwrap(xattr(kyoto, "user.albumfs.place"))
        XCTAssertTrue(said.hasPrefix("no city known: ") && said.contains("libgeonames.so.0") && said.hasSuffix("(35.011600, 135.768100)"), said)
        XCTAssertEqual(xattr(kyoto, "user.albumfs.capture_time"), "2022-04-05T10:00:00", "no place, no zone")
        XCTAssertNil(xattr(kyoto, "user.albumfs.time_zone"))
    }

    /// `-o views=` hides `places/` as any view; listed, it is the view a full mount shows.
    func testTheViewsOptionHidesPlaces() throws {
        let m = try Mount(source: source.path, options: ["-o", "views=by-date,places"])
        XCTAssertEqual(readdirNames(m.mountpoint), ["by-date", "places", ".albumfs"])
        XCTAssertEqual(readdirNames(m.path("places/Japan/Kyoto/Kyoto")), ["kyoto.jpg"])
        XCTAssertEqual(statOf(m.path("places/Japan/Kyoto/Kyoto/kyoto.jpg"))?.st_nlink, 2, "by-date and places")
        m.finish()
        let hidden = try Mount(source: source.path, options: ["-o", "views=by-date,favorites"])
        defer { hidden.finish() }
        XCTAssertNil(statOf(hidden.path("places")))
        XCTAssertEqual(errno, ENOENT)
    }

    /// libgeonames (and the GLib it pulls) is loaded on first use: a library whose photos carry
    /// no position never maps it; one with positions does.
    func testALibraryWithoutPositionsNeverLoadsLibgeonames() throws {
        func mapsGeonames(_ m: Mount) -> Bool {
            let maps = (try? String(contentsOfFile: "/proc/\(m.process.processIdentifier)/maps", encoding: .utf8)) ?? ""
            XCTAssertFalse(maps.isEmpty, "the daemon's maps are readable")
            return maps.contains("libgeonames")
        }
        let plain = makeTempFolder("noplace")
        defer { try? FileManager.default.removeItem(atPath: plain) }
        for (i, date) in ["2024:06:01 10:00:00", "2024:06:02 10:00:00"].enumerated() {
            let bytes = SampleJPEG.insertingAPP1(SampleExif.camera("Canon", "Canon EOS R5", ExifTime(date)).payload(),
                                               into: try SampleJPEG.jpeg(.marker(width: 48, height: 32)))
            XCTAssertTrue(FileManager.default.createFile(atPath: plain + "/IMG_\(i).JPG", contents: Data(bytes)))
        }
        XCTAssertEqual(exiftoolPosition(plain + "/IMG_0.JPG"), "none")
        let m = try Mount(source: plain)
        XCTAssertEqual(readdirNames(m.path("non-screenshots"))?.count, 2, "scanned")
        XCTAssertEqual(readdirNames(m.path("places")), [], "no place")
        XCTAssertNil(xattr(m.path("non-screenshots/IMG_0.JPG"), "user.albumfs.place"))
        XCTAssertFalse(mapsGeonames(m), "a library without positions never loads libgeonames")
        m.finish()
        let placed = try Mount(source: source.path)
        defer { placed.finish() }
        XCTAssertNotNil(readdirNames(placed.path("places/Japan")))
        XCTAssertTrue(mapsGeonames(placed), "the sample's positions load it")
    }
}
