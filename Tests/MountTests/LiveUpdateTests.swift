import AlbumCore
import AlbumSample
import CSysXattr
import Foundation
import Glibc
import XCTest

/// The persistent index and live updates: reuse on remount, changes while mounted, progress and
/// status files, a broken index, the inotify limit.
final class LiveUpdateTests: SampleLibraryTestCase {
    var indexPath: String { state + "/index.sqlite" }

    func mount(_ extra: [String] = []) throws -> Mount {
        try Mount(source: source.path, options: ["-o", "index=" + indexPath] + extra)
    }

    func camera(_ date: String, tint: UInt8 = 100, orientation: UInt16 = 1) throws -> Data {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 48, height: 32, tint: tint))
        return Data(SampleJPEG.insertingAPP1(SampleExif.camera("Canon", "EOS R6", ExifTime(date), orientation: orientation).payload(), into: jpeg))
    }

    /// A capture time without a zone is read in the daemon's zone (`TZ`, through libc), so
    /// `ls -l` shows the time written on the photo; one with an offset is exact whatever `TZ`.
    func testTimesWithoutAZoneAreReadInTheDaemonsZone() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/ZONELESS.JPG", contents: try camera("2020:01:02 03:04:05")))
        // A Sanyo's colon between date and time; Facebook's saved photo, dated by the instant in its name.
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/SANYO.JPG", contents: try camera("2009:08:01:10:20:30")))
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/FB_IMG_1536458400500.jpg",
                                                     contents: Data(try SampleJPEG.jpeg(.marker(width: 48, height: 32, tint: 7)))))
        let m = try Mount(source: source.path, options: ["-o", "index=" + indexPath], launcher: ["/usr/bin/env", "TZ=America/New_York"])
        var st = stat()
        XCTAssertEqual(stat(m.path("by-date/2020/2020-01/2020-01-02/ZONELESS.JPG"), &st), 0, "the day written on the photo")
        XCTAssertEqual(st.st_mtim.tv_sec, 1_577_952_245, "03:04:05 in New York (EST) is 08:04:05 UTC")
        XCTAssertEqual(stat(m.path("by-date/2009/2009-08/2009-08-01/SANYO.JPG"), &st), 0)
        XCTAssertEqual(st.st_mtim.tv_sec, 1_249_136_430, "10:20:30 in New York (EDT)")
        XCTAssertEqual(stat(m.path("by-date/2018/2018-09/2018-09-08/FB_IMG_1536458400500.jpg"), &st), 0,
                       "2018-09-09 02:00 UTC is the evening before in New York")
        XCTAssertEqual(st.st_mtim.tv_sec, 1_536_458_400)
        XCTAssertEqual(st.st_mtim.tv_nsec, 500_000_000)
        // 2022:03:01 10:00:00 +01:00 (the sample's orientation photos carry an offset).
        XCTAssertEqual(stat(m.path("by-date/2022/2022-03/2022-03-01/orient-1.jpg"), &st), 0)
        XCTAssertEqual(st.st_mtim.tv_sec, 1_646_125_200, "09:00:00 UTC")
        m.finish()
    }

    func testRemountOfAnUnchangedLibraryReadsNoHeaders() throws {
        var m = try mount()
        let first = daemonStatus(m.mountpoint)
        XCTAssertEqual(first["header_reads"], first["files_seen"])
        XCTAssertEqual(first["last_scan_changes"], "\(first["files_seen"] ?? "") added, 0 changed, 0 moved, 0 removed")
        XCTAssertEqual(first["scan_state"], "done")
        let listing = readdirNames(m.path("non-screenshots"))
        m.finish()
        m = try mount()
        let second = daemonStatus(m.mountpoint)
        XCTAssertEqual(second["header_reads"], "0", "nothing re-read: \(second)")
        XCTAssertEqual(second["last_scan_changes"], "0 added, 0 changed, 0 moved, 0 removed")
        XCTAssertTrue(m.stderr.contains("nothing changed: the tree stays"), "the tree from the index is kept: \(m.stderr)")
        XCTAssertEqual(second["photos"], first["photos"])
        XCTAssertEqual(readdirNames(m.path("non-screenshots")), listing)
        m.finish()
        // A changed file is read again, and only it.
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Sony/DSC01234.JPG", contents: try camera("2020:01:02 03:04:05")))
        m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "1")
        XCTAssertEqual(daemonStatus(m.mountpoint)["last_scan_changes"], "0 added, 1 changed, 0 moved, 0 removed")
        XCTAssertNotNil(statOf(m.path("by-date/2020/2020-01/2020-01-02/DSC01234.JPG")))
        m.finish()
    }

    /// A library that moved (renamed here; a disk mounted at another path is the same) starts
    /// from a copy of its old index: nothing read again. A copy of the library made with
    /// `cp -a` (other inodes) is read as the new library it is.
    func testALibraryThatMovedStartsFromItsOldIndex() throws {
        let env = ["/usr/bin/env", "XDG_CACHE_HOME=" + state + "/cache"]
        var m = try Mount(source: source.path, launcher: env)
        let first = daemonStatus(m.mountpoint)
        let listing = readdirNames(m.path("non-screenshots"))
        m.finish()
        let moved = source.path + "-moved"
        XCTAssertEqual(rename(source.path, moved), 0)
        defer { rename(moved, source.path) }
        m = try Mount(source: moved, launcher: env)
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "0", "nothing read again")
        XCTAssertEqual(readdirNames(m.path("non-screenshots")), listing)
        XCTAssertTrue(m.stderr.contains("albumfs: the library's files are those of the index \(state!)/cache/albumfs/index/"), m.stderr)
        m.finish(allowing: ["are those of the index"])
        let indexes = try FileManager.default.contentsOfDirectory(atPath: state + "/cache/albumfs/index").filter { $0.hasSuffix(".sqlite") }
        XCTAssertEqual(indexes.count, 2, "the old index stays: \(indexes)")
        // `albumfs index` follows a move the same way.
        let again = moved + "-again"
        XCTAssertEqual(rename(moved, again), 0)
        defer { rename(again, moved) }
        let indexed = runCommand(albumfsBinary(), ["index", again], environment: ["XDG_CACHE_HOME": state + "/cache"])
        XCTAssertEqual(indexed.status, 0, indexed.stderr)
        XCTAssertTrue(indexed.stdout.contains(" 0 read,"), indexed.stdout)
        XCTAssertTrue(indexed.stderr.contains("are those of the index"), indexed.stderr)
        XCTAssertEqual(rename(again, moved), 0)
        // A copy with other inodes: a library of its own, read whole.
        let copy = state + "/copy"
        XCTAssertEqual(shell("cp -a '\(moved)' '\(copy)'").status, 0)
        m = try Mount(source: copy, launcher: env)
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], first["header_reads"])
        XCTAssertFalse(m.stderr.contains("are those of the index"), m.stderr)
        m.finish()
    }

    /// The same library on a disk that comes back with another device number (a USB disk in
    /// another port, a share or an image mounted again): files are told unchanged by inode, size
    /// and mtime, so nothing is read again and no thumbnail is made again. The "disk" here is an
    /// overlay of the sample (inode numbers kept, a new device number for each mount).
    func testARemountedDiskWithANewDeviceNumberReadsNothingAgain() throws {
        let disk = state + "/disk", empty = state + "/empty"
        for folder in [disk, empty] { XCTAssertEqual(mkdir(folder, 0o755), 0) }
        func mountDisk() -> Bool {
            runCommand("/usr/bin/mount", ["-t", "overlay", "overlay", "-o", "lowerdir=\(source.path):\(empty)", disk]).status == 0
        }
        XCTAssertTrue(mountDisk())
        defer { unmountTestDisk(disk) }
        let firstDevice = statOf(disk)?.st_dev
        let options = ["-o", "index=" + indexPath, "-o", "cache_dir=" + state + "/thumbnails"]
        var m = try Mount(source: disk, options: options)
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], daemonStatus(m.mountpoint)["files_seen"])
        let thumbnail = try XCTUnwrap(try? readFile(m.path("thumbnails/200x200/IMG_1234.jpg")).get())
        m.finish()
        XCTAssertEqual(runCommand("/usr/bin/umount", [disk]).status, 0)
        // Other mounts take the freed device number first, so the disk comes back with a new one.
        // (Device numbers are the machine's, not this run's: another process may free a lower
        // one meanwhile, which a holder then takes instead; so holders are added until the disk's
        // number is another.)
        var holders: [String] = []
        defer { for holder in holders.reversed() { unmountTestDisk(holder) } }
        var remounted = false
        for k in 0..<8 where !remounted {
            let holder = state + "/holder-\(k)"
            XCTAssertEqual(mkdir(holder, 0o755), 0)
            XCTAssertEqual(runCommand("/usr/bin/mount", ["-t", "tmpfs", "tmpfs", holder]).status, 0)
            holders.append(holder)
            XCTAssertTrue(mountDisk())
            remounted = statOf(disk)?.st_dev != firstDevice
            if !remounted { XCTAssertEqual(runCommand("/usr/bin/umount", [disk]).status, 0) }
        }
        XCTAssertTrue(remounted, "the disk came back with a new device number")
        XCTAssertNotEqual(statOf(disk)?.st_dev, firstDevice, "the test needs a new device number")
        m = try Mount(source: disk, options: options)
        let status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["header_reads"], "0", "nothing read again: \(status)")
        XCTAssertEqual(status["library_state"], "available")
        XCTAssertEqual(try? readFile(m.path("thumbnails/200x200/IMG_1234.jpg")).get(), thumbnail)
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnails_rendered"], "0", "the cached thumbnail is used")
        m.finish()
    }

    /// A photo whose folder is renamed keeps its thumbnail: the cache key is the file's identity
    /// (inode, size, mtime), not its path.
    func testARenamedFolderKeepsItsThumbnails() throws {
        let m = try mount()
        let before = try XCTUnwrap(try? readFile(m.path("thumbnails/200x200/DSC01234.jpg")).get())
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnails_rendered"], "1")
        XCTAssertEqual(rename(source.path + "/Sony", source.path + "/Alpha"), 0)
        XCTAssertTrue(eventually { xattr(m.path("non-screenshots/DSC01234.JPG"), "user.albumfs.source") == source.path + "/Alpha/DSC01234.JPG" })
        XCTAssertEqual(try? readFile(m.path("thumbnails/200x200/DSC01234.jpg")).get(), before)
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnails_rendered"], "1", "not made again")
        m.finish()
    }

    /// A photo opened through the mount the moment its source folder is renamed (before the
    /// views show the new path) opens at the new path, a thumbnail not made yet is made from it,
    /// and a pick hashes it there: each waits for the tree that shows the change rather than fail
    /// with ENOENT, EIO or EINVAL (before, for 0.3–0.7 s). A photo deleted is still ENOENT, once
    /// the views drop it.
    func testAPhotoOpenedAsItsFolderIsRenamedIsRead() throws {
        let m = try mount()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source.path + "/Sony/DSC01234.JPG"))
        var folder = "Sony"
        func renameFolder() {
            let next = folder == "Sony" ? "Alpha" : "Sony"
            XCTAssertEqual(rename(source.path + "/" + folder, source.path + "/" + next), 0)
            folder = next
        }
        for entry in ["non-screenshots/DSC01234.JPG", "by-date/2021/2021-12/2021-12-31/DSC01234.JPG"] {
            XCTAssertNotNil(statOf(m.path(entry)), "known to the kernel before the rename")
            renameFolder()
            XCTAssertEqual(try readFile(m.path(entry)).get(), Array(bytes), entry)
        }
        XCTAssertNotNil(statOf(m.path("thumbnails/200x200/DSC01234.jpg")))
        renameFolder()
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/DSC01234.jpg")).get().count, 30_000)
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnails_rendered"], "1")
        XCTAssertTrue(eventually { xattr(m.path("non-screenshots/DSC01234.JPG"), "user.albumfs.source") == source.path + "/Alpha/DSC01234.JPG" })
        // Picked the moment its folder is renamed (the pick hashes its file): picked.
        renameFolder()
        XCTAssertEqual(symlink("../non-screenshots/DSC01234.JPG", m.path("picked/DSC01234.JPG")), 0, String(cString: strerror(errno)))
        XCTAssertEqual(try readFile(m.path("picked/DSC01234.JPG")).get(), Array(bytes))
        renameFolder()
        XCTAssertTrue(eventually { xattr(m.path("non-screenshots/DSC01234.JPG"), "user.albumfs.source") == source.path + "/Alpha/DSC01234.JPG" })
        // Deleted: not found, once the views no longer show it (the wait ends there).
        XCTAssertNotNil(statOf(m.path("non-screenshots/DSC01234.JPG")))
        XCTAssertEqual(unlink(source.path + "/Alpha/DSC01234.JPG"), 0)
        XCTAssertEqual(readFile(m.path("non-screenshots/DSC01234.JPG")).failure?.code, ENOENT)
        m.finish(allowing: ["cannot open Alpha/DSC01234.JPG"])
    }

    /// A folder renamed, then renamed back, is still followed: a photo copied into it after shows
    /// (inotify's watch of a folder follows the folder, not its name; a path the watcher held for
    /// it from before would send its events to a folder that is no longer there).
    func testAFolderRenamedAndRenamedBackIsStillFollowed() throws {
        let m = try mount()
        for (from, to) in [("Sony", "Alpha"), ("Alpha", "Sony"), ("Sony", "Alpha"), ("Alpha", "Sony")] {
            XCTAssertEqual(rename(source.path + "/" + from, source.path + "/" + to), 0)
            XCTAssertTrue(eventually(15) { xattr(m.path("non-screenshots/DSC01234.JPG"), "user.albumfs.source") == source.path + "/\(to)/DSC01234.JPG" }, to)
            XCTAssertTrue(eventually(15) { daemonStatus(m.mountpoint)["scan_state"] == "done" })
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Sony/AFTER_0001.JPG", contents: try camera("2025:05:06 07:08:09")))
        XCTAssertTrue(eventually(15) { readdirNames(m.path("by-date/2025/2025-05/2025-05-06")) == ["AFTER_0001.JPG"] },
                      "copied into the folder renamed back: \(daemonStatus(m.mountpoint))")
        XCTAssertEqual(xattr(m.path("non-screenshots/AFTER_0001.JPG"), "user.albumfs.source"), source.path + "/Sony/AFTER_0001.JPG")
        // Its subfolder renamed too: a photo copied into it shows.
        XCTAssertEqual(mkdir(source.path + "/Sony/raw", 0o755), 0)
        XCTAssertTrue(eventually(15) { daemonStatus(m.mountpoint)["scan_state"] == "done" })
        XCTAssertEqual(rename(source.path + "/Sony/raw", source.path + "/Sony/edits"), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Sony/edits/EDIT_0001.JPG", contents: try camera("2025:05:07 07:08:09")))
        XCTAssertTrue(eventually(15) { readdirNames(m.path("by-date/2025/2025-05/2025-05-07")) == ["EDIT_0001.JPG"] })
        m.finish()
    }

    /// A folder renamed is an event of its parent: the rescan of the parent lists the parent and
    /// the folder under its new name, and takes its other folders, unchanged, as they were
    /// (their times older than the racy margin of 3 s: the library made 4 s before the mount).
    func testAFolderRenamedListsItsParentNotItsSiblings() throws {
        sleep(4)
        let m = try mount()
        let folders = try XCTUnwrap(daemonStatus(m.mountpoint)["last_scan_folders"])
        XCTAssertTrue(folders.hasSuffix(" 0 unchanged"), folders)
        let all = try XCTUnwrap(Int(folders.prefix { $0 != " " }))
        XCTAssertEqual(rename(source.path + "/Sony", source.path + "/Alpha"), 0)
        XCTAssertTrue(eventually(15) { xattr(m.path("non-screenshots/DSC01234.JPG"), "user.albumfs.source") == source.path + "/Alpha/DSC01234.JPG" })
        XCTAssertTrue(eventually(15) { daemonStatus(m.mountpoint)["scan_state"] == "done" })
        // The library's folder and Alpha listed; every other folder taken as it was.
        XCTAssertEqual(daemonStatus(m.mountpoint)["last_scan_folders"], "2 listed, \(all - 2) unchanged")
        m.finish()
    }

    /// A folder renamed keeps its photos' inode, size, mtime and ctime: their rows in the index
    /// stand for them under the new paths and they are not read again; the same across a remount.
    /// A photo moved or renamed itself has a new ctime (as one rewritten in place has): read once.
    /// Either way the rules are applied again (a folder named Screenshots makes a screenshot).
    func testARenamedFolderIsNotReadAgainAMovedPhotoOnce() throws {
        let plain = Data(try SampleJPEG.jpeg(.marker(width: 48, height: 32, tint: 50)))
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/plain.jpg", contents: plain))
        var m = try mount()
        let reads = daemonStatus(m.mountpoint)["header_reads"]
        XCTAssertEqual(reads, daemonStatus(m.mountpoint)["files_seen"])
        XCTAssertEqual(xattr(m.path("non-screenshots/plain.jpg"), "user.albumfs.screenshot")?.hasPrefix("no"), true)
        let sonyEntries = ["non-screenshots/DSC01234.JPG", "by-date/2021/2021-12/2021-12-31/DSC01234.JPG", "thumbnails/200x200/DSC01234.jpg"]
        let sonyInodes = try sonyEntries.map { try XCTUnwrap(statOf(m.path($0)), $0).st_ino }
        XCTAssertEqual(rename(source.path + "/Sony", source.path + "/Alpha"), 0)
        XCTAssertEqual(mkdir(source.path + "/Trip/Screenshots", 0o755), 0)
        XCTAssertEqual(rename(source.path + "/Trip/plain.jpg", source.path + "/Trip/Screenshots/plain.jpg"), 0)
        XCTAssertTrue(eventually { xattr(m.path("non-screenshots/DSC01234.JPG"), "user.albumfs.source") == source.path + "/Alpha/DSC01234.JPG" })
        XCTAssertTrue(eventually { readdirNames(m.path("screenshots"))?.contains("plain.jpg") == true }, "decided again in its new folder")
        XCTAssertEqual(xattr(m.path("screenshots/plain.jpg"), "user.albumfs.screenshot")?.hasPrefix("yes"), true)
        XCTAssertEqual(xattr(m.path("non-screenshots/DSC01234.JPG"), "user.albumfs.capture_time"), "2021-12-31T23:59:59")
        XCTAssertEqual(sonyEntries.map { statOf(m.path($0))?.st_ino }, sonyInodes, "the same file: the same inodes in every view")
        // (The count is set when a rescan ends, a moment after its views show.)
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["scan_state"] == "done" })
        let readsBefore = try XCTUnwrap(Int(reads ?? ""))
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], String(readsBefore + 1),
                       "plain.jpg only, not the renamed folder's photos: \(daemonStatus(m.mountpoint))")
        // Renamed, a photo is read again; an empty file, a photo by its name `empty.jpg`, is read
        // again as `empty.txt` (no photo).
        XCTAssertEqual(rename(source.path + "/Trip/Screenshots/plain.jpg", source.path + "/Trip/Screenshots/holiday.jpg"), 0)
        XCTAssertEqual(rename(source.path + "/Edge/empty.jpg", source.path + "/Edge/empty.txt"), 0)
        XCTAssertTrue(eventually { readdirNames(m.path("screenshots"))?.contains("holiday.jpg") == true })
        XCTAssertTrue(eventually { readdirNames(m.path("non-screenshots"))?.contains("empty.jpg") == false })
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["header_reads"] == String(readsBefore + 3) },
                      "holiday.jpg and empty.txt: \(daemonStatus(m.mountpoint))")
        m.finish()
        XCTAssertEqual(rename(source.path + "/Alpha", source.path + "/Beta"), 0)
        m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "0", "nothing read again: \(daemonStatus(m.mountpoint))")
        let sony = source.items.filter { $0.path.hasPrefix("Sony/") }.count
        XCTAssertEqual(daemonStatus(m.mountpoint)["last_scan_changes"], "0 added, 0 changed, \(sony) moved, \(sony) removed",
                       "taken from their old paths, whose rows go")
        XCTAssertEqual(xattr(m.path("non-screenshots/DSC01234.JPG"), "user.albumfs.source"), source.path + "/Beta/DSC01234.JPG")
        m.finish()
    }

    /// A folder renamed to one that marks screenshots: its photos (no screenshot signal of their
    /// own) become screenshots, taken from what the mount holds, none read; its index rows follow
    /// (a remount reads nothing). A mount without an index takes them from what it holds too.
    func testAFolderRenamedToScreenShotsMakesScreenshotsOfItsPhotosUnread() throws {
        let plain = Data(try SampleJPEG.jpeg(.marker(width: 48, height: 32, tint: 70)))
        XCTAssertEqual(mkdir(source.path + "/Trip/Album", 0o755), 0)
        for name in ["scan1.jpg", "scan2.jpg"] { XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/Album/" + name, contents: plain)) }
        func screenshots(_ m: Mount) -> [String] { (readdirNames(m.path("screenshots")) ?? []).filter { $0.hasPrefix("scan") }.sorted() }
        var m = try mount()
        XCTAssertEqual(screenshots(m), [])
        let reads = daemonStatus(m.mountpoint)["header_reads"]
        XCTAssertEqual(rename(source.path + "/Trip/Album", source.path + "/Trip/Screen Shots"), 0)
        XCTAssertTrue(eventually { screenshots(m) == ["scan1.jpg", "scan2.jpg"] }, "\(screenshots(m))")
        XCTAssertEqual(xattr(m.path("screenshots/scan1.jpg"), "user.albumfs.screenshot"), "yes (folder Screen Shots)")
        XCTAssertEqual(xattr(m.path("screenshots/scan1.jpg"), "user.albumfs.source"), source.path + "/Trip/Screen Shots/scan1.jpg")
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["scan_state"] == "done" && daemonStatus(m.mountpoint)["index_pending"] == "0" })
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], reads, "none read")
        m.finish()
        m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "0", "the index followed: \(daemonStatus(m.mountpoint))")
        XCTAssertEqual(screenshots(m), ["scan1.jpg", "scan2.jpg"])
        m.finish()
        // Without an index: renamed back, they are no screenshots again, still unread.
        XCTAssertTrue(FileManager.default.createFile(atPath: state + "/file", contents: Data("x".utf8)))
        m = try Mount(source: source.path, options: ["-o", "index=" + state + "/file/index.sqlite"])
        let first = daemonStatus(m.mountpoint)["header_reads"]
        XCTAssertEqual(screenshots(m), ["scan1.jpg", "scan2.jpg"])
        XCTAssertEqual(rename(source.path + "/Trip/Screen Shots", source.path + "/Trip/Album"), 0)
        XCTAssertTrue(eventually { screenshots(m) == [] }, "\(screenshots(m))")
        XCTAssertEqual(xattr(m.path("non-screenshots/scan2.jpg"), "user.albumfs.screenshot"), "no (no screenshot signal)")
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["scan_state"] == "done" })
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], first, "none read")
        m.finish(allowing: ["mounting without one"])
    }

    /// A library on sshfs (served here by a local sftp-server: no network, no sshd), read as
    /// network storage is (`header_reads_via: pread`, with many readers). sshfs lists
    /// every entry as inode 4294967295 and numbers files in the order they are looked up: every
    /// photo must still be found (they were taken for hard links of one another, one photo per
    /// folder), and a remount that numbers them otherwise must read nothing again.
    func testALibraryOnSshfsIsWholeAndNotReadAgain() throws {
        let server = try SshfsShare(serving: source.path, at: state + "/share", scratch: state)
        defer { server.unmount() }
        let share = server.path
        func inodes() -> [String: ino_t] {
            var out: [String: ino_t] = [:]
            for path in (FileManager.default.subpaths(atPath: share) ?? []).sorted(by: >) { out[path] = statOf(share + "/" + path)?.st_ino }
            return out
        }
        let local = try mount()
        let expected = readdirNames(local.path("non-screenshots"))?.sorted()
        local.finish()
        let options = ["-o", "index=" + indexPath + ".share", "-o", "cache_dir=" + state + "/thumbnails"]
        var m = try Mount(source: share, options: options)
        XCTAssertEqual(readdirNames(m.path("non-screenshots"))?.sorted(), expected, "every photo, as from the local folder")
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], String(source.items.filter { $0.expectedDay != nil }.count))
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads_via"], "pread", "network storage: many reads in flight, file by file")
        let thumbnail = try XCTUnwrap(try? readFile(m.path("thumbnails/200x200/IMG_1234.jpg")).get())
        m.finish()
        // Mounted again and looked at in another order: other inode numbers for the same files.
        let before = inodes()
        server.unmount()
        try server.mount()
        XCTAssertNotEqual(inodes(), before, "the test needs the numbers to change")
        m = try Mount(source: share, options: options)
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "0", "nothing read again: \(daemonStatus(m.mountpoint))")
        XCTAssertEqual(readdirNames(m.path("non-screenshots"))?.sorted(), expected)
        XCTAssertEqual(try? readFile(m.path("thumbnails/200x200/IMG_1234.jpg")).get(), thumbnail)
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnails_rendered"], "0", "the cached thumbnail is used")
        m.finish()
    }

    /// `-o io_uring=off` reads headers file by file (for sandboxes that forbid io_uring), and
    /// finds the same photos with the same decisions as the batched reads of the default.
    func testHeadersReadWithoutIoUringGiveTheSameViews() throws {
        var views: [String: [String]] = [:]
        for (option, method) in [([String](), "io_uring"), (["-o", "io_uring=off"], "pread")] {
            try? FileManager.default.removeItem(atPath: indexPath)
            let m = try mount(option)
            let status = daemonStatus(m.mountpoint)
            XCTAssertEqual(status["header_reads_via"], method, "\(option)")
            XCTAssertEqual(status["header_reads"], status["files_seen"], "\(option)")
            let listing = ["screenshots", "non-screenshots"].flatMap { v in (readdirNames(m.path(v)) ?? []).map { v + "/" + $0 } }
            XCTAssertFalse(listing.isEmpty)
            views[method] = listing + listing.map { xattr(m.path($0), "user.albumfs.capture_time") ?? "-" }
            m.finish()
        }
        XCTAssertEqual(views["pread"], views["io_uring"])
    }

    /// Under a seccomp filter that refuses io_uring (EPERM, as systemd's `SystemCallFilter=` with
    /// `SystemCallErrorNumber=` does), the daemon reads file by file, unasked, and finds every photo.
    func testAKernelThatRefusesIoUringFallsBackToPread() throws {
        let helper = state + "/no-io-uring"
        let c = """
        #include <errno.h>
        #include <stddef.h>
        #include <stdio.h>
        #include <unistd.h>
        #include <linux/filter.h>
        #include <linux/seccomp.h>
        #include <sys/prctl.h>
        #include <sys/syscall.h>
        /* Runs argv[1...] with io_uring_setup answering EPERM (everything else allowed). */
        int main(int argc, char **argv) {
            struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            };
            struct sock_fprog prog = { sizeof f / sizeof f[0], f };
            if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
                perror("seccomp");
                return 126;
            }
            execv(argv[1], argv + 1);
            perror("execv");
            return 127;
        }
        """
        try c.write(toFile: helper + ".c", atomically: true, encoding: .utf8)
        // The C compiler of the Swift toolchain (the one that builds the package's C targets).
        let cc = runCommand("/usr/bin/env", ["clang", "-O1", "-o", helper, helper + ".c"])
        XCTAssertEqual(cc.status, 0, "compiling the seccomp helper: \(cc.stderr)")
        let m = try Mount(source: source.path, options: ["-o", "index=" + indexPath], launcher: [helper])
        let status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["header_reads_via"], "pread", "\(status)")
        XCTAssertEqual(status["header_reads"], status["files_seen"])
        XCTAssertEqual(status["photos"], String(source.items.filter { $0.expectedDay != nil }.count))
        m.finish()
    }

    /// A first scan writes its rows once its views are published (`index_pending` counts them
    /// until then): the index then holds every file, while mounted, and a remount reads nothing.
    func testAFirstScanWritesItsRowsAfterItsViews() throws {
        let m = try Mount(source: source.path, options: ["-o", "index=" + indexPath])
        XCTAssertEqual(daemonStatus(m.mountpoint)["scan_state"], "done")
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["index_pending"] == "0" }, "\(daemonStatus(m.mountpoint))")
        let rows = runCommand("/usr/bin/sqlite3", [indexPath, "SELECT count(*) FROM files"])
        XCTAssertEqual(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines), daemonStatus(m.mountpoint)["files_seen"])
        m.finish()
        let again = try Mount(source: source.path, options: ["-o", "index=" + indexPath])
        XCTAssertEqual(daemonStatus(again.mountpoint)["header_reads"], "0")
        XCTAssertEqual(daemonStatus(again.mountpoint)["index_pending"], "0")
        again.finish()
    }

    /// Unmounting while the first scan still runs ends the daemon at once, cleanly; the batches
    /// already read stay in the index (nothing half-written, no warning), and the next mount reads
    /// exactly the files the index lacks.
    func testUnmountDuringTheFirstScanKeepsWhatWasRead() throws {
        let big = state + "/big"
        let total = 10_000
        let made = runCommand(albumfsBinary(), ["sample", big, "--count", String(total)], timeout: 120)
        XCTAssertEqual(made.status, 0, made.stderr)
        // Unmounted once 3,000 files are read (of batches of 2,000) and thousands are left to read:
        // the first batch may or may not be in the index yet.
        let first = try Mount(source: big, options: ["-o", "index=" + indexPath, "-o", "scan_wait=0"], waitForScan: false)
        var seen: [String: String] = [:]
        XCTAssertTrue(eventually(30) {
            seen = daemonStatus(first.mountpoint)
            let read = Int(seen["scan_progress"]?.split(separator: "/").first ?? "") ?? 0
            return seen["scan_state"] == "done" || (seen["scan_state"] == "scanning" && read >= 3000)
        }, "3,000 files read: \(seen)")
        XCTAssertEqual(seen["scan_state"], "scanning", "the first scan still runs at the unmount: \(seen)")
        let unmounting = Date()
        XCTAssertEqual(first.unmount(), 0, first.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(unmounting), 5, "the daemon does not finish the scan first")
        XCTAssertFalse(first.stderr.contains("warning") || first.stderr.contains("error"), first.stderr)
        let rows = runCommand("/usr/bin/sqlite3", [indexPath, "SELECT count(*) FROM files"])
        XCTAssertEqual(rows.status, 0, rows.stderr)
        let indexed = try XCTUnwrap(Int(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), rows.stdout)
        XCTAssertLessThan(indexed, total, "the scan was cut short: what the next mount reads is left")
        print("unmounted at \(seen["scan_state"] ?? "?") \(seen["scan_progress"] ?? "?") with \(indexed) of \(total) files indexed")
        let second = try Mount(source: big, options: ["-o", "index=" + indexPath])
        let status = daemonStatus(second.mountpoint)
        XCTAssertEqual(status["photos"], String(total))
        XCTAssertEqual(status["header_reads"], String(total - indexed), "only what the index lacked is read: \(status)")
        second.finish()
    }

    func testAddRenameRewriteAndRemoveShowInEveryView() throws {
        let m = try mount()
        let day = m.path("by-date/2025/2025-01/2025-01-02")
        let added = source.path + "/Trip/NEW_0001.JPG"
        XCTAssertTrue(FileManager.default.createFile(atPath: added, contents: try camera("2025:01:02 10:00:00")))
        XCTAssertTrue(eventually { readdirNames(day)?.contains("NEW_0001.JPG") == true }, "added")
        XCTAssertTrue(readdirNames(m.path("non-screenshots"))?.first == "NEW_0001.JPG", "newest first in the flat view")
        XCTAssertNotNil(statOf(m.path("thumbnails/200x200/NEW_0001.jpg")))
        XCTAssertEqual(FileManager.default.contents(atPath: day + "/NEW_0001.JPG"), FileManager.default.contents(atPath: added))

        XCTAssertEqual(Glibc.rename(added, source.path + "/Trip/RENAMED.JPG"), 0)
        XCTAssertTrue(eventually { readdirNames(day) == ["RENAMED.JPG"] }, "renamed: \(readdirNames(day) ?? [])")

        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/RENAMED.JPG", contents: try camera("2025:03:04 10:00:00", tint: 200)))
        XCTAssertTrue(eventually { readdirNames(m.path("by-date/2025/2025-03/2025-03-04")) == ["RENAMED.JPG"] }, "rewritten with a new date")
        XCTAssertTrue(eventually { readdirNames(day) == nil }, "the old day folder goes away")

        XCTAssertEqual(Glibc.unlink(source.path + "/Trip/RENAMED.JPG"), 0)
        XCTAssertTrue(eventually { readdirNames(m.path("by-date/2025")) == nil }, "removed")
        XCTAssertFalse(readdirNames(m.path("non-screenshots"))?.contains("RENAMED.JPG") ?? true)
        m.finish()
    }

    /// A photo copied in under a name another photo holds, as a camera library repeats its names:
    /// from a later folder it shows as `NAME~tag.JPG`; from an earlier one it takes the name, and
    /// the photo that held it shows as its own `NAME~tag.JPG`; once removed, the next takes the
    /// name back. Each name then reads its new photo's bytes (the kernel's entry for the old one
    /// is dropped) and says its source.
    func testAPhotoAddedUnderANameTakenSharesIt() throws {
        let m = try mount()
        let flat = m.path("non-screenshots")
        func add(_ path: String, tint: UInt8) throws -> Data {
            let bytes = try camera("2025:01:02 10:00:00", tint: tint)
            try FileManager.default.createDirectory(atPath: source.path + "/" + path.folderBeforeLastSlash, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/" + path, contents: bytes))
            return bytes
        }
        func tagged(_ path: String) -> String { "SAME_0001~" + EntryNames.tag(for: path) + ".JPG" }
        // (15 s: on a loaded machine the first copy can take over 5 s to show.)
        let trip = try add("Trip/SAME_0001.JPG", tint: 10)
        XCTAssertTrue(eventually(15) { readdirNames(flat)?.contains("SAME_0001.JPG") == true })
        XCTAssertEqual(FileManager.default.contents(atPath: flat + "/SAME_0001.JPG"), trip)

        let zoo = try add("Zoo/SAME_0001.JPG", tint: 20)
        XCTAssertTrue(eventually(15) { readdirNames(flat)?.contains(tagged("Zoo/SAME_0001.JPG")) == true }, "\(readdirNames(flat) ?? [])")
        XCTAssertEqual(FileManager.default.contents(atPath: flat + "/" + tagged("Zoo/SAME_0001.JPG")), zoo)
        XCTAssertEqual(FileManager.default.contents(atPath: flat + "/SAME_0001.JPG"), trip, "the name stays with the earlier path")

        let album = try add("Album/SAME_0001.JPG", tint: 30)
        XCTAssertTrue(eventually(15) { readdirNames(flat)?.contains(tagged("Trip/SAME_0001.JPG")) == true }, "\(readdirNames(flat) ?? [])")
        XCTAssertEqual(readdirNames(flat)?.filter { $0.hasPrefix("SAME_0001") }.sorted(),
                       ["SAME_0001.JPG", tagged("Trip/SAME_0001.JPG"), tagged("Zoo/SAME_0001.JPG")].sorted())
        XCTAssertEqual(FileManager.default.contents(atPath: flat + "/SAME_0001.JPG"), album, "the earliest path takes the name")
        XCTAssertEqual(xattr(flat + "/SAME_0001.JPG", "user.albumfs.source"), source.path + "/Album/SAME_0001.JPG")
        XCTAssertEqual(FileManager.default.contents(atPath: flat + "/" + tagged("Trip/SAME_0001.JPG")), trip)
        XCTAssertEqual(xattr(flat + "/" + tagged("Trip/SAME_0001.JPG"), "user.albumfs.source"), source.path + "/Trip/SAME_0001.JPG")

        // The holder removed: the next by path takes the name back.
        XCTAssertEqual(unlink(source.path + "/Album/SAME_0001.JPG"), 0)
        XCTAssertTrue(eventually(15) { readdirNames(flat)?.contains(tagged("Trip/SAME_0001.JPG")) == false }, "\(readdirNames(flat) ?? [])")
        XCTAssertEqual(readdirNames(flat)?.filter { $0.hasPrefix("SAME_0001") }.sorted(), ["SAME_0001.JPG", tagged("Zoo/SAME_0001.JPG")].sorted())
        XCTAssertEqual(FileManager.default.contents(atPath: flat + "/SAME_0001.JPG"), trip)
        XCTAssertEqual(xattr(flat + "/SAME_0001.JPG", "user.albumfs.source"), source.path + "/Trip/SAME_0001.JPG")
        m.finish()
    }

    /// A photo rewritten in place with its length and mtime kept, as `exiftool -P
    /// -overwrite_original_in_place -AllDates+=1` leaves it (the same inode, size and mtime: its
    /// identity unchanged), is read again, told by its ctime: while mounted, and on a remount after
    /// a rewrite while unmounted. A new orientation gives the thumbnail a new photo of those bytes
    /// gets, not the one cached for the old.
    func testAPhotoRewrittenInPlaceWithItsSizeAndMtimeKeptIsReadAgain() throws {
        let path = source.path + "/Trip/INPLACE.JPG"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: try camera("2020:01:02 03:04:05")))
        /// Writes `bytes` over the file (no truncation: the same inode), then sets its mtime back.
        func rewriteInPlace(_ bytes: Data) throws {
            let before = try XCTUnwrap(statOf(path))
            XCTAssertEqual(bytes.count, Int(before.st_size), "the same length")
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            XCTAssertGreaterThanOrEqual(fd, 0)
            XCTAssertEqual(bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }, bytes.count)
            var times = [before.st_atim, before.st_mtim]
            XCTAssertEqual(futimens(fd, &times), 0)
            XCTAssertEqual(close(fd), 0)
            let after = try XCTUnwrap(statOf(path))
            XCTAssertEqual([UInt64(after.st_ino), UInt64(after.st_size), UInt64(after.st_mtim.tv_sec), UInt64(after.st_mtim.tv_nsec)],
                           [UInt64(before.st_ino), UInt64(before.st_size), UInt64(before.st_mtim.tv_sec), UInt64(before.st_mtim.tv_nsec)],
                           "inode, size and mtime as they were")
        }
        var m = try mount()
        XCTAssertNotNil(statOf(m.path("by-date/2020/2020-01/2020-01-02/INPLACE.JPG")))
        let oldThumbnail = try readFile(m.path("thumbnails/200x200/INPLACE.jpg")).get()

        let turned = try camera("2021:01:02 03:04:05", orientation: 6)
        try rewriteInPlace(turned)
        XCTAssertTrue(eventually { statOf(m.path("by-date/2021/2021-01/2021-01-02/INPLACE.JPG")) != nil }, "read again while mounted")
        // (The tree is swapped, then the kernel told to drop the old entry: between the two, the
        // kernel's cached entry still answers.)
        XCTAssertTrue(eventually { statOf(m.path("by-date/2020/2020-01/2020-01-02/INPLACE.JPG")) == nil }, "the old day's entry gone")
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/FRESH.JPG", contents: turned))
        XCTAssertTrue(eventually { statOf(m.path("thumbnails/200x200/FRESH.jpg")) != nil })
        let freshThumbnail = try readFile(m.path("thumbnails/200x200/FRESH.jpg")).get()
        XCTAssertNotEqual(freshThumbnail, oldThumbnail, "turned: another picture")
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/INPLACE.jpg")).get(), freshThumbnail, "not the thumbnail of the old orientation")

        // The same date, only other bytes: the original read through the mount (cached by the
        // kernel before) and the thumbnail (turned back) are the new ones.
        let original = m.path("non-screenshots/INPLACE.JPG")
        XCTAssertEqual(try readFile(original).get(), [UInt8](turned))
        let reads = try XCTUnwrap(Int(daemonStatus(m.mountpoint)["header_reads"] ?? ""))
        let upright = try camera("2021:01:02 03:04:05", orientation: 1)
        try rewriteInPlace(upright)
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["header_reads"] == String(reads + 1) }, "read again")
        XCTAssertTrue(eventually { (try? readFile(original).get()) == [UInt8](upright) }, "the original's new bytes")
        XCTAssertTrue(eventually { (try? readFile(m.path("thumbnails/200x200/INPLACE.jpg")).get()) == oldThumbnail },
                      "the thumbnail turned back as it was")
        m.finish()

        try rewriteInPlace(try camera("2022:01:02 03:04:05", orientation: 6))
        m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "1", "that photo only: \(daemonStatus(m.mountpoint))")
        XCTAssertNotNil(statOf(m.path("by-date/2022/2022-01/2022-01-02/INPLACE.JPG")))
        m.finish()
        m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "0", "then known again")
        m.finish()
    }

    /// A photo copied in with an mtime in the future (a camera's wrong clock, kept by `cp -p`) is
    /// shown and then left alone: it was taken for a file still being written until its mtime had
    /// passed, its folder rescanned every second meanwhile, and `changes_pending` never 0.
    func testAPhotoWithAFutureMtimeIsShownAndThenLeftAlone() throws {
        let m = try mount()
        let path = source.path + "/Trip/future.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: try camera("2025:03:04 05:06:07")))
        var times = [timespec(tv_sec: time(nil), tv_nsec: 0), timespec(tv_sec: time(nil) + 86_400, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
        XCTAssertTrue(eventually {
            let s = daemonStatus(m.mountpoint)
            return statOf(m.path("by-date/2025/2025-03/2025-03-04/future.jpg")) != nil && s["changes_pending"] == "0" && s["scan_state"] == "done"
        }, "\(daemonStatus(m.mountpoint))")
        let scans = daemonStatus(m.mountpoint)["scans"]
        usleep(2_500_000)
        XCTAssertEqual(daemonStatus(m.mountpoint)["scans"], scans, "no rescan of its folder every second")
        m.finish()
    }

    func testAFileStillBeingWrittenIsNeverShownHalfWritten() throws {
        let m = try mount()
        let bytes = [UInt8](try camera("2025:05:06 07:08:09"))
        let path = source.path + "/slow.jpg"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let shown = m.path("non-screenshots/slow.jpg")
        var sawPartial = false, sawPending = false
        for (i, part) in [bytes[0..<400], bytes[400..<800], bytes[800...]].enumerated() {
            _ = part.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            let until = Date().addingTimeInterval(i < 2 ? 0.7 : 0)
            while Date() < until {
                if let st = statOf(shown), Int(st.st_size) != bytes.count { sawPartial = true }
                if statOf(shown) == nil && daemonStatus(m.mountpoint)["changes_pending"] != "0" { sawPending = true }
                usleep(20_000)
            }
        }
        close(fd)
        XCTAssertFalse(sawPartial, "a half-written file was listed")
        XCTAssertTrue(sawPending, "changes_pending counts the file while it is not shown")
        // `changes_pending: 0` with the scan done: a script's sign that the views show SOURCE.
        usleep(100_000)  // (inotify's delivery of the close)
        XCTAssertTrue(eventually { let s = daemonStatus(m.mountpoint); return s["changes_pending"] == "0" && s["scan_state"] == "done" })
        XCTAssertEqual(statOf(shown)?.st_size, off_t(bytes.count), "shown once nothing is pending")
        XCTAssertEqual(FileManager.default.contents(atPath: shown).map { [UInt8]($0) }, bytes)
        XCTAssertNotNil(statOf(m.path("by-date/2025/2025-05/2025-05-06/slow.jpg")), "dated from its EXIF once complete")
        m.finish()
    }

    func testABurstOfAThousandFiles() throws {
        let m = try mount()
        let before = readdirNames(m.path("non-screenshots"))!.count
        let folder = source.path + "/burst"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let jpeg = try camera("2019:09:09 09:09:09")
        for i in 0..<1000 {
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/B_\(i).JPG", contents: jpeg))
        }
        XCTAssertTrue(eventually(30) { readdirNames(m.path("non-screenshots"))?.count == before + 1000 },
                      "got \(readdirNames(m.path("non-screenshots"))?.count ?? -1) of \(before + 1000)")
        XCTAssertEqual(readdirNames(m.path("by-date/2019/2019-09/2019-09-09"))?.count, 1000)
        m.finish()
    }

    func testABrokenIndexIsMovedAsideWithOneWarning() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: indexPath, contents: Data(repeating: 0x42, count: 5000)))
        let m = try mount()
        XCTAssertEqual(m.stderr.components(separatedBy: "cannot be used").count - 1, 1, m.stderr)
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], String(source.items.filter { $0.expectedDay != nil }.count))
        let aside = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.hasPrefix("index.sqlite.broken-") }
        XCTAssertEqual(aside.count, 1)
        m.finish(allowing: ["cannot be used"])
        // A foreign SQLite database is not ours either.
        try? FileManager.default.removeItem(atPath: indexPath)
        XCTAssertEqual(shell("sqlite3 '\(indexPath)' 'CREATE TABLE t(x); INSERT INTO t VALUES (1);'").status, 0)
        let again = try mount()
        XCTAssertTrue(again.stderr.contains("not an albumfs index"), again.stderr)
        again.finish(allowing: ["cannot be used"])
    }

    /// A remount shows its views snapshot before the index is checked (`quick_check` reads every
    /// page); an index found damaged then is not read: every file is read again, the snapshot is
    /// deleted, and the next mount checks the index first and moves it aside for a new one.
    func testAnIndexDamagedBehindASnapshotIsCheckedOnceTheMountAnswers() throws {
        var m = try mount()
        let photos = try XCTUnwrap(daemonStatus(m.mountpoint)["photos"])
        m.finish()
        let snapshot = indexPath + ".views"
        XCTAssertTrue(FileManager.default.fileExists(atPath: snapshot))
        // The files table's first page overwritten (the row that says the index's generation,
        // which the snapshot is checked against, is on another page).
        XCTAssertEqual(shell("sqlite3 '\(indexPath)' 'PRAGMA wal_checkpoint(TRUNCATE)'").status, 0)
        let root = try XCTUnwrap(Int(shell("sqlite3 '\(indexPath)' \"SELECT rootpage FROM sqlite_master WHERE name = 'files'\"").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let pageSize = try XCTUnwrap(Int(shell("sqlite3 '\(indexPath)' 'PRAGMA page_size'").stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: indexPath))
        handle.seek(toFileOffset: UInt64((root - 1) * pageSize))
        handle.write(Data((0..<pageSize).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))
        handle.closeFile()
        m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["first_tree"], "views snapshot")
        XCTAssertTrue(eventually(15) { daemonStatus(m.mountpoint)["scan_state"] == "done" })
        XCTAssertTrue(m.stderr.contains("the index is damaged ("), m.stderr)
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], photos)
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], daemonStatus(m.mountpoint)["files_seen"], "every file read again")
        XCTAssertFalse(FileManager.default.fileExists(atPath: snapshot), "the snapshot is deleted")
        m.finish(allowing: ["damaged", "cannot be written", "index"])
        m = try mount()
        XCTAssertEqual(m.stderr.components(separatedBy: "cannot be used (damaged").count - 1, 1, m.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.hasPrefix("index.sqlite.broken-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.count, 1)
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], photos)
        m.finish(allowing: ["cannot be used"])
        m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["first_tree"], "views snapshot", "the new index's snapshot")
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "0")
        m.finish()
    }

    /// The index is a cache: where it cannot be written (a read-only home, a full disk), the
    /// library still mounts, with one warning; `albumfs index`, whose one job it is, fails.
    func testAnIndexThatCannotBeOpenedLeavesTheMountWithoutOne() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: state + "/file", contents: Data("x".utf8)))
        let unopenable = state + "/file/index.sqlite"
        let m = try Mount(source: source.path, options: ["-o", "index=" + unopenable])
        let status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["index"], "none")
        XCTAssertEqual(status["photos"], String(source.items.filter { $0.expectedDay != nil }.count))
        XCTAssertEqual(m.stderr.components(separatedBy: "mounting without one").count - 1, 1, m.stderr)
        XCTAssertFalse(m.stderr.contains("moved aside"), m.stderr)
        m.finish(allowing: ["mounting without one"])
        let r = runCommand(albumfsBinary(), ["index", "-o", "index=" + unopenable, source.path])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot be opened"), r.stderr)
    }

    func testALockedIndexIsLeftAloneInsteadOfHanging() throws {
        var m = try mount()
        m.finish()
        // Another process holds an exclusive lock on the index (rollback journal, a write
        // transaction) for longer than albumfs waits; it is ended by its own id.
        let locker = try SQLiteLockHolder(indexPath, "PRAGMA journal_mode=DELETE;\nBEGIN EXCLUSIVE;\nDELETE FROM files WHERE 0;")
        defer { locker.release() }
        let started = Date()
        m = try mount()
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "no hang on a locked index")
        XCTAssertEqual(m.stderr.components(separatedBy: "is locked by another process").count - 1, 1, m.stderr)
        XCTAssertFalse(m.stderr.contains("moved aside"), m.stderr)
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], String(source.items.filter { $0.expectedDay != nil }.count))
        m.finish(allowing: ["is locked by another process", "mounting without one"])
    }

    func testAProgressLineOnATerminal() throws {
        // `script` gives albumfs a terminal for stderr, as in an interactive shell.
        let mnt = makeTempFolder("tty")
        defer { rmdir(mnt) }
        let log = state + "/tty.log"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qfec", "'\(albumfsBinary())' -f -o index=\(indexPath),cache_dir=\(state!)/c,picks_db=\(state!)/p.sqlite '\(source.path)' '\(mnt)'", log]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        XCTAssertTrue(eventually(20) { (try? String(contentsOfFile: log, encoding: .utf8))?.contains("albumfs: scan done") ?? false })
        XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", mnt]).status, 0)
        XCTAssertTrue(waitForExit(p), "albumfs under script ends once unmounted")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        let total = source.filesSeen
        XCTAssertTrue(text.contains("albumfs: scanning \(total)/\(total) files"), text)
        XCTAssertTrue(text.contains("/s, 0 s left"), text)
    }

    /// `albumfs index` on a terminal draws a progress bar, ending full.
    func testIndexCommandDrawsAProgressBarOnATerminal() throws {
        let log = state + "/index-tty.log"
        let r = runCommand("/usr/bin/script", ["-qfec", "'\(albumfsBinary())' index -o index=\(indexPath) '\(source.path)'", log])
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = try String(contentsOfFile: log, encoding: .utf8)
        let total = source.filesSeen
        XCTAssertTrue(text.contains("albumfs: indexing [########################] 100% \(total)/\(total) files"), text)
    }

    func testStatusErrorsAndTheStatusCommand() throws {
        let m = try mount()
        let errorsPath = m.path(".albumfs/errors")
        let errors = try String(contentsOfFile: errorsPath, encoding: .utf8)
        XCTAssertTrue(errors.contains("Edge/corrupt-exif.jpg: corrupt EXIF"), errors)
        XCTAssertTrue(errors.contains("Edge/empty.jpg: empty file"), errors)
        let r = runCommand(albumfsBinary(), ["status", m.mountpoint])
        XCTAssertEqual(r.status, 0)
        for key in ["scan_state: done", "photos: ", "files_seen: ", "errors: ", "header_reads: ", "thumbnail_cache_bytes: ",
                    "thumbnail_cache_writes: ok"] {
            XCTAssertTrue(r.stdout.contains(key), r.stdout)
        }
        // Fixing a file removes its line.
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Edge/corrupt-exif.jpg", contents: try camera("2018:02:03 04:05:06")))
        XCTAssertTrue(eventually { !((try? String(contentsOfFile: errorsPath, encoding: .utf8))?.contains("corrupt-exif") ?? true) })
        let notMounted = runCommand(albumfsBinary(), ["status", state])
        XCTAssertEqual(notMounted.status, 4)
        XCTAssertTrue(notMounted.stderr.contains("is not an albumfs mount"), notMounted.stderr)
        m.finish()
    }

    /// A JPEG whose scan names a Huffman table it never defines has a whole header: the scan
    /// lists it without a problem, and only decoding it finds the damage. Once a thumbnail of it
    /// has failed, `.albumfs/errors` names it (one line, counted in the status), until the file is
    /// fixed or removed.
    func testAPhotoWhoseThumbnailFailedIsListedInErrorsWhileItIsShown() throws {
        func cut(_ jpeg: Data) -> Data { Data(SampleJPEG.withUndefinedHuffmanTables([UInt8](jpeg))) }
        for name in ["cut-1.jpg", "cut-2.jpg"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/" + name, contents: cut(try camera("2019:04:05 06:07:08"))))
        }
        let corruptEXIF = try Data(contentsOf: URL(fileURLWithPath: source.path + "/Edge/corrupt-exif.jpg"))
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/both.jpg", contents: cut(corruptEXIF)))
        let m = try mount()
        func errors() -> String { (try? String(contentsOfFile: m.path(".albumfs/errors"), encoding: .utf8)) ?? "" }
        let before = errors()
        XCTAssertFalse(before.contains("cut-"), "the header is whole: \(before)")
        XCTAssertNotNil(statOf(m.path("by-date/2019/2019-04/2019-04-05/cut-1.jpg")), "dated by its EXIF")
        for name in ["cut-1.jpg", "cut-2.jpg"] {
            XCTAssertEqual(readFile(m.path("thumbnails/200x200/" + name)).failure?.code, EIO, name)
        }
        let lines = errors().split(separator: "\n")
        for name in ["cut-1.jpg", "cut-2.jpg"] {
            XCTAssertEqual(lines.filter { $0.hasPrefix("Trip/\(name): cannot make a thumbnail: ") }.count, 1, "\(lines)")
        }
        XCTAssertEqual(lines, lines.sorted(), "still sorted by path")
        let status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["errors"], String(lines.count))
        XCTAssertEqual(status["thumbnail_failures"], "2")
        // A file the scan names already keeps the scan's line alone.
        XCTAssertEqual(readFile(m.path("thumbnails/200x200/both.jpg")).failure?.code, EIO)
        XCTAssertEqual(errors().split(separator: "\n").filter { $0.hasPrefix("Trip/both.jpg: ") }, ["Trip/both.jpg: corrupt EXIF"])
        // Fixed, or removed: the line goes.
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/cut-1.jpg", contents: try camera("2019:04:05 06:07:08")))
        try FileManager.default.removeItem(atPath: source.path + "/Trip/cut-2.jpg")
        XCTAssertTrue(eventually { !errors().contains("cut-") }, errors())
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/cut-1.jpg")).get().count, 30_000, "the fixed file renders")
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnail_failures"], "1", "both.jpg")
        m.finish(allowing: ["cannot make a thumbnail of"])
    }

    /// A newline, a backslash or a control character in a name (Linux allows them all) is
    /// escaped in `.albumfs/errors`, as `ls -b` writes them: one line is always one problem, and
    /// `cat` hands a terminal no escape sequence from a name.
    func testErrorsAreOneLineEachWhateverTheNames() throws {
        for name in ["bad\nname.jpg", "back\\slash.jpg", "red\u{1B}[31m\u{1C}.jpg"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Edge/" + name, contents: Data()))
        }
        // (An empty file has no thumbnail entry; one whose data cannot be decoded has.)
        let undecodable = Data(try SampleLibrary.undecodableJPEG())
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Edge/green\u{1B}[32m\u{1C}.jpg", contents: undecodable))
        let m = try mount()
        let lines = try String(contentsOfFile: m.path(".albumfs/errors"), encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(lines.contains("Edge/bad\\nname.jpg: empty file"), "\(lines)")
        XCTAssertTrue(lines.contains("Edge/back\\\\slash.jpg: empty file"), "\(lines)")
        XCTAssertTrue(lines.contains("Edge/red\\033[31m\\034.jpg: empty file"), "\(lines)")
        XCTAssertTrue(lines.allSatisfy { $0.contains(": ") }, "\(lines)")
        XCTAssertTrue(lines.allSatisfy { !$0.unicodeScalars.contains { $0.value < 0x20 } }, "\(lines)")
        XCTAssertEqual(lines.count, Int(daemonStatus(m.mountpoint)["errors"] ?? ""))
        // The daemon's log (a terminal, with -f) gets the name without its escape sequence too.
        XCTAssertNil(statOf(m.path("thumbnails/200x200/red\u{1B}[31m\u{1C}.jpg")), "nothing to render: no entry")
        XCTAssertEqual(readFile(m.path("thumbnails/200x200/green\u{1B}[32m\u{1C}.jpg")).failure?.code, EIO)
        XCTAssertTrue(eventually { m.stderr.contains("cannot make a thumbnail of Edge/green\\033[32m\\034.jpg") }, m.stderr)
        XCTAssertFalse(m.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, m.stderr)
        m.finish(allowing: ["cannot make a thumbnail of"])
    }

    /// A folder's problems (here a name that differs from another only in its Unicode form) stay
    /// listed while changes elsewhere are rescanned, and leave once fixed.
    func testFolderProblemsOutliveRescansOfOtherFolders() throws {
        // "Café.jpg" composed (NFC) beside it decomposed (NFD): the NFC one is the problem.
        let nfd: [CChar] = Array((source.path + "/Trip/Cafe").utf8CString.dropLast()) + [CChar(bitPattern: 0xCC), CChar(bitPattern: 0x81)] + Array(".jpg".utf8CString)
        let bad: [CChar] = Array((source.path + "/Trip/Caf").utf8CString.dropLast()) + [CChar(bitPattern: 0xC3), CChar(bitPattern: 0xA9)] + Array(".jpg".utf8CString)
        for path in [nfd, bad] {
            let fd = open(path, O_WRONLY | O_CREAT, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            close(fd)
        }
        var m = try mount()
        func errors() -> String { (try? String(contentsOfFile: m.path(".albumfs/errors"), encoding: .utf8)) ?? "" }
        XCTAssertTrue(errors().contains("only in its Unicode form"), errors())
        // A change in another folder: that folder alone is rescanned.
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Sony/NEW_0002.JPG", contents: try camera("2025:02:03 10:00:00")))
        XCTAssertTrue(eventually { readdirNames(m.path("by-date/2025/2025-02/2025-02-03"))?.contains("NEW_0002.JPG") == true })
        XCTAssertTrue(errors().contains("only in its Unicode form"), "still listed: \(errors())")
        m.finish(allowing: ["only in its Unicode form"])
        // A remount finds the files as the index left them, and the folder's problem again.
        m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "0")
        XCTAssertTrue(errors().contains("only in its Unicode form"), "listed after a remount: \(errors())")
        // Renamed apart: the line goes.
        XCTAssertEqual(rename(bad, source.path + "/Trip/cafe.jpg"), 0)
        XCTAssertTrue(eventually { !errors().contains("only in its Unicode form") }, errors())
        m.finish(allowing: ["only in its Unicode form"])
    }

    /// A sound index on a disk that has filled up cannot be opened (SQLite cannot make its WAL
    /// files there: "disk I/O error"). It is kept, not moved aside as a bad one (it was, and
    /// the next mount read everything again); the mount goes on without it, and reuses it once
    /// there is room again.
    func testAFullDiskKeepsTheIndex() throws {
        let disk = state + "/disk", index = state + "/disk/index.sqlite"
        XCTAssertEqual(mkdir(disk, 0o755), 0)
        XCTAssertEqual(runCommand("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk]).status, 0)
        defer { unmountTestDisk(disk) }
        XCTAssertEqual(runCommand(albumfsBinary(), ["index", "-o", "index=" + index, source.path]).status, 0)
        XCTAssertNotEqual(shell("dd if=/dev/zero of='\(disk)/fill' bs=4k").status, 0, "filled up")
        // (`albumfs index` closed its index: no WAL left beside it to open from. It once was.)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: disk).sorted(), ["fill", "index.sqlite"])
        var m = try Mount(source: source.path, options: ["-o", "index=" + index])
        XCTAssertEqual(daemonStatus(m.mountpoint)["index"], "none")
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], String(source.items.filter { $0.expectedDay != nil }.count))
        m.finish(allowing: ["cannot be opened (No space left on device); mounting without one"])
        XCTAssertTrue(m.stderr.contains("cannot be opened (No space left on device)"), m.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: disk)
        XCTAssertFalse(names.contains { $0.contains("broken") }, "\(names)")
        XCTAssertEqual(unlink(disk + "/fill"), 0)
        m = try Mount(source: source.path, options: ["-o", "index=" + index])
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "0", "the index kept is used")
        m.finish()
    }

    /// An index whose disk fills up while mounted: the changes are still shown, the status says
    /// the index is not being written (and why), and says ok again once a scan writes it.
    func testAnIndexThatCannotBeWrittenShowsInTheStatus() throws {
        let disk = state + "/disk", index = state + "/disk/index.sqlite"
        XCTAssertEqual(mkdir(disk, 0o755), 0)
        XCTAssertEqual(runCommand("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk]).status, 0)
        defer { unmountTestDisk(disk) }
        let m = try Mount(source: source.path, options: ["-o", "index=" + index])
        XCTAssertEqual(daemonStatus(m.mountpoint)["index_writes"], "ok")
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["index_pending"] == "0" }, "the first scan's rows written")
        XCTAssertNotEqual(shell("dd if=/dev/zero of='\(disk)/fill' bs=4k").status, 0, "filled up")
        // More new rows than the WAL has room for already.
        let photo = try XCTUnwrap(source.items.first { $0.expectedDay != nil && $0.path.hasSuffix(".jpg") })
        XCTAssertEqual(shell("mkdir '\(source.path)/Copies' && for i in $(seq 400); do cp '\(source.path)/\(photo.path)' "
                             + "'\(source.path)/Copies/copy-'$i'.jpg'; done").status, 0)
        let photos = source.items.filter { $0.expectedDay != nil }.count + 400
        XCTAssertTrue(eventually(10) { daemonStatus(m.mountpoint)["photos"] == String(photos) }, "\(daemonStatus(m.mountpoint))")
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["index_writes"]?.hasPrefix("failing (No space left on device)") == true },
                      "\(daemonStatus(m.mountpoint))")
        // A rescan with nothing to write (a new empty folder) leaves it failing: it once said ok.
        let scans = Int(daemonStatus(m.mountpoint)["scans"] ?? "") ?? 0
        XCTAssertEqual(mkdir(source.path + "/Copies/empty", 0o755), 0)
        XCTAssertTrue(eventually(10) { Int(daemonStatus(m.mountpoint)["scans"] ?? "") ?? 0 > scans }, "\(daemonStatus(m.mountpoint))")
        XCTAssertEqual(daemonStatus(m.mountpoint)["index_pending"], "0")
        XCTAssertTrue(daemonStatus(m.mountpoint)["index_writes"]?.hasPrefix("failing (No space left on device)") == true,
                      "\(daemonStatus(m.mountpoint))")
        XCTAssertEqual(unlink(disk + "/fill"), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Copies/one-more.jpg",
                                                     contents: try Data(contentsOf: URL(fileURLWithPath: source.path + "/" + photo.path))))
        XCTAssertTrue(eventually(10) { daemonStatus(m.mountpoint)["index_writes"] == "ok" }, "\(daemonStatus(m.mountpoint))")
        // (The 1 MB disk also holds the similar photos' hashes of the 400 copies now: the views
        // snapshot written at the unmount may find no room, which is said and costs the next
        // mount its snapshot only.)
        m.finish(allowing: ["the index cannot be written", "cannot be written (No space left on device)"])
    }

    func testIndexCommandPreparesTheIndexForTheMount() throws {
        let r = runCommand(albumfsBinary(), ["index", source.path, "-o", "index=" + indexPath])
        XCTAssertEqual(r.status, 0, r.stderr)
        let photos = source.items.filter { $0.expectedDay != nil }.count
        XCTAssertTrue(r.stdout.hasPrefix("\(photos) photos"), r.stdout)
        var st = stat()
        XCTAssertEqual(stat(source.path, &st), 0)
        let device = runCommand("/usr/bin/sqlite3", [indexPath, "SELECT value FROM library WHERE key = 'device'"])
        XCTAssertEqual(device.stdout.trimmingCharacters(in: .whitespacesAndNewlines), String(st.st_dev), "the library's device, for a later mount")
        let m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "0")
        m.finish()
        // A refresh reads only what changed: one photo gone, one copied in.
        let photo = try XCTUnwrap(source.items.first { $0.expectedDay != nil && $0.path.hasSuffix(".jpg") })
        XCTAssertEqual(shell("cp '\(source.path)/\(photo.path)' '\(source.path)/copied-in.jpg' && rm '\(source.path)/\(photo.path)'").status, 0)
        let refresh = runCommand(albumfsBinary(), ["index", source.path, "-o", "index=" + indexPath])
        XCTAssertEqual(refresh.status, 0, refresh.stderr)
        let files = r.stdout.components(separatedBy: ", ")[1]  // "N files": hidden ones are not
        XCTAssertTrue(refresh.stdout.hasPrefix("\(photos) photos, \(files), 1 read, 1 removed,"), refresh.stdout)
        XCTAssertTrue(refresh.stdout.contains("(1 added, 0 changed, 0 moved)"), refresh.stdout)
        let rows = runCommand("/usr/bin/sqlite3", [indexPath, "SELECT count(*) FROM files"])
        XCTAssertEqual(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + " files", files)
        // A folder renamed: its files are taken from the index under their new paths, unread.
        let sony = source.items.filter { $0.path.hasPrefix("Sony/") }.count
        XCTAssertGreaterThan(sony, 0)
        XCTAssertEqual(rename(source.path + "/Sony", source.path + "/Alpha"), 0)
        let renamed = runCommand(albumfsBinary(), ["index", source.path, "-o", "index=" + indexPath])
        XCTAssertTrue(renamed.stdout.hasPrefix("\(photos) photos, \(files), 0 read, \(sony) removed,"), renamed.stdout)
        XCTAssertTrue(renamed.stdout.contains("(0 added, 0 changed, \(sony) moved)"), renamed.stdout)
        let moved = runCommand("/usr/bin/sqlite3", [indexPath, "SELECT count(*) FROM files WHERE path LIKE 'Alpha/%' AND kind = 'jpeg' AND dto IS NOT NULL"])
        XCTAssertEqual(moved.stdout.trimmingCharacters(in: .whitespacesAndNewlines), String(sony), "saved with their evidence")
        XCTAssertEqual(runCommand(albumfsBinary(), ["index", source.path + "/missing"]).status, 3)
    }

    func testAtTheWatchLimitThePeriodicRescanCarriesOn() throws {
        let m = try mount(["-o", "max_watches=1,rescan=1"])
        XCTAssertEqual(daemonStatus(m.mountpoint)["watch_limit_reached"], "yes")
        XCTAssertEqual(m.stderr.components(separatedBy: "max_watches limit").count - 1, 1, m.stderr)
        // Nikon/ is not watched (only the root is): the periodic rescan finds the new photo.
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Nikon/LATE.JPG", contents: try camera("2011:11:11 11:11:11")))
        XCTAssertTrue(eventually(6) { statOf(m.path("by-date/2011/2011-11/2011-11-11/LATE.JPG")) != nil })
        m.finish(allowing: ["max_watches limit"])
    }
}
