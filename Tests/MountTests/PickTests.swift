import AlbumSample
import CSysXattr
import Foundation
import Glibc
import XCTest

/// picked/: ln -s picks, rm unpicks, mv renames; order, persistence, limit, duplicates, errno.
final class PickTests: SampleLibraryTestCase {
    var picksDB: String { state + "/picks.sqlite" }

    func mount(_ extra: [String] = []) throws -> Mount {
        try Mount(source: source.path, options: ["-o", "picks_db=" + picksDB] + extra)
    }

    /// `symlink(2)`: 0 or the errno.
    func link(_ target: String, _ path: String) -> Int32 {
        symlink(target, path) == 0 ? 0 : errno
    }

    func testPickThroughEveryViewWithCanonicalTargetsAndCopyThemWithCpL() throws {
        let m = try mount()
        let picked = m.path("picked")
        XCTAssertEqual(link("../by-date/2024/2024-05/2024-05-17/PXL_20240517_120304567.jpg", picked + "/PXL_20240517_120304567.jpg"), 0)
        XCTAssertEqual(link(m.path("screenshots/IMG_1300.PNG"), picked + "/shot.png"), 0, "absolute targets work")
        XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", picked + "/sony.jpg"), 0)
        XCTAssertEqual(link("./../thumbnails/200x200/DSCF0001.jpg", picked + "/from-thumbnail.jpg"), 0, "a thumbnail picks its photo")
        XCTAssertEqual(shell("cd '\(picked)' && ln -s ../non-screenshots/IMG_1234.JPG .").status, 0, "ln -s TARGET picked/ takes the target's name")
        let expected = [
            "PXL_20240517_120304567.jpg": ("../by-date/2024/2024-05/2024-05-17/PXL_20240517_120304567.jpg", "DCIM/Camera/PXL_20240517_120304567.jpg"),
            "shot.png": ("../by-date/2024/2024-05/2024-05-18/IMG_1300.PNG", "iPhone/IMG_1300.PNG"),
            "sony.jpg": ("../by-date/2021/2021-12/2021-12-31/DSC01234.JPG", "Sony/DSC01234.JPG"),
            "from-thumbnail.jpg": ("../by-date/2021/2021-01/2021-01-01/DSCF0001.JPG", "Fuji/DSCF0001.JPG"),
            "IMG_1234.JPG": ("../by-date/2024/2024-05/2024-05-18/IMG_1234.JPG", "iPhone/IMG_1234.JPG"),
        ]
        for (name, (target, _)) in expected {
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: picked + "/" + name), target, name)
        }
        let dest = makeTempFolder("cpL")
        defer { try? FileManager.default.removeItem(atPath: dest) }
        XCTAssertEqual(shell("cp -L '\(picked)'/* '\(dest)/'").status, 0)
        for (name, (_, src)) in expected {
            XCTAssertEqual(FileManager.default.contents(atPath: dest + "/" + name), FileManager.default.contents(atPath: source.path + "/" + src), name)
        }
        m.finish()
    }

    func testListingIsInPickOrderWithPickTimesAsMtimes() throws {
        let m = try mount()
        let before = time(nil)
        for name in ["zeta.jpg", "alpha.jpg", "mid.jpg"] {
            let target = ["zeta.jpg": "../non-screenshots/DSC01234.JPG", "alpha.jpg": "../non-screenshots/DSCF0001.JPG",
                          "mid.jpg": "../non-screenshots/DSC_0001.JPG"][name]!
            XCTAssertEqual(link(target, m.path("picked/" + name)), 0)
        }
        XCTAssertEqual(readdirNames(m.path("picked")), ["zeta.jpg", "alpha.jpg", "mid.jpg"])
        var previous = 0
        for name in ["zeta.jpg", "alpha.jpg", "mid.jpg"] {
            var st = stat()
            XCTAssertEqual(lstat(m.path("picked/" + name), &st), 0)
            XCTAssertEqual(st.st_mode & S_IFMT, S_IFLNK)
            XCTAssertGreaterThanOrEqual(st.st_mtim.tv_sec, before)
            XCTAssertGreaterThanOrEqual(st.st_mtim.tv_sec * 1_000_000_000 + st.st_mtim.tv_nsec, previous)
            previous = st.st_mtim.tv_sec * 1_000_000_000 + st.st_mtim.tv_nsec
        }
        m.finish()
    }

    func testRmUnpicksAndMvRenames() throws {
        let m = try mount()
        // File managers and `[ -w picked ]` ask access(W_OK) before offering to link or delete.
        XCTAssertEqual(access(m.path("picked"), W_OK | X_OK), 0)
        XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", m.path("picked/a.jpg")), 0)
        XCTAssertEqual(link("../non-screenshots/DSCF0001.JPG", m.path("picked/b.jpg")), 0)
        XCTAssertEqual(Glibc.rename(m.path("picked/a.jpg"), m.path("picked/c.jpg")), 0)
        XCTAssertEqual(readdirNames(m.path("picked")), ["c.jpg", "b.jpg"], "a rename keeps the pick's place")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: m.path("picked/c.jpg")), "../by-date/2021/2021-12/2021-12-31/DSC01234.JPG")
        XCTAssertEqual(Glibc.unlink(m.path("picked/b.jpg")), 0)
        XCTAssertEqual(readdirNames(m.path("picked")), ["c.jpg"])
        XCTAssertEqual(Glibc.unlink(m.path("picked/b.jpg")), -1)
        XCTAssertEqual(errno, ENOENT)
        XCTAssertEqual(link("../non-screenshots/DSCF0001.JPG", m.path("picked/b.jpg")), 0, "an unpicked photo can be picked again")
        XCTAssertEqual(Glibc.rename(m.path("picked/c.jpg"), m.path("non-screenshots/c.jpg")), -1)
        XCTAssertEqual(errno, EROFS, "moving a pick out of picked/")
        XCTAssertEqual(Glibc.rename(m.path("non-screenshots/DSCF0001.JPG"), m.path("picked/moved.jpg")), -1)
        XCTAssertEqual(errno, EROFS, "moving a photo into picked/")
        // `mv -n` (RENAME_NOREPLACE) refuses to replace a pick; a plain `mv` replaces it, and the
        // pick it replaced is gone.
        XCTAssertEqual(renameNoReplace(m.path("picked/c.jpg"), m.path("picked/b.jpg")), -1)
        XCTAssertEqual(errno, EEXIST)
        XCTAssertEqual(readdirNames(m.path("picked")), ["c.jpg", "b.jpg"], "nothing changed")
        XCTAssertEqual(Glibc.rename(m.path("picked/c.jpg"), m.path("picked/b.jpg")), 0)
        XCTAssertEqual(readdirNames(m.path("picked")), ["b.jpg"])
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: m.path("picked/b.jpg")), "../by-date/2021/2021-12/2021-12-31/DSC01234.JPG")
        XCTAssertEqual(link("../non-screenshots/DSCF0001.JPG", m.path("picked/f.jpg")), 0, "the replaced pick's photo is no longer picked")
        m.finish()
    }

    func testPicksSurviveRemountSigkillAndCacheDeletion() throws {
        var m = try mount()
        XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", m.path("picked/keep.jpg")), 0)
        XCTAssertEqual(kill(m.process.processIdentifier, SIGKILL), 0)
        m.process.waitUntilExit()
        XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", m.mountpoint]).status, 0)
        try? FileManager.default.removeItem(atPath: m.cacheDir)
        rmdir(m.mountpoint)
        m = try mount()
        XCTAssertEqual(readdirNames(m.path("picked")), ["keep.jpg"])
        XCTAssertEqual(link("../non-screenshots/DSCF0001.JPG", m.path("picked/two.jpg")), 0)
        m.finish()
        m = try mount()
        XCTAssertEqual(readdirNames(m.path("picked")), ["keep.jpg", "two.jpg"])
        XCTAssertEqual(daemonStatus(m.mountpoint)["picks"], "2")
        XCTAssertEqual(daemonStatus(m.mountpoint)["picks_db"], picksDB)
        m.finish()
    }

    /// A library moved to another folder (renamed, or its disk mounted elsewhere) keeps its
    /// picks: its old folder is gone and its photos are here.
    func testPicksFollowTheLibraryToItsNewFolder() throws {
        var m = try mount()
        XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", m.path("picked/keep.jpg")), 0)
        XCTAssertEqual(link("../screenshots/IMG_1300.PNG", m.path("picked/shot.png")), 0)
        m.finish()
        let moved = source.path + "-moved"
        XCTAssertEqual(rename(source.path, moved), 0)
        defer { rename(moved, source.path) }
        m = try Mount(source: moved, options: ["-o", "picks_db=" + picksDB])
        XCTAssertEqual(readdirNames(m.path("picked")), ["keep.jpg", "shot.png"])
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: m.path("picked/keep.jpg")),
                       "../by-date/2021/2021-12/2021-12-31/DSC01234.JPG")
        XCTAssertEqual(FileManager.default.contents(atPath: m.path("picked/shot.png")),
                       FileManager.default.contents(atPath: moved + "/iPhone/IMG_1300.PNG"))
        XCTAssertTrue(m.stderr.contains("albumfs: the picks of \(source.path) (no library there now) follow the library to \(moved)"), m.stderr)
        m.finish(allowing: ["follow the library", "are those of the index"])  // its index follows too
        // The library back at its old place finds its picks there still; one taken at the new
        // place is not among them (each place keeps its own from here on).
        m = try Mount(source: moved, options: ["-o", "picks_db=" + picksDB])
        XCTAssertEqual(link("../non-screenshots/DSCF0001.JPG", m.path("picked/new.jpg")), 0)
        m.finish()
        XCTAssertEqual(rename(moved, source.path), 0)
        m = try mount()
        XCTAssertEqual(readdirNames(m.path("picked")), ["keep.jpg", "shot.png"])
        m.finish()
    }

    /// After an unmount the picks database file holds every pick by itself (its WAL folded in):
    /// a backup that copies just picks.sqlite loses none. (The daemon ends with `exit`, so SQLite
    /// never closed it, and the picks stayed in picks.sqlite-wal: a copy held none.)
    func testAfterUnmountThePicksFileAloneHoldsThePicks() throws {
        let m = try mount()
        XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", m.path("picked/keep.jpg")), 0)
        XCTAssertEqual(link("../non-screenshots/DSCF0001.JPG", m.path("picked/two.jpg")), 0)
        m.finish()
        let copy = state + "/copy.sqlite"
        XCTAssertEqual(shell("cp '\(picksDB)' '\(copy)'").status, 0)
        let count = runCommand("/usr/bin/sqlite3", [copy, "SELECT count(*) FROM picks"])
        XCTAssertEqual(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "2", count.stderr)
    }

    /// A picked photo whose folder is renamed keeps its pick: found again by its bytes among the
    /// photos of its name. Here its by-date name changes too (its collision tag is made from its
    /// path), so a pick left at the old path would dangle.
    func testAPickFollowsItsPhotoWhenItsFolderIsRenamed() throws {
        let m = try mount()
        let day = "by-date/2023/2023-07/2023-07-14/"
        let trip = try XCTUnwrap(readdirNames(m.path(day))?.first { $0.hasPrefix("IMG_0001~") }, "the second IMG_0001 of the day")
        XCTAssertEqual(xattr(m.path(day + trip), "user.albumfs.source"), source.path + "/Trip/IMG_0001.JPG")
        XCTAssertEqual(link("../" + day + trip, m.path("picked/trip.jpg")), 0)
        let bytes = FileManager.default.contents(atPath: source.path + "/Trip/IMG_0001.JPG")
        XCTAssertEqual(rename(source.path + "/Trip", source.path + "/Voyage"), 0)
        XCTAssertTrue(eventually { (try? FileManager.default.destinationOfSymbolicLink(atPath: m.path("picked/trip.jpg"))) != "../" + day + trip },
                      "the pick follows its photo to its new name")
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: m.path("picked/trip.jpg"))
        XCTAssertTrue(target.hasPrefix("../" + day + "IMG_0001~"), target)
        XCTAssertEqual(xattr(m.path(String(target.dropFirst(3))), "user.albumfs.source"), source.path + "/Voyage/IMG_0001.JPG")
        XCTAssertEqual(FileManager.default.contents(atPath: m.path("picked/trip.jpg")), bytes, "reading through the pick gives its photo")
        m.finish()
        // Saved: a remount shows the same.
        let again = try mount()
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: again.path("picked/trip.jpg")), target)
        again.finish()
    }

    /// A picked photo that is renamed (a batch rename by date) keeps its pick too: found by the
    /// identity (inode, size, mtime) its old path had, whatever its new name.
    func testAPickFollowsItsPhotoWhenItIsRenamed() throws {
        let m = try mount()
        XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", m.path("picked/sony.jpg")), 0)
        let renamed = source.path + "/Sony/2021-12-31 23.59.59.JPG"
        XCTAssertEqual(rename(source.path + "/Sony/DSC01234.JPG", renamed), 0)
        XCTAssertTrue(eventually {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: m.path("picked/sony.jpg"))) == "../by-date/2021/2021-12/2021-12-31/2021-12-31 23.59.59.JPG"
        }, "the pick follows its photo to its new name")
        XCTAssertEqual(FileManager.default.contents(atPath: m.path("picked/sony.jpg")), FileManager.default.contents(atPath: renamed))
        m.finish()
        // Renamed while not mounted: the tree from the index still knows what the old path was.
        XCTAssertEqual(rename(renamed, source.path + "/Sony/sony-a7.JPG"), 0)
        let again = try mount()
        XCTAssertTrue(eventually {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: again.path("picked/sony.jpg"))) == "../by-date/2021/2021-12/2021-12-31/sony-a7.JPG"
        }, "followed across a remount")
        again.finish()
    }

    /// A picks database that cannot be opened (a read-only home) or read (a damaged file) does not
    /// keep the library from mounting: one warning, `picked/` shows none and takes none (EROFS),
    /// every other view works, and the file is left byte for byte as it was.
    func testAPicksDatabaseThatCannotBeUsedLeavesTheRestMounted() throws {
        let damaged = state + "/damaged.sqlite"
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        XCTAssertTrue(FileManager.default.createFile(atPath: damaged, contents: garbage))
        for database in ["/proc/albumfs-no-such/picks.sqlite", damaged] {
            let m = try Mount(source: source.path, options: ["-o", "picks_db=" + database])
            XCTAssertEqual(readdirNames(m.path("picked")), [])
            XCTAssertEqual(daemonStatus(m.mountpoint)["picks_db"], "none")
            XCTAssertEqual((statOf(m.path("picked"))?.st_mode ?? 0) & 0o7777, 0o555, "no write bits shown")
            XCTAssertEqual(access(m.path("picked"), W_OK) == 0 ? 0 : errno, EROFS)
            XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", m.path("picked/sony.jpg")), EROFS)
            XCTAssertEqual(unlink(m.path("picked/sony.jpg")) == 0 ? 0 : errno, ENOENT, "no pick to unpick")
            XCTAssertEqual(Glibc.rename(m.path("picked/sony.jpg"), m.path("picked/a7.jpg")) == 0 ? 0 : errno, ENOENT, "no pick to rename")
            XCTAssertNotNil(try? readFile(m.path("non-screenshots/DSC01234.JPG")).get(), "the other views work")
            m.finish(allowing: ["the picks database \(database) cannot be used"])
            XCTAssertTrue(m.stderr.contains("picked/ shows no picks and takes none for this mount"), m.stderr)
        }
        XCTAssertEqual(FileManager.default.contents(atPath: damaged), garbage, "the damaged file is left as it was")
    }

    func testAPickWhosePhotoVanishesDanglesAndComesBack() throws {
        var m = try mount()
        XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", m.path("picked/sony.jpg")), 0)
        m.finish()
        XCTAssertEqual(Glibc.rename(source.path + "/Sony/DSC01234.JPG", state + "/away.jpg"), 0)
        m = try mount()
        XCTAssertEqual(readdirNames(m.path("picked")), ["sony.jpg"], "the selection is the user's data")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: m.path("picked/sony.jpg")), "../by-date/2021/2021-12/2021-12-31/DSC01234.JPG")
        XCTAssertEqual(open(m.path("picked/sony.jpg"), O_RDONLY), -1)
        XCTAssertEqual(errno, ENOENT)
        m.finish()
        XCTAssertEqual(Glibc.rename(state + "/away.jpg", source.path + "/Sony/DSC01234.JPG"), 0)
        m = try mount()
        XCTAssertEqual(FileManager.default.contents(atPath: m.path("picked/sony.jpg")), FileManager.default.contents(atPath: source.path + "/Sony/DSC01234.JPG"))
        m.finish()
    }

    func testLimitHoldsUnderEightConcurrentLinks() throws {
        let m = try mount(["-o", "max_picks=3"])
        let targets = ["DSC01234.JPG", "DSCF0001.JPG", "DSC_0001.JPG", "IMG_1234.JPG", "IMG_0002.JPG", "orient-1.jpg", "orient-2.jpg", "orient-3.jpg"]
        let script = targets.map { "(ln -s ../non-screenshots/\($0) '\(m.path("picked"))/' 2>&1; echo \"rc=$?\") &" }.joined(separator: "\n") + "\nwait"
        let r = shell(script)
        XCTAssertEqual(r.stdout.components(separatedBy: "rc=0").count - 1, 3, r.stdout)
        XCTAssertEqual(r.stdout.components(separatedBy: "Disk quota exceeded").count - 1, 5, r.stdout)
        XCTAssertEqual(readdirNames(m.path("picked"))?.count, 3)
        m.finish()
        let again = try mount(["-o", "max_picks=3"])
        XCTAssertEqual(link("../non-screenshots/orient-4.jpg", again.path("picked/x.jpg")), EDQUOT, "the limit holds after a remount")
        again.finish()
    }

    func testDuplicatesByViewNameAndContentAreRefused() throws {
        let m = try mount()
        XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", m.path("picked/a.jpg")), 0)
        XCTAssertEqual(link("../by-date/2021/2021-12/2021-12-31/DSC01234.JPG", m.path("picked/b.jpg")), EEXIST, "same photo, other view and name")
        XCTAssertEqual(link("../thumbnails/200x200/DSC01234.jpg", m.path("picked/c.jpg")), EEXIST, "same photo through its thumbnail")
        XCTAssertEqual(link("../picked/a.jpg", m.path("picked/d.jpg")), EEXIST, "same photo through its pick")
        // clip.png and "Screenshot 2023-01-05 at 12.34.56.png" are byte-identical files.
        XCTAssertEqual(link("../screenshots/clip.png", m.path("picked/clip.png")), 0)
        XCTAssertEqual(link("../screenshots/Screenshot 2023-01-05 at 12.34.56.png", m.path("picked/same.png")), EEXIST, "same bytes")
        XCTAssertEqual(readdirNames(m.path("picked")), ["a.jpg", "clip.png"])
        m.finish()
    }

    func testBadInputsGetTheirErrnoAndChangeNothing() throws {
        let m = try mount()
        let p = m.path("picked")
        XCTAssertEqual(link("/etc/passwd", p + "/outside"), EINVAL)
        XCTAssertEqual(link("../../../etc/passwd", p + "/escape"), EINVAL)
        XCTAssertEqual(link("../by-date/2024", p + "/folder"), EINVAL)
        XCTAssertEqual(link("../.albumfs/status", p + "/status"), EINVAL)
        XCTAssertEqual(link("../non-screenshots/no-such.jpg", p + "/dangling"), EINVAL)
        XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", m.path("non-screenshots/link.jpg")), EROFS)
        XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", m.mountpoint + "/link.jpg"), EROFS)
        XCTAssertEqual(open(p + "/file.jpg", O_CREAT | O_WRONLY, 0o644), -1)
        XCTAssertEqual(errno, EPERM)
        XCTAssertEqual(mkdir(p + "/folder", 0o755), -1)
        XCTAssertEqual(errno, EPERM)
        XCTAssertEqual(Glibc.link(m.path("non-screenshots/DSC01234.JPG"), p + "/hard.jpg"), -1)
        XCTAssertEqual(errno, EPERM)
        XCTAssertEqual(mknod(p + "/fifo", S_IFIFO | 0o644, 0), -1)
        XCTAssertEqual(errno, EPERM)
        XCTAssertEqual(link("../non-screenshots/DSC01234.JPG", p + "/a.jpg"), 0)
        XCTAssertEqual(link("../non-screenshots/DSCF0001.JPG", p + "/a.jpg"), EEXIST, "a name that exists")
        XCTAssertEqual(link("../non-screenshots/DSCF0001.JPG", p + "/" + String(repeating: "n", count: 256)), ENAMETOOLONG)
        XCTAssertEqual(readdirNames(p), ["a.jpg"])
        m.finish()
    }

    /// renameat2(2) with RENAME_NOREPLACE (what `mv -n` asks), which Swift's Glibc module does
    /// not declare: looked up in the C library by name.
    func renameNoReplace(_ from: String, _ to: String) -> Int32 {
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return -2 }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let noReplace: UInt32 = 1
        return renameat2(AT_FDCWD, from, AT_FDCWD, to, noReplace)
    }
}
