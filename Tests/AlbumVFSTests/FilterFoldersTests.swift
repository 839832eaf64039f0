import AlbumCore
@testable import AlbumVFS
import Foundation
import XCTest

/// `filter/` in the filesystem layer: folders found on lookup, the flat views' inodes, built
/// again after a tree change, wrong names noted once, probes not at all, a bounded cache.
extension AlbumFileSystemTests {
    func listing(_ inode: UInt64) throws -> [String] {
        let h = try fs.openDirectory(inode).get()
        defer { fs.releaseDirectory(h) }
        return try fs.readDirectory(h, from: 0).get().map(\.name).filter { $0 != "." && $0 != ".." }
    }

    func testFilterFoldersAreFoundOnLookupWithTheFlatViewsInodes() throws {
        XCTAssertEqual(try listing(ino("filter")), ["README.txt"])
        XCTAssertEqual(try listing(ino("filter/images")), ["a.jpg", "b.png"])
        XCTAssertEqual(try listing(ino("filter/any(images,not(screenshots))")), ["a.jpg", "b.png"])
        XCTAssertEqual(try listing(ino("filter/not(screenshots)")), ["a.jpg"])
        XCTAssertEqual(try listing(ino("filter/images/screenshots")), ["b.png"])
        XCTAssertEqual(ino("filter/images/a.jpg"), ino("non-screenshots/a.jpg"))
        XCTAssertEqual(ino("filter/images/b.png"), ino("screenshots/b.png"))
        let folder = try fs.attributes(of: ino("filter/images")).get()
        XCTAssertEqual(folder.kind, .directory)
        XCTAssertEqual(folder.mtime, Timestamp(seconds: 2_000), "its newest photo's time")
        XCTAssertEqual(try fs.lookup(parent: ino("filter/images"), name: "..").get().inode, ino("filter"))
        XCTAssertEqual(ino("filter/images"), ino("filter/images"), "the same folder, the same inode")
        let readme = try fs.attributes(of: ino("filter/README.txt")).get()
        XCTAssertEqual(readme.size, Int64(FilterReadme.bytes.count))
        XCTAssertEqual(readme.permissions, 0o444)
    }

    func testAFilterFolderIsBuiltAgainForANewTree() throws {
        let images = ino("filter/images")
        XCTAssertEqual(try listing(images), ["a.jpg", "b.png"])
        let changes = fs.update(LibraryViews.build(photos: [photo("c.jpg", seconds: 3_000, size: 1), photo("a.jpg", seconds: 2_000, size: 4)],
                                                   ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        XCTAssertTrue(changes.changedInodes.contains(images), "the kernel drops what it holds of it")
        XCTAssertTrue(changes.removedEntries.contains { $0.parent == images && $0.name == "b.png" }, "and the entry gone from it")
        XCTAssertEqual(try fs.attributes(of: images).get().mtime, Timestamp(seconds: 3_000))
        XCTAssertEqual(try listing(images), ["c.jpg", "a.jpg"])
        XCTAssertEqual(ino("filter/images"), images)
    }

    func testAWrongNameIsNotFoundAndNotedOnceAndAProbeIsNot() throws {
        let filter = ino("filter")
        for name in ["favourites", "favourites", ".hidden", "desktop.ini", ".Trash-0", "autorun.inf"] {
            XCTAssertEqual(fs.lookup(parent: filter, name: name).failure, .notFound, name)
        }
        XCTAssertEqual(fs.lookup(parent: ino("filter/images"), name: "rating>=9").failure, .notFound)
        XCTAssertEqual(fs.filterErrors.map(\.path), ["filter/favourites", "filter/images/rating>=9"])
        XCTAssertEqual(fs.filterErrors.map(\.message), ["no term \"favourites\" (did you mean \"favorites\"?)",
                                                         "rating takes a number from -1 to 5, or a range such as 4.., not \"9\""])
        XCTAssertEqual(fs.attributes(of: 987_654_321).failure, .notFound)
    }

    func testFilterFoldersKeptAreBounded() throws {
        let filter = ino("filter")
        let first = try fs.lookup(parent: filter, name: "folder=x0").get().inode
        for k in 1..<(FilterFolders.maxFolders + 10) {
            XCTAssertNoThrow(try fs.lookup(parent: filter, name: "folder=x\(k)").get())
        }
        XCTAssertEqual(fs.filters.inodes.count, FilterFolders.maxFolders)
        // The one used last is kept; the first ones went.
        let last = try fs.lookup(parent: filter, name: "folder=x\(FilterFolders.maxFolders + 9)").get().inode
        XCTAssertTrue(fs.filters.inodes.contains(last))
        XCTAssertEqual(fs.attributes(of: first).failure, .notFound, "the one used longest ago went")
        XCTAssertEqual(fs.filters.inodes.count, FilterFolders.maxFolders)
    }

    /// Past their bound in entries, the folders used longest ago drop what they hold and are
    /// built again, the same, when next asked for.
    func testBuiltFoldersStayWithinTheirEntries() throws {
        let library = fs.library
        let folders = FilterFolders(maxEntries: 3)
        _ = folders.libraryChanged(library)
        let images = try FilterSyntax.parse("images").flatMap(FilterTerms.compile).get()
        let stills = try FilterSyntax.parse("any(images,videos)").flatMap(FilterTerms.compile).get()
        XCTAssertEqual(folders.found(100, parent: 1, name: "images", path: "filter/images", predicate: images, library)?.folder?.count, 2)
        XCTAssertEqual(folders.builtEntries, 2)
        XCTAssertEqual(folders.found(200, parent: 1, name: "b", path: "filter/b", predicate: stills, library)?.folder?.count, 2)
        XCTAssertEqual(folders.builtEntries, 2, "the first one's entries went")
        let again = try XCTUnwrap(folders.folder(100, library)?.folder)
        XCTAssertEqual(again.children.map(\.name), ["a.jpg", "b.png"])
        XCTAssertEqual(folders.builtEntries, 2)
    }

    /// A mount numbers at most `maxNumbered` filter folders in its life (a number is kept once
    /// given): past it a new expression is not found and says why, one already numbered still is.
    func testNewFolderNumbersAreBoundedAndSaidSo() {
        let folders = FilterFolders(maxNumbered: 3)
        for k in 1...3 { XCTAssertTrue(folders.admit(path: "filter/folder=x\(k)"), "\(k)") }
        XCTAssertFalse(folders.admit(path: "filter/folder=x4"), "past the bound")
        XCTAssertTrue(folders.admit(path: "filter/folder=x2"), "one numbered already")
        XCTAssertEqual(folders.errors.map(\.path), ["filter/folder=x4"])
        XCTAssertEqual(folders.errors.first?.message, "more than 3 filter folders were asked for since the mount; remount to ask for others")
    }
}
