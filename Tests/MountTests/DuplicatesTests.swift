import AlbumCore
import AlbumSample
import Foundation
import Glibc
import XCTest

/// `duplicates/`: files with the same bytes, one folder per group named after its newest copy,
/// every copy in it newest first, the by-date file; followed live; hashed once across remounts.
final class DuplicatesTests: SampleLibraryTestCase {
    var indexPath: String { state + "/index.sqlite" }

    func mount() throws -> Mount {
        try Mount(source: source.path, options: ["-o", "index=" + indexPath])
    }

    /// A camera JPEG of its own date, with `padding` zero bytes after its image (a file of a
    /// chosen size: viewers and exiftool ignore what follows the end of the image).
    static func camera(_ date: String, tint: UInt8, padding: Int = 0) throws -> Data {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 48, height: 32, tint: tint))
        return Data(SampleJPEG.insertingAPP1(SampleExif.camera("Canon", "EOS R6", ExifTime(date)).payload(), into: jpeg)) + Data(count: padding)
    }

    func write(_ data: Data, _ relativePath: String) {
        let path = source.path + "/" + relativePath
        try? FileManager.default.createDirectory(atPath: path.folderBeforeLastSlash, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: data), relativePath)
    }

    /// Three copies of one photo in three folders (two under one name), two of another padded
    /// past both partial-hash spans, and a file of their size and partial hash whose middle
    /// differs (so only its full hash tells it apart).
    func writeCopies() throws {
        let a = try Self.camera("2024:06:01 10:00:00", tint: 10)
        write(a, "Trip/A.JPG")
        write(a, "Backup/A.JPG")
        write(a, "Export/A-export.jpg")
        let padded = try Self.camera("2023:05:01 09:00:00", tint: 200, padding: 300_000)
        write(padded, "Trip/PAD.JPG")
        write(padded, "Backup/2023/PAD-copy.JPG")
        var middle = padded
        middle[padded.count / 2] = 0xFF
        write(middle, "Other/PAD-edited.JPG")
        XCTAssertEqual(runCommand("/usr/bin/env", ["cmp", "-s", source.path + "/Trip/A.JPG", source.path + "/Export/A-export.jpg"]).status, 0)
        XCTAssertEqual(runCommand("/usr/bin/env", ["cmp", "-s", source.path + "/Trip/PAD.JPG", source.path + "/Other/PAD-edited.JPG"]).status, 1,
                       "the edited one differs")
        for (path, date) in [("Backup/A.JPG", "2024:06:01 10:00:00"), ("Other/PAD-edited.JPG", "2023:05:01 09:00:00")] {
            let run = runCommand("/usr/bin/env", ["exiftool", "-s3", "-DateTimeOriginal", source.path + "/" + path])
            XCTAssertEqual(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines), date, path)
        }
    }

    /// The sample library's own groups (none unless it holds copies), to tell ours from.
    func sampleGroups() throws -> [String] {
        let m = try Mount(source: source.path, options: ["-o", "index=" + state + "/sample.sqlite"])
        defer { m.finish() }
        return readdirNames(m.path("duplicates")) ?? []
    }

    func testCopiesInOtherFoldersAreOneFolderNewestFirstEachTheOriginal() throws {
        let before = try sampleGroups()
        try writeCopies()
        let m = try mount()
        defer { m.finish() }
        let groups = try XCTUnwrap(readdirNames(m.path("duplicates")))
        // Each named after its newest copy: the copies' times are equal, so the first by name
        // (`-` before `.`), as every listing orders them.
        XCTAssertEqual(groups.filter { !before.contains($0) }, ["A-export.jpg", "PAD-copy.JPG"], "newest group first")
        // Same instant: by name, then path (docs/rules.md); `A.JPG` twice: the second path tagged.
        let tag = EntryNames.tag(for: "Trip/A.JPG")
        XCTAssertEqual(readdirNames(m.path("duplicates/A-export.jpg")), ["A-export.jpg", "A.JPG", "A~\(tag).JPG"])
        XCTAssertEqual(readdirNames(m.path("duplicates/PAD-copy.JPG")), ["PAD-copy.JPG", "PAD.JPG"], "the edited file is no copy")
        for (name, path) in [("A-export.jpg", "Export/A-export.jpg"), ("A.JPG", "Backup/A.JPG"), ("A~\(tag).JPG", "Trip/A.JPG")] {
            XCTAssertEqual(xattr(m.path("duplicates/A-export.jpg/" + name), "user.albumfs.source"), source.path + "/" + path)
        }
        let copy = try XCTUnwrap(statOf(m.path("duplicates/A-export.jpg/A-export.jpg")))
        let dated = try XCTUnwrap(statOf(m.path("by-date/2024/2024-06/2024-06-01/A-export.jpg")))
        XCTAssertEqual(copy.st_ino, dated.st_ino, "the by-date file")
        XCTAssertEqual(copy.st_mtim.tv_sec, dated.st_mtim.tv_sec, "mtime is the capture time")
        XCTAssertEqual(open(m.path("duplicates/A-export.jpg/A-export.jpg"), O_WRONLY), -1, "read-only")
        XCTAssertEqual(errno, EROFS)
        XCTAssertEqual(FileManager.default.contents(atPath: m.path("duplicates/PAD-copy.JPG/PAD-copy.JPG")),
                       FileManager.default.contents(atPath: source.path + "/Trip/PAD.JPG"))
        var folder = stat()
        XCTAssertEqual(stat(m.path("duplicates/A-export.jpg"), &folder), 0)
        XCTAssertEqual(folder.st_mode & 0o777, 0o555, "a read-only folder")
        XCTAssertEqual(folder.st_mtim.tv_sec, dated.st_mtim.tv_sec, "a group's mtime is its newest copy's")
        XCTAssertEqual(mkdir(m.path("duplicates/new"), 0o755), -1)
        XCTAssertEqual(errno, EROFS)
        let status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["duplicates"], "done")
        XCTAssertEqual(status["duplicate_groups"], String(before.filter { $0 != LibraryViews.similar }.count + 2))
    }

    /// A copy added shows in its group, and one removed leaves it, within the live-update bound;
    /// a group left with one copy goes.
    func testACopyAddedOrRemovedLiveChangesItsGroup() throws {
        try writeCopies()
        let m = try mount()
        defer { m.finish() }
        let a = try XCTUnwrap(FileManager.default.contents(atPath: source.path + "/Trip/A.JPG"))
        write(a, ".staged.jpg")
        XCTAssertEqual(mkdir(source.path + "/Card2", 0o755), 0)
        XCTAssertEqual(rename(source.path + "/.staged.jpg", source.path + "/Card2/Z-copy.JPG"), 0)
        var start = Date()
        XCTAssertTrue(eventually(5) { readdirNames(m.path("duplicates/A-export.jpg"))?.contains("Z-copy.JPG") ?? false },
                      "\(readdirNames(m.path("duplicates/A-export.jpg")) ?? [])")
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5, "within the live-update bound")
        XCTAssertEqual(readdirNames(m.path("duplicates/A-export.jpg"))?.count, 4)
        XCTAssertEqual(unlink(source.path + "/Backup/2023/PAD-copy.JPG"), 0)
        start = Date()
        XCTAssertTrue(eventually(5) { statOf(m.path("duplicates/PAD-copy.JPG")) == nil }, "a group of one is none")
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5, "within the live-update bound")
        // The copy the group is named after goes: the group takes its next copy's name.
        XCTAssertEqual(unlink(source.path + "/Export/A-export.jpg"), 0)
        let tag = EntryNames.tag(for: "Trip/A.JPG")
        XCTAssertTrue(eventually(5) { readdirNames(m.path("duplicates/A.JPG")) == ["A.JPG", "A~\(tag).JPG", "Z-copy.JPG"] },
                      "\(readdirNames(m.path("duplicates")) ?? []) \(readdirNames(m.path("duplicates/A.JPG")) ?? [])")
        // The kernel is told to drop the old name once the new tree is shown: the new listing can
        // be read a moment before that notice lands.
        XCTAssertTrue(eventually(2) { statOf(m.path("duplicates/A-export.jpg")) == nil }, "the old group's name goes")
    }

    /// A remount reads no file for its hashes: the index keeps them by each file's identity; a
    /// file changed since is hashed again, and only the files of its size.
    func testARemountHashesNothingAgain() throws {
        try writeCopies()
        var m = try mount()
        let first = daemonStatus(m.mountpoint)
        let hashed = Int(first["duplicate_files_hashed"] ?? "") ?? 0
        XCTAssertGreaterThanOrEqual(hashed, 8, "5 copies and the edited file's partial hashes, and full hashes: \(first)")
        let groups = readdirNames(m.path("duplicates"))
        m.finish()
        m = try mount()
        let second = daemonStatus(m.mountpoint)
        XCTAssertEqual(second["duplicate_files_hashed"], "0", "\(second)")
        XCTAssertEqual(second["header_reads"], "0")
        XCTAssertEqual(readdirNames(m.path("duplicates")), groups)
        XCTAssertEqual(readdirNames(m.path("duplicates/PAD-copy.JPG")), ["PAD-copy.JPG", "PAD.JPG"])
        m.finish()
        // The edited file made a copy while unmounted: it and the files of its size are read.
        write(try XCTUnwrap(FileManager.default.contents(atPath: source.path + "/Trip/PAD.JPG")), "Other/PAD-edited.JPG")
        m = try mount()
        defer { m.finish() }
        let third = daemonStatus(m.mountpoint)
        XCTAssertEqual(third["header_reads"], "1")
        XCTAssertEqual(third["duplicate_files_hashed"], "2", "its partial and full hashes alone: \(third)")
        XCTAssertEqual(readdirNames(m.path("duplicates/PAD-copy.JPG")), ["PAD-copy.JPG", "PAD-edited.JPG", "PAD.JPG"])
        m.finish()
        // A folder of copies renamed: its files are known by their identity, read by nothing.
        XCTAssertEqual(rename(source.path + "/Backup", source.path + "/Backup-2024"), 0)
        m = try mount()
        let fourth = daemonStatus(m.mountpoint)
        XCTAssertEqual(fourth["header_reads"], "0", "\(fourth)")
        XCTAssertEqual(fourth["duplicate_files_hashed"], "0", "\(fourth)")
        XCTAssertEqual(xattr(m.path("duplicates/PAD-copy.JPG/PAD-copy.JPG"), "user.albumfs.source"), source.path + "/Backup-2024/2023/PAD-copy.JPG")
        XCTAssertEqual(readdirNames(m.path("duplicates/A-export.jpg"))?.count, 3)
    }

    /// Copies no longer than the scan's first read of a file are hashed from that read: the
    /// search at the scan's end reads again only the first file of each size (its partial, then
    /// its full hash), and a remount reads none (the hashes made while reading are in the index).
    func testSmallCopiesAreHashedAsTheScanReadsThem() throws {
        let library = state + "/small"
        let a = try Self.camera("2024:06:01 10:00:00", tint: 10)
        let b = try Self.camera("2022:03:01 10:00:00", tint: 90, padding: 100)
        XCTAssertLessThan(b.count, 16 << 10, "read whole by a scan's first read")
        XCTAssertNotEqual(a.count, b.count)
        for (folder, data, count) in [("A", a, 6), ("B", b, 3)] {
            try FileManager.default.createDirectory(atPath: library + "/" + folder, withIntermediateDirectories: true)
            for i in 1...count { XCTAssertTrue(FileManager.default.createFile(atPath: "\(library)/\(folder)/\(i).jpg", contents: data)) }
        }
        let options = ["-o", "index=" + state + "/small.sqlite"]
        var m = try Mount(source: library, options: options)
        let first = daemonStatus(m.mountpoint)
        XCTAssertEqual(first["duplicates"], "done", "\(first)")
        XCTAssertEqual(first["duplicate_files_hashed"], "4", "the first file of each size, twice: \(first)")
        let groups = try XCTUnwrap(readdirNames(m.path("duplicates")))
        XCTAssertEqual(groups.filter { $0 != "similar" }.compactMap { readdirNames(m.path("duplicates/" + $0))?.count }.sorted(), [3, 6], "\(groups)")
        m.finish()
        m = try Mount(source: library, options: options)
        defer { m.finish() }
        let second = daemonStatus(m.mountpoint)
        XCTAssertEqual(second["duplicate_files_hashed"], "0", "\(second)")
        XCTAssertEqual(readdirNames(m.path("duplicates")), groups)
    }

    /// A copy picked from `duplicates/` is the photo picked.
    func testAPickFromDuplicatesLinksThePhoto() throws {
        try writeCopies()
        let m = try mount()
        defer { m.finish() }
        let shown = try XCTUnwrap(statOf(m.path("duplicates/A-export.jpg/A-export.jpg")))
        XCTAssertEqual(symlink("../duplicates/A-export.jpg/A-export.jpg", m.path("picked/A-export.jpg")), 0, "\(errno)")
        XCTAssertEqual(statOf(m.path("picked/A-export.jpg"))?.st_ino, shown.st_ino, "the pick leads to the photo")
        XCTAssertEqual(readdirNames(m.path("picked")), ["A-export.jpg"])
        XCTAssertEqual(FileManager.default.contents(atPath: m.path("picked/A-export.jpg")),
                       FileManager.default.contents(atPath: source.path + "/Export/A-export.jpg"))
    }

    /// `-o views=` without `duplicates` hashes nothing.
    func testHiddenDuplicatesHashNothing() throws {
        try writeCopies()
        let m = try Mount(source: source.path, options: ["-o", "index=" + indexPath, "-o", "views=by-date"])
        defer { m.finish() }
        let status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["duplicates"], "off")
        XCTAssertEqual(status["duplicate_files_hashed"], "0")
        XCTAssertEqual(status["similar"], "off", "no similar photos either")
        XCTAssertEqual(status["similar_hashed"], "0")
        XCTAssertNil(statOf(m.path("duplicates")))
        XCTAssertEqual(daemonStatus(m.mountpoint)["similar_hashed"], "0", "after the scan too")
    }
}
