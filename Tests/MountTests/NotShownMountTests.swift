import AlbumCore
import AlbumSample
import Foundation
import Glibc
import XCTest

/// `.albumfs/not-shown`: every file under SOURCE that no view shows is named with its reason,
/// counted by reason in the status, and the list follows the library live.
final class NotShownMountTests: SampleLibraryTestCase {
    /// Files no view shows, written beside the sample library's: headers as the formats' own
    /// specifications begin them (enough for `file(1)`), and the sample's sound-only movie.
    func addFilesNotShown() throws {
        let files: [(String, [UInt8])] = [
            ("Documents/invoice.pdf", Array("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".utf8)),
            // A WebP, which is shown: RIFF, its length, WEBP, a VP8L chunk of a 1x1 image.
            ("Android/IMG-20240101-WA0001.webp", Array("RIFF".utf8) + [0x1A, 0, 0, 0] + Array("WEBPVP8L".utf8)
                + [0x0D, 0, 0, 0, 0x2F, 0, 0, 0, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xFE, 0x07, 0x00]),
            // A 1x1 GIF89a, which is shown: header, screen, a two-colour table, the image, its LZW data, the end.
            ("Downloads/party.gif", Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF,
                                                                0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0, 0x3B]),
            // Little-endian TIFF, which is shown (a damaged photo): its byte order, 42, the first
            // IFD at 8, holding no entry.
            ("Scans/page 1.tif", Array("II".utf8) + [42, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            // A Photoshop document: its signature, version 1.
            ("Design/poster.psd", Array("8BPS".utf8) + [0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 8, 0, 3]),
            ("Music/song.mp4", try SampleVideo.soundOnly()),
            ("DCIM/.DS_Store", Array("Bud1".utf8)),
        ]
        for (path, bytes) in files {
            let full = source.path + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: full, contents: Data(bytes)), path)
        }
        XCTAssertEqual(symlink("../DCIM/Camera", source.path + "/Trip/camera"), 0)
    }

    func notShown(_ m: Mount) -> [String] {
        ((try? String(contentsOfFile: m.path(".albumfs/not-shown"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Every kind of file not shown is named with its reason and counted, and the list is the
    /// whole of what the views leave out: each file under SOURCE is either the source of a photo
    /// shown or named (itself or a folder above it).
    func testEveryFileNotShownIsNamedWithItsReasonAndCounted() throws {
        try addFilesNotShown()
        let m = try Mount(source: source.path, options: ["-o", "heif=off"])
        let lines = notShown(m)
        for expected in [
            "Documents/invoice.pdf: document (pdf)",
            "Design/poster.psd: unsupported image format (psd)",
            "Music/voice.m4a: sound (m4a)",
            "Music/song.mp4: sound (mp4 with no video track)",
            "Edge/notes.txt: document (txt)",
            "DCIM/.DS_Store: hidden file (its name starts with a dot)",
            ".hidden: hidden folder (its name starts with a dot), not looked into",
            "@eaDir: NAS, recycle bin or system folder, not looked into",
            "Trip/camera: symbolic link, not followed",
            SampleLibrary.heicPath + ": HEIF image, hidden by -o heif=off",
        ] {
            XCTAssertTrue(lines.contains(expected), "\(expected) in\n\(lines.joined(separator: "\n"))")
        }
        // WebP, GIF and TIFF are photos: the WebP shown on the day its WhatsApp name says, not named here.
        XCTAssertFalse(lines.contains { $0.hasPrefix("Android/IMG-20240101-WA0001.webp") }, lines.joined(separator: "\n"))
        XCTAssertEqual(xattr(m.path("by-date/2024/2024-01/2024-01-01/IMG-20240101-WA0001.webp"), "user.albumfs.format"), "webp")
        XCTAssertFalse(lines.contains { $0.hasPrefix("Downloads/party.gif") }, "a GIF is a photo too")
        XCTAssertFalse(lines.contains { $0.hasPrefix("Scans/page 1.tif") }, "and a TIFF")
        XCTAssertEqual(lines, lines.sorted { $0.split(separator: ":")[0] < $1.split(separator: ":")[0] }, "sorted by path")

        let status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["not_shown"], String(lines.count))
        // (The sample's HEICs: the iPhone's and the HEIC Live Photo's still.)
        let heics = source.items.filter { $0.expectedDay != nil && $0.path.hasSuffix(".HEIC") }.count
        XCTAssertEqual(heics, 2, "the sample's HEICs")
        XCTAssertTrue(m.stderr.contains("; \(heics) HEIC/HEIF images not shown (-o heif=on shows them); \(lines.count) not shown in all (.albumfs/not-shown says why)\n"),
                      m.stderr)
        XCTAssertEqual(status["images_not_shown"], String(heics))
        let counts = status["not_shown_by_reason"] ?? ""
        let byReason = Dictionary(uniqueKeysWithValues: counts.split(separator: ", ").compactMap { pair -> (String, Int)? in
            let parts = pair.split(separator: " ")
            return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? -1) : nil
        })
        for (key, said, atLeast) in [("documents", ": document (", 2), ("sound", ": sound (", 2), ("image_formats_not_read", ": unsupported image format (", 1),
                                     ("hidden_by_option", ": HEIF image, hidden by -o heif=off", 1), ("hidden_files", ": hidden file (", 1),
                                     ("hidden_folders", ": hidden folder (", 1), ("system_folders", ": NAS, recycle bin or system folder", 1),
                                     ("links", ": symbolic link, not followed", 1)] {
            let lined = lines.filter { $0.contains(said) }.count
            XCTAssertGreaterThanOrEqual(lined, atLeast, key)
            XCTAssertEqual(byReason[key], lined, "\(key) in \(counts)")
        }
        let counted = counts.split(separator: ", ").compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
        XCTAssertEqual(counted, lines.count, counts)

        // Whole: every file under SOURCE is shown (the source of some photo) or named.
        let named = lines.compactMap { line -> String? in
            guard let colon = line.range(of: ": ") else { return nil }
            return String(line[..<colon.lowerBound])
        }
        var shown = Set<String>()
        for name in readdirNames(m.path("by-date")) ?? [] { collectSources(m, "by-date/" + name, into: &shown) }
        let everything = FileManager.default.enumerator(atPath: source.path)?.allObjects as? [String] ?? []
        XCTAssertFalse(shown.isEmpty, "the views name their sources")
        XCTAssertFalse(everything.isEmpty, "SOURCE was listed")
        for path in everything {
            var st = stat()
            guard lstat(source.path + "/" + path, &st) == 0, st.st_mode & S_IFMT != S_IFDIR else { continue }  // vacuous-ok: folders are neither shown nor named; files are
            let accounted = shown.contains(source.path + "/" + path) || named.contains { path == $0 || path.hasPrefix($0 + "/") }
            XCTAssertTrue(accounted, "\(path) is neither shown nor named")
        }
        m.finish()
    }

    /// The sources of the photos below `folder` of the mount (`user.albumfs.source`).
    func collectSources(_ m: Mount, _ folder: String, into shown: inout Set<String>) {
        for name in readdirNames(m.path(folder)) ?? [] {
            let rel = folder + "/" + name
            if let st = statOf(m.path(rel)), st.st_mode & S_IFMT == S_IFDIR {
                collectSources(m, rel, into: &shown)
            } else if let source = xattr(m.path(rel), "user.albumfs.source") {
                shown.insert(source)
            }
        }
    }

    /// A file not shown added or removed while mounted changes the list and the counts within
    /// the usual couple of seconds; so does a hidden file.
    func testTheListFollowsTheLibraryLive() throws {
        try addFilesNotShown()
        let m = try Mount(source: source.path)
        XCTAssertTrue(notShown(m).contains("Documents/invoice.pdf: document (pdf)"), "\(notShown(m))")
        let before = Int(daemonStatus(m.mountpoint)["not_shown"] ?? "") ?? -1
        XCTAssertEqual(unlink(source.path + "/Documents/invoice.pdf"), 0)
        XCTAssertTrue(eventually { !self.notShown(m).contains { $0.hasPrefix("Documents/invoice.pdf:") } }, "\(notShown(m))")
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["not_shown"] == String(before - 1) }, "\(daemonStatus(m.mountpoint))")
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Downloads/clip.mkv", contents: Data(repeating: 0x1A, count: 64)))
        XCTAssertTrue(eventually { self.notShown(m).contains("Downloads/clip.mkv: unsupported video format (mkv)") }, "\(notShown(m))")
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Downloads/.partial", contents: Data([1])))
        XCTAssertTrue(eventually { self.notShown(m).contains("Downloads/.partial: hidden file (its name starts with a dot)") }, "\(notShown(m))")
        XCTAssertEqual(unlink(source.path + "/DCIM/.DS_Store"), 0)
        XCTAssertTrue(eventually { !self.notShown(m).contains { $0.hasPrefix("DCIM/.DS_Store:") } }, "\(notShown(m))")
        // One file gone, two added, one gone.
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["not_shown"] == String(before) }, "\(daemonStatus(m.mountpoint))")
        m.finish()
    }

    /// A periodic rescan that takes folders as they were (their times unchanged) keeps naming what
    /// was passed over in them; one that lists a changed folder names what is new there.
    func testARescanOfUnchangedFoldersKeepsWhatWasPassedOverInThem() throws {
        try addFilesNotShown()
        let m = try Mount(source: source.path, options: ["-o", "max_watches=0,rescan=1"])
        let first = notShown(m)
        XCTAssertTrue(first.contains("DCIM/.DS_Store: hidden file (its name starts with a dot)"), "\(first)")
        XCTAssertTrue(first.contains("Trip/camera: symbolic link, not followed"), "\(first)")
        func listedNone() -> Bool { daemonStatus(m.mountpoint)["last_scan_folders"]?.hasPrefix("0 listed, ") ?? false }
        XCTAssertTrue(eventually(12) { listedNone() }, "\(daemonStatus(m.mountpoint))")
        XCTAssertEqual(notShown(m), first)
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Documents/.~lock.invoice.pdf#", contents: Data([1])))
        XCTAssertTrue(eventually(8) { self.notShown(m).contains("Documents/.~lock.invoice.pdf#: hidden file (its name starts with a dot)") },
                      "\(notShown(m))")
        XCTAssertEqual(Set(notShown(m)).subtracting(first), ["Documents/.~lock.invoice.pdf#: hidden file (its name starts with a dot)"])
        XCTAssertEqual(Set(first).subtracting(notShown(m)), [])
        m.finish(allowing: ["max_watches limit"])
    }

    /// A path is escaped as `.albumfs/errors` escapes it: one line per file, and no terminal
    /// escape sequence handed to `cat`. (Who may read it: HostileFileTests.)
    func testLinesAreEscapedAsErrorsLinesAre() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Edge/two\nlines\u{1B}[31m.txt", contents: Data([1])))
        let m = try Mount(source: source.path)
        let lines = notShown(m)
        XCTAssertTrue(lines.contains("Edge/two\\nlines\\033[31m.txt: document (txt)"), "\(lines)")
        XCTAssertFalse(lines.contains { $0.contains("\u{1B}") })
        m.finish()
    }
}
