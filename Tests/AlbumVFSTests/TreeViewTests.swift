import AlbumCore
@testable import AlbumVFS
import Foundation
import Glibc
import XCTest

/// The published tree answers names, attributes, listings and xattrs from its value alone: no
/// folder on disk, no thumbnail service, no waiting.
final class TreeViewTests: XCTestCase {
    let box = ThumbnailBox.default
    let presentation = TreePresentation(owner: Owner(uid: 7, gid: 8), sourceRoot: "/nowhere/library",
                                        thumbnailSizes: [.default: 12_345], wholeSecondMtimes: false)

    func photo(_ path: String, seconds: Int64, size: Int64) -> Photo {
        let time = CaptureTime(local: Timestamp(seconds: seconds).local(offsetSeconds: 0), utcOffsetSeconds: 0)
        return Photo(relativePath: path, format: .jpeg, identity: FileIdentity(inode: UInt64(seconds), size: size, mtime: Timestamp(seconds: 0)),
                     decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                               captureInstant: Timestamp(seconds: seconds, nanoseconds: 250_000_000),
                                               screenshot: ScreenshotDecision(isScreenshot: false, reason: "t")))
    }

    /// A tree of three photos with thumbnails and `.albumfs/`, nothing hidden.
    func tree(wholeSeconds: Bool = false) -> TreeView {
        let photos = [photo("a.jpg", seconds: 3_000, size: 40), photo("b.jpg", seconds: 2_000, size: 20), photo("c.jpg", seconds: 1_000, size: 10)]
        let library = LibraryViews.build(photos: photos,
                                         ViewSettings(thumbnailBoxes: [box], withStatus: true, emptyMtime: Timestamp(seconds: 0)))
        let shown = TreePresentation(owner: presentation.owner, sourceRoot: presentation.sourceRoot,
                                     thumbnailSizes: presentation.thumbnailSizes, wholeSecondMtimes: wholeSeconds)
        return TreeView(library: library, table: NodeTable(library: library, inodes: InodeAllocator()), presentation: shown)
    }

    func node(_ view: TreeView, _ path: String) throws -> Node {
        var current = NodeTable.rootInode
        for part in path.split(separator: "/") { current = try view.lookup(parent: current, name: String(part)).get().inode }
        return try XCTUnwrap(view.node(current))
    }

    func names(_ view: TreeView, _ path: String) throws -> [String] {
        let folder = try XCTUnwrap(view.table.folders[try node(view, path).inode])
        let listing = view.listing(folder)
        return (0..<listing.count).map { listing[$0].name }
    }

    func testLookupAnswersNamesAndErrnoFromTheTree() throws {
        let view = tree()
        let thumbnails = try node(view, "thumbnails/200x200")
        XCTAssertEqual(try view.lookup(parent: thumbnails.inode, name: ".").get().inode, thumbnails.inode)
        XCTAssertEqual(try view.lookup(parent: thumbnails.inode, name: "..").get().inode, try node(view, "thumbnails").inode)
        XCTAssertEqual(view.lookup(parent: thumbnails.inode, name: "z.jpg").failure, .notFound)
        XCTAssertEqual(view.lookup(parent: try node(view, "thumbnails/200x200/a.jpg").inode, name: "x").failure, .notDirectory)
        XCTAssertEqual(view.lookup(parent: thumbnails.inode, name: String(repeating: "x", count: 256)).failure, .nameTooLong)
        XCTAssertEqual(view.lookup(parent: 999_999, name: "a.jpg").failure, .notFound)
    }

    func testAttributesComeFromThePhotoAndThePresentation() throws {
        let view = tree()
        let original = view.attributes(try node(view, "non-screenshots/a.jpg"))
        XCTAssertEqual(original.size, 40)
        XCTAssertEqual(original.kind, .regular)
        XCTAssertEqual(original.mtime, Timestamp(seconds: 3_000, nanoseconds: 250_000_000))
        let thumbnail = view.attributes(try node(view, "thumbnails/200x200/b.jpg"))
        XCTAssertEqual(thumbnail.size, 12_345, "the box's exact size, known before any render")
        XCTAssertEqual(thumbnail.permissions, 0o444)
        XCTAssertEqual(view.attributes(try node(view, ".albumfs/status")) { $0 == .status ? 77 : 0 }.size, 77, "a text's size is made at the look")
        XCTAssertEqual(view.attributes(try node(view, ".albumfs/status")).permissions, 0o400)
        let folder = view.attributes(try node(view, "thumbnails"))
        XCTAssertEqual(folder.kind, .directory)
        XCTAssertEqual(folder.permissions, 0o555)
        XCTAssertEqual(folder.linkCount, 3, "two links and its one subfolder's")
        let whole = tree(wholeSeconds: true)
        XCTAssertEqual(whole.attributes(try node(whole, "non-screenshots/a.jpg")).mtime, Timestamp(seconds: 3_000), "desktop thumbnails: whole seconds")
    }

    /// A hidden thumbnail is gone from its listing, its lookup and its inode, in this value only;
    /// the photo's original and its other views stay.
    func testHiddenThumbnailsAreLeftOutOfTheTreeTheyArePublishedWith() throws {
        let view = tree()
        XCTAssertEqual(try names(view, "thumbnails/200x200"), [".", "..", "a.jpg", "b.jpg", "c.jpg"])
        let b = try XCTUnwrap(view.table.photo(source: "b.jpg"))
        let thumbnailB = try node(view, "thumbnails/200x200/b.jpg")
        let hidden = view.hiding([b])
        XCTAssertEqual(hidden.hiddenVersion, view.hiddenVersion + 1)
        XCTAssertEqual(try names(hidden, "thumbnails/200x200"), [".", "..", "a.jpg", "c.jpg"])
        XCTAssertEqual(hidden.lookup(parent: thumbnailB.parent, name: "b.jpg").failure, .notFound)
        XCTAssertNil(hidden.node(thumbnailB.inode))
        XCTAssertTrue(hidden.isHidden(thumbnailB))
        XCTAssertEqual(try hidden.lookup(parent: try node(hidden, "non-screenshots").inode, name: "b.jpg").get().inode,
                       try node(view, "non-screenshots/b.jpg").inode, "the original stays")
        XCTAssertEqual(try names(view, "thumbnails/200x200"), [".", "..", "a.jpg", "b.jpg", "c.jpg"], "the tree published before is unchanged")
        XCTAssertEqual(hidden.hiding([]).hiddenVersion, view.hiddenVersion + 2)
        XCTAssertEqual(try names(hidden.hiding([]), "thumbnails/200x200"), [".", "..", "a.jpg", "b.jpg", "c.jpg"])
    }

    func testExtendedAttributesNameThePhotoAndNothingElse() throws {
        let view = tree()
        let list = Dictionary(view.extendedAttributes(try node(view, "thumbnails/200x200/c.jpg")), uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(list["user.albumfs.source"], "/nowhere/library/c.jpg")
        XCTAssertEqual(list["user.albumfs.format"], "jpeg")
        XCTAssertTrue(view.extendedAttributes(try node(view, "thumbnails")).isEmpty)
        XCTAssertTrue(view.extendedAttributes(try node(view, ".albumfs/status")).isEmpty)
        XCTAssertEqual(view.photo(inode: try node(view, "non-screenshots/c.jpg").inode)?.relativePath, "c.jpg")
    }
}
