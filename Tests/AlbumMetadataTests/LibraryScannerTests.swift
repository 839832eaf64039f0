import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

final class LibraryScannerTests: XCTestCase {
    func testScanOfTheSampleLibraryMatchesItsExpectations() throws {
        let folder = NSTemporaryDirectory() + "albumfs-scan-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let items = try SampleLibrary.write(to: folder)
        let rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: Int64(Date().timeIntervalSince1970))))
        let report = LibraryScanner(root: folder, rules: rules).scan()
        let byPath = Dictionary(uniqueKeysWithValues: report.photos.map { ($0.relativePath, $0) })
        for item in items {
            guard let day = item.expectedDay else {
                XCTAssertNil(byPath[item.path], "\(item.path) must not be a photo")
                continue
            }
            let p = try XCTUnwrap(byPath[item.path], item.path)
            XCTAssertEqual(p.capture.time.local.dayString, day, item.path)
            XCTAssertEqual(p.screenshot.isScreenshot, item.expectedScreenshot, "\(item.path): \(p.screenshot.reason)")
            XCTAssertEqual(p.capture.source, item.expectedDateSource, item.path)
        }
        XCTAssertEqual(report.photos.count, items.filter { $0.expectedDay != nil }.count, "links and hidden files add nothing")
        XCTAssertTrue(report.problems.contains { $0.relativePath == "Edge/corrupt-exif.jpg" })
    }

    func testSymlinksAreNeverFollowed() throws {
        let folder = NSTemporaryDirectory() + "albumfs-links-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder + "/a/b", withIntermediateDirectories: true)
        XCTAssertTrue(fm.createFile(atPath: folder + "/a/b/p.jpg", contents: Data(try Encoders.jpeg(.marker(width: 4, height: 4)))))
        try fm.createSymbolicLink(atPath: folder + "/a/b/loop", withDestinationPath: "../..")
        try fm.createSymbolicLink(atPath: folder + "/a/again.jpg", withDestinationPath: "b/p.jpg")
        try fm.createSymbolicLink(atPath: folder + "/etc", withDestinationPath: "/etc")
        let rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))
        let report = LibraryScanner(root: folder, rules: rules).scan()
        XCTAssertEqual(report.photos.map(\.relativePath), ["a/b/p.jpg"], "links are not followed: one photo, at its real path")
        // A rescan of one folder does not follow links either.
        let partial = LibraryScanner(root: folder, rules: rules).scan(under: "a/b", previous: [:])
        XCTAssertEqual(partial.files.map(\.relativePath), ["a/b/p.jpg"])
    }
}
