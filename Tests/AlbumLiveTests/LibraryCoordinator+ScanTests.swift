import Foundation
@testable import AlbumLive
import XCTest
import AlbumMetadata

/// When a scan shows what it found so far: gaps that grow with the scan, never under a second
/// nor under four times what a publish takes.
final class PublishPacingTests: XCTestCase {
    let start = Date(timeIntervalSince1970: 1_000_000)

    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    func testEachGapIsTwiceTheTimeBeforeIt() {
        var pacing = LibraryCoordinator.PublishPacing(started: start, now: start)
        var published: [Double] = []
        for tenth in 1...320 {
            let now = at(Double(tenth) / 10)
            if pacing.isDue(at: now, publishSeconds: 0.01) {
                published.append(Double(tenth) / 10)
                pacing.last = now
            }
        }
        // (Each gap twice the time from the start to the publish before it, to a tenth: 1, 3, 10,
        // 31 s.)
        XCTAssertEqual(published.count, 4, "\(published)")
        XCTAssertEqual(published.first ?? 0, 1.05, accuracy: 0.06, "\(published)")
        for (before, after) in zip(published, published.dropFirst()) {
            XCTAssertEqual(after - before, 2 * before + 0.05, accuracy: 0.06, "\(published)")
        }
    }

    func testASlowPublishWidensTheGap() {
        let pacing = LibraryCoordinator.PublishPacing(started: start, now: start)
        XCTAssertTrue(pacing.isDue(at: at(1.5), publishSeconds: 0.2))
        XCTAssertFalse(pacing.isDue(at: at(1.5), publishSeconds: 0.5), "4 publish times: 2 s")
        XCTAssertTrue(pacing.isDue(at: at(2.1), publishSeconds: 0.5))
    }

    func testAPublishLateInAScanWaitsTwiceAsLongAgain() {
        var pacing = LibraryCoordinator.PublishPacing(started: start, now: start)
        pacing.last = at(30)
        XCTAssertFalse(pacing.isDue(at: at(89), publishSeconds: 0.1))
        XCTAssertTrue(pacing.isDue(at: at(90.1), publishSeconds: 0.1))
    }
}

/// `LibraryCoordinator.passedOver`: what a rescan's walk passed over replaces what was known of
/// the folders it listed only.
final class PassedOverTests: XCTestCase {
    func file(_ path: String, _ reason: NotShownReason = .hiddenFile) -> NotShownFile { NotShownFile(path: path, reason: reason) }

    func paths(_ files: [NotShownFile]) -> [String] { files.map(\.path).sorted() }

    func testAWalkReplacesWhatItsListedFoldersHeldAndNothingElse() {
        let known = [file("a/.x"), file("a/b/.y"), file("c/.z"), file(".top")]
        // A rescan of `a` that found `a/.new` and no longer `a/.x` nor `a/b/.y`.
        XCTAssertEqual(paths(LibraryCoordinator.passedOver(known, found: [file("a/.new")], under: "a", unchangedFolders: [], unlisted: [])),
                       [".top", "a/.new", "c/.z"])
        // The same whose walk took `a/b` as it was: its entry stays.
        XCTAssertEqual(paths(LibraryCoordinator.passedOver(known, found: [file("a/.new")], under: "a", unchangedFolders: ["a/b"], unlisted: [])),
                       [".top", "a/.new", "a/b/.y", "c/.z"])
        // A whole walk that took every folder as it was keeps everything.
        XCTAssertEqual(paths(LibraryCoordinator.passedOver(known, found: [], under: "", unchangedFolders: ["", "a", "a/b", "c"], unlisted: [])),
                       paths(known))
    }

    func testAFolderThatCouldNotBeListedKeepsItsEntriesOnce() {
        let known = [file("a/.x"), file("a/b/.y")]
        // `a/b` could not be listed (part way: `.y` found again): kept, not doubled; `a` was listed.
        XCTAssertEqual(paths(LibraryCoordinator.passedOver(known, found: [file("a/b/.y")], under: "", unchangedFolders: [], unlisted: ["a/b"])),
                       ["a/b/.y"])
        // The library itself unavailable: everything kept.
        XCTAssertEqual(paths(LibraryCoordinator.passedOver(known, found: [], under: "", unchangedFolders: [], unlisted: [""])), paths(known))
    }
}
