import AlbumCore
import AlbumSample
import Foundation
import Glibc
import XCTest

/// `filter/EXPRESSION/…/`: folders found by name (docs/filters.md), listing the flat views'
/// files (the same inodes as `by-date/`), newest first; a wrong name is ENOENT with its line in
/// `.albumfs/errors`.
final class FilterTests: SampleLibraryTestCase {
    /// Every file of `by-date/`: inode → (name, mtime).
    func byDateFiles(_ m: Mount) -> [ino_t: (name: String, mtime: Int)] {
        var out: [ino_t: (String, Int)] = [:]
        let root = m.path("by-date")
        let walker = FileManager.default.enumerator(atPath: root)
        while let relative = walker?.nextObject() as? String {
            guard let st = statOf(root + "/" + relative), st.st_mode & S_IFMT == S_IFREG else { continue }
            out[st.st_ino] = (String(relative.split(separator: "/").last!), st.st_mtim.tv_sec)
        }
        return out
    }

    /// The seed case: `any(images,not(screenshots))` lists every still and every video of the
    /// flat views, each the by-date file (inode and name), newest first.
    func testTheSeedCaseListsTheFlatViewsFilesNewestFirstWithByDateInodes() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        XCTAssertEqual(readdirNames(m.path("filter")), ["README.txt"], "filter folders are found, not listed")
        let seed = "filter/any(images,not(screenshots))"
        let names = try XCTUnwrap(readdirNames(m.path(seed)))
        let flat = try ["screenshots", "non-screenshots", "videos"].flatMap { try XCTUnwrap(readdirNames(m.path($0))) }
        XCTAssertEqual(Set(names), Set(flat))
        XCTAssertEqual(names.count, flat.count)
        XCTAssertGreaterThan(names.count, 10, "the sample has photos of every kind")
        let dated = byDateFiles(m)
        var last = Int.max
        for name in names {
            let st = try XCTUnwrap(statOf(m.path(seed + "/" + name)), name)
            let inDate = try XCTUnwrap(dated[st.st_ino], "\(name)'s inode is a by-date file's")
            XCTAssertEqual(inDate.name, name)
            XCTAssertEqual(inDate.mtime, st.st_mtim.tv_sec)
            XCTAssertLessThanOrEqual(st.st_mtim.tv_sec, last, "newest first: \(name)")
            last = st.st_mtim.tv_sec
        }
        // Its form a shell takes unquoted is the same folder.
        XCTAssertEqual(readdirNames(m.path("filter/images+not-screenshots")), names)
        XCTAssertEqual(statOf(m.path("filter/images+not-screenshots/" + names[0]))?.st_ino, statOf(m.path(seed + "/" + names[0]))?.st_ino)
        // The same expressions as the flat views list the same names in the same order.
        XCTAssertEqual(readdirNames(m.path("filter/screenshots")), readdirNames(m.path("screenshots")))
        XCTAssertEqual(readdirNames(m.path("filter/videos")), readdirNames(m.path("videos")))
        XCTAssertEqual(readdirNames(m.path("filter/all(images,not(screenshots))")), readdirNames(m.path("non-screenshots")))
    }

    /// A chain narrows: `filter/images/not(screenshots)/` is `non-screenshots/`, and a year below it
    /// is that year's part of it; a photo's bytes through the chain are its file's.
    func testAChainOfComponentsNarrows() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        let chain = "filter/images/not(screenshots)"
        let nonShots = try XCTUnwrap(readdirNames(m.path("non-screenshots")))
        XCTAssertEqual(readdirNames(m.path(chain)), nonShots)
        let years = try XCTUnwrap(readdirNames(m.path("by-date")))
        XCTAssertGreaterThan(years.count, 1)
        var seen = 0
        for year in years {
            let listed = try XCTUnwrap(readdirNames(m.path("\(chain)/year=\(year)")), year)
            let expected = nonShots.filter { name in
                (statOf(m.path("non-screenshots/" + name)).map { localYear($0.st_mtim.tv_sec) } ?? 0) == Int(year)
            }
            XCTAssertEqual(listed, expected, year)
            seen += listed.count
        }
        XCTAssertEqual(seen, nonShots.count, "every photo is in one year")
        let first = nonShots[0]
        XCTAssertEqual(FileManager.default.contents(atPath: m.path("\(chain)/\(first)")), FileManager.default.contents(atPath: m.path("non-screenshots/\(first)")))
        XCTAssertEqual(statOf(m.path("\(chain)/\(first)"))?.st_ino, statOf(m.path("non-screenshots/\(first)"))?.st_ino)
    }

    /// The year the daemon shows a photo in: its mtime in the local zone, as by-date/ names it.
    func localYear(_ seconds: Int) -> Int {
        var t = time_t(seconds), parts = tm()
        localtime_r(&t, &parts)
        return Int(parts.tm_year) + 1900
    }

    /// A wrong name is ENOENT and one line in `.albumfs/errors`, with what was meant; a file
    /// manager's probes are ENOENT without a line.
    func testAWrongExpressionIsNotFoundAndSaysWhyOnce() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        for wrong in ["filter/favourites", "filter/images/screenshot", "filter/any(images", "filter/rating>=9"] {
            XCTAssertNil(statOf(m.path(wrong)), wrong)
            XCTAssertEqual(errno, ENOENT, wrong)
        }
        for probe in [".hidden", ".directory", "desktop.ini", "autorun.inf", ".Trash-0", "Thumbs.db", "images/.hidden", "images/folder.jpg"] {
            XCTAssertNil(statOf(m.path("filter/" + probe)), probe)
            XCTAssertEqual(errno, ENOENT, probe)
        }
        _ = statOf(m.path("filter/favourites"))  // asked again: still one line
        let errors = try String(contentsOfFile: m.path(".albumfs/errors"), encoding: .utf8)
        let lines = errors.split(separator: "\n").filter { $0.hasPrefix("filter/") }
        XCTAssertEqual(lines, [
            "filter/favourites: no term \"favourites\" (did you mean \"favorites\"?)",
            "filter/images/screenshot: no term \"screenshot\" (did you mean \"screenshots\"?)",
            "filter/any(images: any( is not closed: a \")\" is missing",
            "filter/rating>=9: rating takes a number from -1 to 5, or a range such as 4.., not \"9\"",
        ])
    }

    /// A media type is a term: `filter/portraits/` lists what `media-types/portraits/` lists, and
    /// kinds combine as every term does.
    func testMediaTypesAreTermsListingWhatTheirFoldersList() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        for kind in MediaKind.allCases where kind != .bursts && kind != .livePhotos && kind != .raw {
            let folder = try XCTUnwrap(readdirNames(m.path("media-types/" + kind.name)), kind.name)
            XCTAssertEqual(readdirNames(m.path("filter/" + kind.name)), folder, kind.name)
        }
        let portraits = try XCTUnwrap(readdirNames(m.path("media-types/portraits")))
        let panoramas = try XCTUnwrap(readdirNames(m.path("media-types/panoramas")))
        XCTAssertFalse(portraits.isEmpty || panoramas.isEmpty, "the sample's portraits and panoramas")
        let either = try XCTUnwrap(readdirNames(m.path("filter/portraits+panoramas")))
        XCTAssertEqual(Set(either), Set(portraits + panoramas))
        XCTAssertEqual(readdirNames(m.path("filter/portraits/not-selfies")), portraits.filter { !(readdirNames(m.path("media-types/selfies")) ?? []).contains($0) })
        let burst = try XCTUnwrap(readdirNames(m.path("media-types/bursts")).flatMap(\.first))
        XCTAssertEqual(Set(readdirNames(m.path("filter/bursts")) ?? []), Set(readdirNames(m.path("media-types/bursts/" + burst)) ?? ["?"]))
        XCTAssertEqual(statOf(m.path("filter/portraits/" + portraits[0]))?.st_ino, statOf(m.path("media-types/portraits/" + portraits[0]))?.st_ino)
    }

    /// Places are terms: `city=`, `region=`, `country=` list what the `places/` folders list, and
    /// `place=` any of the three; they narrow as every term does.
    func testPlacesAreTermsListingWhatTheirFoldersList() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        let lyon = try XCTUnwrap(readdirNames(m.path("places/France/Auvergne-Rhône-Alpes/Lyon")))
        XCTAssertEqual(lyon.count, 2, "the sample's two photos in Lyon")
        XCTAssertEqual(readdirNames(m.path("filter/city=Lyon")), lyon)
        XCTAssertEqual(readdirNames(m.path("filter/city=lyon")), lyon, "ASCII case ignored")
        XCTAssertEqual(readdirNames(m.path("filter/place=Lyon")), lyon)
        let france = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: m.path("places/France")))
            .filter { $0.split(separator: "/").count == 3 }.map { String($0.split(separator: "/")[2]) }
        XCTAssertEqual(Set(readdirNames(m.path("filter/country=France")) ?? []), Set(france))
        XCTAssertGreaterThan(france.count, lyon.count, "Lyon and Paris' photos")
        XCTAssertEqual(readdirNames(m.path("filter/country=France/city=Lyon")), lyon)
        XCTAssertEqual(readdirNames(m.path("filter/city=Kyoto")), ["kyoto.jpg"])
        XCTAssertEqual(readdirNames(m.path("filter/city=Atlantis")), [], "a city no photo is in: an empty folder")
        XCTAssertEqual(statOf(m.path("filter/city=Lyon/" + lyon[0]))?.st_ino, statOf(m.path("places/France/Auvergne-Rhône-Alpes/Lyon/" + lyon[0]))?.st_ino)
    }

    /// `duplicates` is a term: the copies `duplicates/` lists, each once.
    func testDuplicatesIsATermListingTheCopies() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        let groups = try XCTUnwrap(readdirNames(m.path("duplicates")))
        XCTAssertFalse(groups.isEmpty, "the sample holds copies")
        var copies: [String: UInt] = [:]
        for group in groups where group != LibraryViews.similar {
            for name in try XCTUnwrap(readdirNames(m.path("duplicates/" + group))) {
                copies[xattr(m.path("duplicates/" + group + "/" + name), "user.albumfs.source") ?? name] = statOf(m.path("duplicates/" + group + "/" + name))?.st_ino
            }
        }
        XCTAssertFalse(copies.isEmpty, "duplicates/ lists copies outside similar/: \(groups)")
        let listed = try XCTUnwrap(readdirNames(m.path("filter/duplicates")))
        var found: [String: UInt] = [:]
        for name in listed { found[xattr(m.path("filter/duplicates/" + name), "user.albumfs.source") ?? name] = statOf(m.path("filter/duplicates/" + name))?.st_ino }
        XCTAssertEqual(found, copies, "every copy, the same file")
        let screenshots = try XCTUnwrap(readdirNames(m.path("filter/duplicates/screenshots")), "filter/duplicates/screenshots is a folder")
        XCTAssertTrue(Set(screenshots).isSubset(of: Set(listed)), "\(screenshots) within \(listed)")
    }

    /// `filter/README.txt` is `FilterReadme`'s text, and each example it gives is a folder.
    func testReadmeHoldsItsTextAndEveryExampleIsAFolder() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: m.path("filter/README.txt")))
        XCTAssertEqual([UInt8](bytes), FilterReadme.bytes)
        XCTAssertEqual(statOf(m.path("filter/README.txt")).map { Int($0.st_size) }, FilterReadme.bytes.count)
        XCTAssertEqual(statOf(m.path("filter/README.txt")).map { $0.st_mode & 0o777 }, 0o444)
        let text = String(decoding: bytes, as: UTF8.self)
        for (path, _) in FilterReadme.examples {
            XCTAssertTrue(text.contains(path), path)
            let st = statOf(m.path(path))
            XCTAssertEqual(st.map { $0.st_mode & S_IFMT }, S_IFDIR, path)
        }
    }

    /// A photo copied into SOURCE shows in a filter folder listed before, within the live-update bound.
    func testAFilterFolderFollowsALiveChange() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        let folder = m.path("filter/favorites/year=2024")
        let before = try XCTUnwrap(readdirNames(folder))
        let staged = source.path + "/.staged.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: staged, contents: Data(try FavoritesTests.jpeg("2024:06:05 10:00:00", xmp: "5", exif: nil))))
        let rating = runCommand("/usr/bin/env", ["exiftool", "-s3", "-XMP:Rating", "-DateTimeOriginal", staged]).stdout
        XCTAssertEqual(rating, "5\n2024:06:05 10:00:00\n", "exiftool reads the fixture's rating and date")
        XCTAssertEqual(rename(staged, source.path + "/NEWFAV.JPG"), 0)
        let start = Date()
        XCTAssertTrue(eventually(5) { readdirNames(folder).map { $0.contains("NEWFAV.JPG") } == true }, "\(readdirNames(folder) ?? [])")
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5, "within the live-update bound")
        let after = try XCTUnwrap(readdirNames(folder))
        XCTAssertEqual(Set(after), Set(before + ["NEWFAV.JPG"]))
    }

    /// `ln -s` from a filter folder into `picked/` picks the photo: the link points at its by-date file.
    func testAPickFromAFilterFolder() throws {
        let m = try Mount(source: source.path)
        defer { m.finish() }
        let folder = "filter/all(images,not(screenshots))"
        let name = try XCTUnwrap(readdirNames(m.path(folder))?.first)
        XCTAssertEqual(symlink("../\(folder)/\(name)", m.path("picked/" + name)), 0, String(cString: strerror(errno)))
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: m.path("picked/" + name))
        XCTAssertTrue(target.hasPrefix("../by-date/"), target)
        XCTAssertEqual(statOf(m.path("picked/" + name))?.st_ino, statOf(m.path("\(folder)/\(name)"))?.st_ino)
        XCTAssertEqual(readdirNames(m.path("picked")), [name])
        XCTAssertNotEqual(symlink("../filter/favourites/\(name)", m.path("picked/other")), 0, "a wrong expression names no photo")
    }
}
