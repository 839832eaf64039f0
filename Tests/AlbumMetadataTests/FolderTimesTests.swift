import AlbumCore
import AlbumSample
@testable import AlbumMetadata
import Foundation
import XCTest

/// A walk that may take folders whose times are unchanged as they were (`FolderTimes`): what it
/// takes, what it lists, and what it cannot see.
final class FolderTimesTests: FolderTestCase {
    /// Far enough from the listing for the test folder's clock (a jiffy or two).
    let margin = 0.05
    var jpeg = Data()
    var scanner: LibraryScanner!

    override func setUpWithError() throws {
        try super.setUpWithError()
        jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
    }

    func write(_ path: String) throws {
        let full = folder + "/" + path
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: full, contents: jpeg))
    }

    /// The files known after a walk that read everything, as a scan keeps them.
    func known(_ survey: LibraryScanner.Survey) -> [String: IndexedFile] {
        Dictionary(uniqueKeysWithValues: (survey.reused + scanner.read(survey.toRead)).map { ($0.relativePath, $0) })
    }

    /// A walk given `times`, which it hands back changed (`Survey.folderTimes`).
    func walk(_ previous: some KnownFiles, _ times: inout FolderTimes, skipping: Bool = true, mustList: Set<String> = [],
              under folder: String = "") -> LibraryScanner.Survey {
        let survey = scanner.survey(LibraryScanner.SurveyRequest(folder: folder, folders: FolderWalk(times: times, skipping: skipping, mustList: mustList)),
                                    previous: previous)
        XCTAssertNotNil(survey.folderTimes, "the times handed back")
        times = survey.folderTimes ?? times
        return survey
    }

    func testAFolderWhoseTimesAreUnchangedIsTakenAsItWasAndAChangedOneIsListed() throws {
        for path in ["a/p.jpg", "a/q.jpg", "a/b/r.jpg", "c/s.jpg", "top.jpg"] { try write(path) }
        var times = FolderTimes(racyMargin: margin)
        var files = known(walk([String: IndexedFile](), &times, skipping: false))
        XCTAssertEqual(files.count, 5)
        XCTAssertEqual(times.count, 0, "every folder was changed within the margin of its listing")
        usleep(100_000)
        files = known(walk(files, &times, skipping: false))
        XCTAssertEqual(times.listedCount, 4)
        XCTAssertEqual(times.count, 4, "the library, a, a/b, c")

        let unchanged = walk(files, &times)
        XCTAssertEqual(unchanged.reused.map(\.relativePath).sorted(), files.keys.sorted())
        XCTAssertTrue(unchanged.toRead.isEmpty)
        XCTAssertEqual(times.listedCount, 0)
        XCTAssertEqual(times.takenCount, 4)

        try write("c/new.jpg")
        usleep(100_000)
        let added = walk(files, &times)
        XCTAssertEqual(added.toRead.map(\.path), ["c/new.jpg"], "c's mtime changed: listed")
        XCTAssertEqual(added.reused.count, 5)
        XCTAssertEqual(times.listedCount, 1)
        XCTAssertEqual(times.takenCount, 3)
    }

    /// A file rewritten in place changes no folder's times: a walk that takes folders as they
    /// were does not see it (why whole walks come now and then), one told to list its folder
    /// (inotify named it) does.
    func testAFileRewrittenInPlaceIsSeenOnlyWhereItsFolderIsListed() throws {
        for path in ["a/p.jpg", "a/q.jpg"] { try write(path) }
        var times = FolderTimes(racyMargin: margin)
        usleep(100_000)
        let files = known(walk([String: IndexedFile](), &times, skipping: false))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: folder + "/a/p.jpg"))
        handle.seekToEndOfFile()
        handle.write(Data([0]))
        handle.closeFile()
        XCTAssertTrue(walk(files, &times).toRead.isEmpty)
        XCTAssertEqual(times.takenCount, 2)
        XCTAssertEqual(walk(files, &times, mustList: ["a"]).toRead.map(\.path), ["a/p.jpg"])
        XCTAssertEqual(walk(files, &times, skipping: false).toRead.map(\.path), ["a/p.jpg"])
    }

    /// A folder removed changes its parent's mtime: the parent is listed, the folder not walked,
    /// and forgotten; its files are not taken (the scan finds them gone).
    func testAFolderRemovedIsForgottenAndItsFilesNotTaken() throws {
        for path in ["a/p.jpg", "a/b/r.jpg", "a/b/c/t.jpg"] { try write(path) }
        var times = FolderTimes(racyMargin: margin)
        usleep(100_000)
        let files = known(walk([String: IndexedFile](), &times, skipping: false))
        XCTAssertEqual(times.count, 4)
        try FileManager.default.removeItem(atPath: folder + "/a/b")
        usleep(100_000)
        let survey = walk(files, &times)
        XCTAssertEqual(survey.reused.map(\.relativePath), ["a/p.jpg"])
        XCTAssertEqual(times.count, 2, "a/b and a/b/c are gone")
        XCTAssertEqual(times.listedCount, 1)
    }

    /// Times too close to the listing (a change in the same tick of a coarse clock could follow
    /// it unseen) are not remembered: such a folder is listed next time.
    func testAFolderChangedJustBeforeItsListingIsListedAgain() throws {
        try write("a/p.jpg")
        var times = FolderTimes(racyMargin: 3600)
        let files = known(walk([String: IndexedFile](), &times, skipping: false))
        _ = walk(files, &times)
        XCTAssertEqual(times.takenCount, 0)
        XCTAssertEqual(times.listedCount, 2)
    }

    /// A folder holding a file that could not be read (known of it: nothing, so it is read again)
    /// or one still being written is listed, whatever its times.
    func testAFolderWithAFileToReadAgainIsListed() throws {
        for path in ["a/p.jpg", "a/bad.jpg", "b/q.jpg"] { try write(path) }
        var times = FolderTimes(racyMargin: margin)
        usleep(100_000)
        let files = known(walk([String: IndexedFile](), &times, skipping: false))
        let survey = walk(Unreadable(files: files, unreadable: ["a/bad.jpg"]), &times)
        XCTAssertEqual(survey.toRead.map(\.path), ["a/bad.jpg"])
        XCTAssertEqual(survey.reused.map(\.relativePath).sorted(), ["a/p.jpg", "b/q.jpg"])
        XCTAssertEqual(times.takenCount, 2, "the library and b")

        // Still being written (changed after the settle edge): its folder is forgotten.
        let settling = scanner.survey(LibraryScanner.SurveyRequest(settledBefore: Timestamp(seconds: Timestamp.now.seconds - 10),
                                                                   folders: FolderWalk(times: times, skipping: false, mustList: [])),
                                      previous: files)
        times = try XCTUnwrap(settling.folderTimes)
        XCTAssertEqual(settling.deferred.count, 3)
        XCTAssertEqual(times.count, 1, "a and b forgotten: the library's own folder is kept")
    }

    /// A hard link's second name in a folder listed is not another file when its first name is
    /// in a folder taken as it was.
    func testAHardLinkInAListedFolderToAFileInATakenOneIsNoNewFile() throws {
        for path in ["a/p.jpg", "c/s.jpg"] { try write(path) }
        var times = FolderTimes(racyMargin: margin)
        usleep(100_000)
        let files = known(walk([String: IndexedFile](), &times, skipping: false))
        XCTAssertEqual(link(folder + "/a/p.jpg", folder + "/c/link.jpg"), 0)
        usleep(100_000)
        let survey = walk(files, &times)
        XCTAssertEqual(times.takenCount, 2, "the library and a")
        XCTAssertTrue(survey.toRead.isEmpty, "\(survey.toRead)")
    }

    /// A walk of one folder forgets only what was below it.
    func testAWalkOfOneFolderKeepsTheOthers() throws {
        for path in ["a/p.jpg", "b/q.jpg"] { try write(path) }
        var times = FolderTimes(racyMargin: margin)
        usleep(100_000)
        let files = known(walk([String: IndexedFile](), &times, skipping: false))
        XCTAssertEqual(times.count, 3)
        _ = walk(files, &times, under: "a")
        XCTAssertEqual(times.takenCount, 1)
        XCTAssertEqual(times.count, 3)
    }

    func testTheFilesystemTypeOfADeviceIsReadFromMountinfo() throws {
        let table = """
            22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
            98 22 0:52 / /mnt/share rw,nosuid,nodev,relatime shared:50 - fuse.sshfs user@host:/photos rw,user_id=0
            99 22 0:53 / /mnt/bucket rw,nosuid,nodev shared:51 - fuse.rclone remote: rw,user_id=0
            100 22 259:65537 / /mnt/big rw shared:52 - xfs /dev/nvme0n1p1 rw
            """
        XCTAssertEqual(FolderTimes.fileSystemType(mountinfo: table, device: UInt64(8 << 8 | 1)), "ext4")
        XCTAssertEqual(FolderTimes.fileSystemType(mountinfo: table, device: 52), "fuse.sshfs")
        XCTAssertEqual(FolderTimes.fileSystemType(mountinfo: table, device: 53), "fuse.rclone")
        // A major over 255 and a minor over 255 (glibc's makedev).
        let big: UInt64 = (259 & 0xfff) << 8 | (65537 & 0xff) | (65537 & ~0xff) << 12
        XCTAssertEqual(FolderTimes.fileSystemType(mountinfo: table, device: big), "xfs")
        XCTAssertNil(FolderTimes.fileSystemType(mountinfo: table, device: 54))
        XCTAssertTrue(FolderTimes.fuseKeepingFolderTimes.contains("fuse.sshfs"))
        XCTAssertFalse(FolderTimes.fuseKeepingFolderTimes.contains("fuse.rclone"))
        let fd = open(folder, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        var st = stat()
        XCTAssertEqual(fstat(fd, &st), 0)
        XCTAssertTrue(FolderTimes.keepsFolderTimes(fd: fd, device: UInt64(st.st_dev)), "the test's folder is on a kernel filesystem")
    }
}

/// Known files some of which could not be read: `known` has nothing for them.
private struct Unreadable: KnownFiles {
    var files: [String: IndexedFile]
    var unreadable: Set<String>
    var isEmpty: Bool { files.isEmpty }
    func known(_ relativePath: String) -> IndexedFile? { unreadable.contains(relativePath) ? nil : files[relativePath] }
    func forEachPath(_ body: (String) -> Void) { files.keys.forEach(body) }
}
