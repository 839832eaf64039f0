import AlbumCore
import AlbumSystem
@testable import AlbumMetadata
import AlbumSample
import Foundation
import Glibc
import XCTest

final class NotShownTests: FolderTestCase {
    func testAFileReadAsNoPhotoIsToldByItsName() {
        let cases: [(String, NotShownReason, String)] = [
            ("Docs/a.PDF", .document, "document (pdf)"),
            ("notes.txt", .document, "document (txt)"),
            ("Music/voice.m4a", .sound, "sound (m4a)"),
            ("Music/song.mp4", .sound, "sound (mp4 with no video track)"),
            ("x/scan.bmp", .imageFormat, "unsupported image format (bmp)"),
            ("scan.BMP", .imageFormat, "unsupported image format (bmp)"),
            ("RAW/SDIM0001.X3F", .imageFormat, "unsupported image format (x3f)"),
            ("a.psd", .imageFormat, "unsupported image format (psd)"),
            ("clip.mkv", .videoFormat, "unsupported video format (mkv)"),
            ("IMG_1.JPG.xmp", .sidecar, "sidecar (xmp)"),
            ("Takeout/IMG_1.jpg.json", .sidecar, "sidecar (json)"),
            ("README", .other, "not a photo or video (no extension)"),
            ("data.bin", .other, "not a photo or video (bin)"),
            ("a.heic", .hiddenByOption, "HEIF image, hidden by -o heif=off"),
        ]
        for (path, reason, text) in cases {
            XCTAssertEqual(NotShownReason(ignoredFileNamed: path), reason, path)
            XCTAssertEqual(reason.text(for: path), text, path)
        }
    }

    func testTheScannerSaysWhyAFileReadIsNotShown() {
        let identity = FileIdentity(inode: 1, size: 1, mtime: Timestamp(seconds: 0))
        let dates = CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))
        let heifOff = LibraryScanner(root: folder, rules: ScanRules(dates: dates, formats: [.jpeg, .png, .video]))
        let heifOn = LibraryScanner(root: folder, rules: ScanRules(dates: dates))
        let heic = IndexedFile(relativePath: "a.heic", identity: identity, kind: .slimPhoto(.heif))
        XCTAssertEqual(heifOff.notShownReason(heic), .hiddenByOption)
        XCTAssertNil(heifOn.notShownReason(heic), "shown")
        XCTAssertNil(heifOff.notShownReason(IndexedFile(relativePath: "a.jpg", identity: identity, kind: .slimPhoto(.jpeg))))
        XCTAssertEqual(heifOn.notShownReason(IndexedFile(relativePath: "b.jpg", identity: identity, kind: .problem("not a JPEG, PNG or HEIF image"))),
                       .damaged)
        XCTAssertEqual(heifOn.notShownReason(IndexedFile(relativePath: "c.txt", identity: identity,
                                                         kind: .problem(ReadFailure.message(Errno(rawValue: EACCES))))), .unreadable)
        XCTAssertEqual(heifOn.notShownReason(IndexedFile(relativePath: "d.pdf", identity: identity, kind: .ignored)), .document)
    }

    func testLinesAreEscapedAndCountsSaidByReason() {
        let files = [NotShownFile(path: "a/x\ny.pdf", reason: .document), NotShownFile(path: ".t", reason: .hiddenFile),
                     NotShownFile(path: "b.mp3", reason: .sound), NotShownFile(path: "c.pdf", reason: .document)]
        XCTAssertEqual(files[0].line, "a/x\\ny.pdf: document (pdf)\n")
        XCTAssertEqual(NotShownFile.countsByReason(files), "documents 2, sound 1, hidden_files 1")
        XCTAssertEqual(NotShownFile.countsByReason([]), "none")
        XCTAssertEqual(Set(NotShownReason.allCases.map(\.key)).count, NotShownReason.allCases.count, "one key each")
    }

    /// What the walk passes over is named: hidden files and folders (not looked into), system
    /// folders, links, a hard link's second name, special files.
    func testTheWalkNamesWhatItPassesOver() throws {
        let fm = FileManager.default
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        try fm.createDirectory(atPath: folder + "/d/.thumbs", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: folder + "/@eaDir/x", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: folder + "/Lib.photoslibrary/originals", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: folder + "/Lib.photoslibrary/resources", withIntermediateDirectories: true)
        XCTAssertTrue(fm.createFile(atPath: folder + "/d/p.jpg", contents: jpeg))
        XCTAssertTrue(fm.createFile(atPath: folder + "/d/.thumbs/t.jpg", contents: jpeg))
        XCTAssertTrue(fm.createFile(atPath: folder + "/d/._p.jpg", contents: Data([0])))
        XCTAssertEqual(link(folder + "/d/p.jpg", folder + "/d/q.jpg"), 0)
        try fm.createSymbolicLink(atPath: folder + "/d/link.jpg", withDestinationPath: "p.jpg")
        XCTAssertEqual(mkfifo(folder + "/d/pipe", 0o600), 0)
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        for settled in [nil, Timestamp(seconds: 2_000_000_000)] {  // (without and with a stat of every file)
            let survey = scanner.survey(LibraryScanner.SurveyRequest(settledBefore: settled), previous: [:])
            let passed = Dictionary(uniqueKeysWithValues: survey.passedOver.map { ($0.path, $0.reason) })
            XCTAssertEqual(passed, ["d/.thumbs": .hiddenFolder, "d/._p.jpg": .hiddenFile, "@eaDir": .systemFolder, "d/link.jpg": .link,
                                    "d/q.jpg": .hardLink, "d/pipe": .notRegular, "Lib.photoslibrary/resources": .applePhotoLibraryFolder],
                           "settled before \(String(describing: settled))")
            XCTAssertEqual(survey.toRead.map(\.path), ["d/p.jpg"])
        }
    }
}
