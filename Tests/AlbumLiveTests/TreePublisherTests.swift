import Foundation
@testable import AlbumLive
import XCTest
import AlbumMetadata

/// `TreePublisher.passedOver`: what a rescan's walk passed over replaces what was known of
/// the folders it listed only.
final class TreePublisherTests: XCTestCase {
    func file(_ path: String, _ reason: NotShownReason = .hiddenFile) -> NotShownFile { NotShownFile(path: path, reason: reason) }

    func paths(_ files: [NotShownFile]) -> [String] { files.map(\.path).sorted() }

    func testAWalkReplacesWhatItsListedFoldersHeldAndNothingElse() {
        let known = [file("a/.x"), file("a/b/.y"), file("c/.z"), file(".top")]
        // A rescan of `a` that found `a/.new` and no longer `a/.x` nor `a/b/.y`.
        XCTAssertEqual(paths(TreePublisher.passedOver(known, found: [file("a/.new")], under: "a", unchangedFolders: [], unlisted: [])),
                       [".top", "a/.new", "c/.z"])
        // The same whose walk took `a/b` as it was: its entry stays.
        XCTAssertEqual(paths(TreePublisher.passedOver(known, found: [file("a/.new")], under: "a", unchangedFolders: ["a/b"], unlisted: [])),
                       [".top", "a/.new", "a/b/.y", "c/.z"])
        // A whole walk that took every folder as it was keeps everything.
        XCTAssertEqual(paths(TreePublisher.passedOver(known, found: [], under: "", unchangedFolders: ["", "a", "a/b", "c"], unlisted: [])),
                       paths(known))
    }

    func testAFolderThatCouldNotBeListedKeepsItsEntriesOnce() {
        let known = [file("a/.x"), file("a/b/.y")]
        // `a/b` could not be listed (part way: `.y` found again): kept, not doubled; `a` was listed.
        XCTAssertEqual(paths(TreePublisher.passedOver(known, found: [file("a/b/.y")], under: "", unchangedFolders: [], unlisted: ["a/b"])),
                       ["a/b/.y"])
        // The library itself unavailable: everything kept.
        XCTAssertEqual(paths(TreePublisher.passedOver(known, found: [], under: "", unchangedFolders: [], unlisted: [""])), paths(known))
    }
}
