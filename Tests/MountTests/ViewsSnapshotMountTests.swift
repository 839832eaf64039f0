import AlbumSample
import Foundation
import Glibc
import XCTest

/// A remount answers from the views snapshot saved beside the index, and its first scan checks
/// what that showed against the index and the files.
final class ViewsSnapshotMountTests: SampleLibraryTestCase {
    var indexPath: String { state + "/index.sqlite" }
    var snapshotPath: String { indexPath + ".views" }

    func mount(_ extra: [String] = [], waitForScan: Bool = true) throws -> Mount {
        try Mount(source: source.path, options: ["-o", "index=" + indexPath] + extra, waitForScan: waitForScan)
    }

    /// The photos the tree held when the mount answered (its `ready:` line).
    func photosWhenReady(_ m: Mount) -> Int? {
        guard let line = m.stderr.split(separator: "\n").first(where: { $0.hasPrefix("albumfs: ready: ") }) else { return nil }
        return Int(line.dropFirst("albumfs: ready: ".count).prefix { $0.isNumber })
    }

    func sqlite(_ statement: String) {
        let r = runCommand("/usr/bin/sqlite3", [indexPath, statement])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    /// The tree once the hash pass of duplicates/similar/ has shown its groups (asserted).
    func tree(_ m: Mount, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        XCTAssertTrue(eventually(60) { daemonStatus(m.mountpoint)["similar"] == "done" }, "\(daemonStatus(m.mountpoint))", file: file, line: line)
        return GoldenTreeTests.lines(of: m, prefix: source.path + "/")
    }

    func testARemountAnswersFromTheSnapshotAndChecksIt() throws {
        var m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["first_tree"], "index")
        let shown = tree(m)
        let photos = try XCTUnwrap(Int(daemonStatus(m.mountpoint)["photos"] ?? ""))
        XCTAssertGreaterThan(shown.count, photos)
        m.finish()
        XCTAssertNotNil(statOf(snapshotPath), "saved beside the index")

        m = try mount()
        var status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["first_tree"], "views snapshot")
        XCTAssertEqual(photosWhenReady(m), photos)
        XCTAssertEqual(status["header_reads"], "0")
        XCTAssertTrue(m.stderr.contains("nothing changed: the tree stays"), m.stderr)
        XCTAssertEqual(tree(m), shown, "every entry, mode, size, time and attribute")
        m.finish()

        // A row gone from the index behind the mount's back (its generation kept): the snapshot
        // still shows the photo at once, and the check reads it again.
        let victim = try XCTUnwrap(source.items.first { $0.expectedDay != nil && $0.path.hasSuffix(".jpg") }).path
        sqlite("DELETE FROM files WHERE path = '\(victim)'")
        m = try mount()
        status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["first_tree"], "views snapshot")
        XCTAssertEqual(photosWhenReady(m), photos, "shown from the snapshot, not from the rows")
        XCTAssertEqual(status["header_reads"], "1")
        XCTAssertEqual(tree(m), shown)
        m.finish()

        // Any write since the snapshot (`albumfs index`, a mount killed before saving its views)
        // and it is refused: the tree is the rows'.
        sqlite("DELETE FROM files WHERE path = '\(victim)'; UPDATE library SET value = value + 1 WHERE key = 'generation'")
        m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["first_tree"], "index")
        XCTAssertEqual(photosWhenReady(m), photos - 1)
        XCTAssertEqual(tree(m), shown, "the check read the photo again")
        m.finish()  // (a snapshot left behind by the index is no failure: not said)

        // Other options shape other views: refused.
        m = try mount(["-o", "thumbnail_sizes=120x90"])
        XCTAssertEqual(daemonStatus(m.mountpoint)["first_tree"], "index")
        XCTAssertNotNil(statOf(m.path("thumbnails/120x90")))
        m.finish()
    }

    /// A damaged or foreign snapshot is refused with one line; the mount is as without one.
    func testADamagedSnapshotIsRefused() throws {
        var m = try mount()
        let shown = tree(m)
        m.finish()
        var st = stat()
        XCTAssertEqual(stat(snapshotPath, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
        XCTAssertEqual(truncate(snapshotPath, st.st_size / 2), 0)
        m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["first_tree"], "index")
        // (Where the cut falls decides which check refuses it first: the bytes end, or a count
        // says more follow than the bytes left could hold.)
        XCTAssertTrue(m.stderr.contains("is not used (cut short)") || m.stderr.contains("is not used (a count past the end)"), m.stderr)
        XCTAssertEqual(tree(m), shown)
        m.finish(allowing: ["is not used"])
        XCTAssertTrue(FileManager.default.createFile(atPath: snapshotPath, contents: Data(repeating: 0x41, count: 4096)))
        m = try mount()
        XCTAssertEqual(daemonStatus(m.mountpoint)["first_tree"], "index")
        XCTAssertEqual(tree(m), shown)
        m.finish(allowing: ["is not used"])
    }

    /// The snapshot's tree is replaced by the checked one with the same inode numbers: a file
    /// manager's open folder and `find`'s walk see no entry change under them.
    func testInodesStayWhenTheSnapshotTreeIsReplaced() throws {
        var m = try mount()
        let paths = ["non-screenshots", "by-date", "videos", "thumbnails/200x200"].compactMap { folder in
            readdirNames(m.path(folder))?.first.map { folder + "/" + $0 }
        }
        XCTAssertEqual(paths.count, 4)
        m.finish()
        m = try mount(waitForScan: false)
        let before = paths.map { statOf(m.path($0))?.st_ino }
        XCTAssertTrue(eventually(20) { daemonStatus(m.mountpoint)["scan_state"] == "done" })
        XCTAssertEqual(daemonStatus(m.mountpoint)["first_tree"], "views snapshot")
        XCTAssertEqual(paths.map { statOf(m.path($0))?.st_ino }, before)
        XCTAssertFalse(before.contains(nil))
        m.finish()
    }
}
