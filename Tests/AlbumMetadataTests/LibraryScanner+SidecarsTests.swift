import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// A scan reads a photo with its sidecar, and reads it again when its sidecar is new, changed or
/// gone, and no other photo: the filesystem layer, without a mount.
final class LibraryScannerSidecarsTests: FolderTestCase {
    func write(_ name: String, _ text: String) {
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(text.utf8)), name)
    }

    func testASidecarNewChangedOrGoneMakesItsPhotoReadAgainAndNoOther() throws {
        for name in ["a.jpg", "b.jpg", "Sub/c.jpg"] {
            try FileManager.default.createDirectory(atPath: folder + "/Sub", withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(try SampleJPEG.jpeg(.marker(width: 16, height: 16)))))
        }
        write("a.jpg.xmp", SidecarWriter.xmp(dates: .init(dateCreated: "2021-03-04T05:06:07")))
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        var known: [String: IndexedFile] = [:]
        func scan() -> [String] {
            let survey = scanner.survey(previous: known)
            let found = Set(survey.reused.map(\.relativePath) + survey.toRead.map(\.path))
            known = known.filter { found.contains($0.key) }
            for file in scanner.read(survey.toRead) { known[file.relativePath] = file }
            return survey.toRead.map(\.path).sorted()
        }
        func source(_ path: String) -> String? { known[path].flatMap(scanner.photo(from:))?.capture.source.rawValue }

        XCTAssertEqual(scan(), ["Sub/c.jpg", "a.jpg", "a.jpg.xmp", "b.jpg"])
        XCTAssertEqual(source("a.jpg"), "xmp-sidecar:photoshop:DateCreated")
        XCTAssertEqual(scan(), [], "nothing changed, nothing read")

        write("a.jpg.xmp", SidecarWriter.xmp(dates: .init(dateCreated: "2022-05-06T07:08:09+02:00")))
        XCTAssertEqual(scan(), ["a.jpg", "a.jpg.xmp"], "changed: its photo read again, no other")
        XCTAssertEqual(known["a.jpg"].flatMap(scanner.photo(from:))?.capture.time.isoString, "2022-05-06T07:08:09+02:00")

        write("b.json", SidecarWriter.takeout(title: "b.jpg", takenTime: 1_262_347_200))
        XCTAssertEqual(scan(), ["b.jpg", "b.json"], "new: its photo read again")
        XCTAssertEqual(source("b.jpg"), "takeout:photoTakenTime")

        XCTAssertEqual(unlink(folder + "/a.jpg.xmp"), 0)
        XCTAssertEqual(scan(), ["a.jpg"], "gone: its photo read again")
        XCTAssertEqual(source("a.jpg"), "mtime")

        write("Sub/unrelated.json", "{}")
        XCTAssertEqual(scan(), ["Sub/unrelated.json"], "a JSON of no photo's name reads no photo")
    }
}
