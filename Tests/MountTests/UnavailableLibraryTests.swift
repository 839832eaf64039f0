import Foundation
import Glibc
import XCTest

/// A library that cannot be listed for a while (its folder renamed, its disk unmounted, a
/// folder made unreadable) is unavailable, not emptied: the views keep what they showed, the
/// index keeps its rows, `.albumfs/errors` and the status say why, and once it is back nothing
/// unchanged is read again.
final class UnavailableLibraryTests: SampleLibraryTestCase {
    var indexPath: String { state + "/index.sqlite" }
    var photoCount: String { String(source.items.filter { $0.expectedDay != nil }.count) }

    func indexRows() -> Int {
        let r = runCommand("/usr/bin/sqlite3", [indexPath, "SELECT count(*) FROM files"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The same, once `m` has written every row it read (a first scan writes them after its
    /// views are published: `index_pending`).
    func indexRows(after m: Mount) -> Int {
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["index_pending"] == "0" }, "the first scan's rows written")
        return indexRows()
    }

    func errors(_ m: Mount) -> String { (try? String(contentsOfFile: m.path(".albumfs/errors"), encoding: .utf8)) ?? "" }

    func testTheLibraryFolderRenamedAwayAndBack() throws {
        let m = try Mount(source: source.path, options: ["-o", "index=" + indexPath])
        let listing = readdirNames(m.path("non-screenshots"))
        let rows = indexRows(after: m)
        let away = source.path + ".away"
        XCTAssertEqual(rename(source.path, away), 0)
        defer { _ = rename(away, source.path) }
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["library_state"] == "unavailable" })
        XCTAssertTrue(errors(m).contains(".: cannot list folder: No such file or directory"), errors(m))
        XCTAssertEqual(readdirNames(m.path("non-screenshots")), listing, "the views keep what they showed")
        XCTAssertEqual(readAll(m.path("non-screenshots/" + (listing?.first ?? "?"))).errno, EIO, "as sshfs answers with its server gone")
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], photoCount)
        XCTAssertEqual(indexRows(), rows, "the index keeps its rows")
        XCTAssertEqual(rename(away, source.path), 0)
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["library_state"] == "available" })
        XCTAssertTrue(eventually { !self.errors(m).contains("cannot list folder") }, errors(m))
        let status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["header_reads"], status["files_seen"], "nothing read again: \(status)")
        XCTAssertEqual(readdirNames(m.path("non-screenshots")), listing)
        XCTAssertEqual(readAll(m.path("non-screenshots/" + (listing?.first ?? "?"))).errno, 0)
        m.finish(allowing: ["cannot list folder", "can be listed again", "cannot open"])
        XCTAssertTrue(m.stderr.contains("the views keep what they showed until it is back"), m.stderr)
        XCTAssertTrue(m.stderr.contains("can be listed again"), m.stderr)
    }

    /// The disk the library is on is unmounted: what is left is an empty folder of another
    /// filesystem (here a tmpfs mounted over a folder, then unmounted).
    func testTheLibraryDiskUnmounted() throws {
        let disk = state + "/disk"
        XCTAssertEqual(mkdir(disk, 0o755), 0)
        XCTAssertEqual(runCommand("/usr/bin/mount", ["-t", "tmpfs", "tmpfs", disk]).status, 0)
        var mounted = true
        defer { if mounted { unmountTestDisk(disk) } }
        XCTAssertEqual(shell("cp -a '\(source.path)'/. '\(disk)'/").status, 0)
        let m = try Mount(source: disk, options: ["-o", "index=" + indexPath, "-o", "rescan=1"])
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], photoCount)
        let rows = indexRows(after: m)
        // (A rescan may hold a folder of it open for a moment: "target is busy", retried.)
        XCTAssertTrue(eventually { runCommand("/usr/bin/umount", [disk]).status == 0 }, "the disk unmounts")
        mounted = false
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["library_state"] == "unavailable" })
        XCTAssertTrue(errors(m).contains(".: the library's disk is not mounted"), errors(m))
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], photoCount)
        XCTAssertEqual(indexRows(), rows)
        let photo = try XCTUnwrap(readdirNames(m.path("non-screenshots"))?.first)
        XCTAssertEqual(readAll(m.path("non-screenshots/" + photo)).errno, EIO, "the disk is gone, not the photo")
        m.finish(allowing: ["the library's disk is not mounted", "cannot open"])
        // `albumfs index` refuses the empty folder too (it emptied the index: 42 removed).
        let refresh = runCommand(albumfsBinary(), ["index", "-o", "index=" + indexPath, disk])
        XCTAssertEqual(refresh.status, 3, refresh.stdout + refresh.stderr)
        XCTAssertTrue(refresh.stderr.contains("the library's disk is not mounted"), refresh.stderr)
        XCTAssertEqual(indexRows(), rows)
        // A new mount while the disk is still not mounted: the index knows the device, so the
        // empty folder is not taken for an emptied library either.
        let again = try Mount(source: disk, options: ["-o", "index=" + indexPath])
        XCTAssertEqual(daemonStatus(again.mountpoint)["library_state"], "unavailable")
        XCTAssertEqual(daemonStatus(again.mountpoint)["photos"], photoCount)
        XCTAssertTrue(errors(again).contains(".: the library's disk is not mounted"), errors(again))
        XCTAssertEqual(indexRows(), rows)
        // The disk mounted again, its photos there at once (a tmpfs filled aside, then bound in
        // place); no periodic rescan is due: the mount table's change is noticed.
        let stage = state + "/stage"
        XCTAssertEqual(mkdir(stage, 0o755), 0)
        XCTAssertEqual(runCommand("/usr/bin/mount", ["-t", "tmpfs", "tmpfs", stage]).status, 0)
        defer { unmountTestDisk(stage) }
        XCTAssertEqual(shell("cp -a '\(source.path)'/. '\(stage)'/").status, 0)
        XCTAssertEqual(runCommand("/usr/bin/mount", ["--bind", stage, disk]).status, 0)
        mounted = true
        XCTAssertTrue(eventually(5) { daemonStatus(again.mountpoint)["library_state"] == "available" }, "\(daemonStatus(again.mountpoint))")
        XCTAssertTrue(eventually { !self.errors(again).contains("not mounted") }, errors(again))
        XCTAssertEqual(daemonStatus(again.mountpoint)["photos"], photoCount)
        again.finish(allowing: ["the library's disk is not mounted", "the library is unavailable", "can be listed again"])
    }

    /// A folder that cannot be listed (here made unreadable for a daemon without root's
    /// read-anything capabilities) keeps its photos listed, for the mount and `albumfs index`.
    func testAnUnreadableFolderKeepsItsPhotos() throws {
        let folder = source.path + "/Sony"
        let inside = source.items.filter { $0.path.hasPrefix("Sony/") && $0.expectedDay != nil }.map { ($0.path as NSString).lastPathComponent }
        XCTAssertFalse(inside.isEmpty)
        let m = try Mount(source: source.path, options: ["-o", "index=" + indexPath],
                          launcher: ["/usr/bin/setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--inh-caps", "-all"])
        let rows = indexRows(after: m)
        XCTAssertEqual(chmod(folder, 0), 0)
        defer { chmod(folder, 0o755) }
        XCTAssertTrue(eventually { self.errors(m).contains("Sony: cannot list folder: Permission denied") }, errors(m))
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], photoCount)
        XCTAssertEqual(daemonStatus(m.mountpoint)["library_state"], "available", "only a folder of it")
        let listed = Set(readdirNames(m.path("non-screenshots")) ?? [])
        XCTAssertTrue(Set(inside).isSubset(of: listed), "\(inside) still listed")
        XCTAssertEqual(indexRows(), rows)
        let refresh = runCommand("/usr/bin/setpriv", ["--bounding-set", "-dac_override,-dac_read_search", "--inh-caps", "-all",
                                                      albumfsBinary(), "index", "-o", "index=" + indexPath, source.path])
        XCTAssertEqual(refresh.status, 0, refresh.stderr)
        XCTAssertTrue(refresh.stdout.contains(", 0 removed,"), refresh.stdout)
        XCTAssertEqual(indexRows(), rows)
        XCTAssertEqual(chmod(folder, 0o755), 0)
        XCTAssertTrue(eventually { !self.errors(m).contains("cannot list folder") }, errors(m))
        // Readable but not searchable: its names are listed, its files cannot be stat'ed.
        XCTAssertEqual(chmod(folder, 0o644), 0)
        XCTAssertTrue(eventually { self.errors(m).contains("Sony: cannot list folder: Permission denied") }, errors(m))
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], photoCount)
        XCTAssertEqual(indexRows(), rows)
        XCTAssertEqual(chmod(folder, 0o755), 0)
        XCTAssertTrue(eventually { !self.errors(m).contains("cannot list folder") }, errors(m))
        let status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["header_reads"], status["files_seen"], "nothing read again: \(status)")
        m.finish(allowing: ["cannot list folder"])
    }
}
