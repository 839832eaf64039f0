import Foundation
import Glibc
import XCTest

/// docs/status.md's keys that no other test reads, each with a value of its documented form.
final class StatusTests: SampleLibraryTestCase {
    func testTheScanAndCacheKeysHaveValuesOfTheirForm() throws {
        let m = try Mount(source: source.path, options: ["-o", "thumbnail_sizes=200x200,64x48", "-o", "cache_size=5M"])
        var status = daemonStatus(m.mountpoint)
        XCTAssertNotNil(status["last_scan_seconds"].flatMap { $0.wholeMatch(of: /\d+\.\d{3}/) }, "\(status)")
        // Every folder of the library is watched (hidden ones and NAS system folders are not scanned).
        // (Links to folders are not followed, so not watched: `lstat`.)
        let folders = (FileManager.default.enumerator(atPath: source.path)?.allObjects as? [String] ?? []).filter { path in
            var st = stat()
            return lstat(source.path + "/" + path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
                && !path.split(separator: "/").contains { $0.hasPrefix(".") || $0 == "@eaDir" }
        }
        XCTAssertEqual(status["watched_folders"], String(folders.count + 1), "the library's folder and each of its \(folders.count)")
        XCTAssertEqual(status["thumbnail_sizes"], "200x200,64x48")
        XCTAssertEqual(status["thumbnail_cache_dir"], m.cacheDir)
        XCTAssertEqual(status["thumbnail_cache_limit"], String(5 << 20))
        XCTAssertEqual(status["thumbnail_cache_bytes"], "0")
        XCTAssertEqual(status["thumbnail_cache_writes"], "ok")
        let bytes = try readFile(m.path("thumbnails/64x48/DSC01234.jpg")).get()
        status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["thumbnail_cache_bytes"], String(bytes.count), "one thumbnail cached")
        m.finish()
    }

    /// `scan_state` goes `loading` (until the first scan starts), `scanning`, `done`; each live
    /// update makes it `rescanning`, then `done` again. Each status read is a snapshot, so the
    /// states seen are checked to come in that order, and the long ones to be seen at all.
    func testScanStateGoesThroughItsValuesInOrder() throws {
        let big = state + "/big"
        XCTAssertEqual(runCommand(albumfsBinary(), ["sample", big, "--count", "3000"]).status, 0)
        let m = try Mount(source: big, options: ["-o", "index=\(state!)/index.sqlite"], waitForScan: false)
        let first = states(of: m) { $0["scan_state"] == "done" }
        XCTAssertTrue(["loading", "scanning", "done"].isOrdered(first), "\(first)")
        XCTAssertTrue(first.contains("scanning"), "\(first)")
        // A folder of 1,000 new photos moved in at once: rescans read them.
        let arriving = state + "/arriving"
        XCTAssertEqual(runCommand(albumfsBinary(), ["sample", arriving, "--count", "1000"]).status, 0)
        XCTAssertEqual(rename(arriving + "/bulk", big + "/arrived"), 0)
        let live = states(of: m) { $0["scan_state"] == "done" && $0["changes_pending"] == "0" && $0["photos"] == "4000" }
        XCTAssertEqual(Set(live), ["done", "rescanning"], "\(live)")
        XCTAssertEqual(live.last, "done")
        m.finish()
    }

    /// A remount shows the photos of its views snapshot at once, and `photos` counts them while
    /// the first scan checks the snapshot (`loading`, `scanning`), not 0.
    func testPhotosCountsWhatTheViewsShowWhileARemountChecksThem() throws {
        let big = state + "/big"
        XCTAssertEqual(runCommand(albumfsBinary(), ["sample", big, "--count", "10000"], timeout: 120).status, 0)
        let options = ["-o", "index=\(state!)/index.sqlite", "-o", "scan_wait=0"]
        var m = try Mount(source: big, options: options)
        XCTAssertTrue(eventually(60) { daemonStatus(m.mountpoint)["scan_state"] == "done" })
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], "10000")
        m.finish()
        m = try Mount(source: big, options: options, waitForScan: false)
        var before: [String] = [], done = false
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && !done {
            let status = daemonStatus(m.mountpoint)
            done = status["scan_state"] == "done"
            if !done, let state = status["scan_state"] { before.append(state + " " + (status["photos"] ?? "?")) }
            if !done { usleep(1_000) }
        }
        XCTAssertTrue(done, "the remount's first scan ended within 60 s: \(before.suffix(3))")
        XCTAssertEqual(daemonStatus(m.mountpoint)["first_tree"], "views snapshot")
        XCTAssertFalse(before.isEmpty, "a status read while the snapshot was checked")
        XCTAssertEqual(Set(before.map { $0.split(separator: " ")[1] }), ["10000"], "\(Set(before))")
        XCTAssertEqual(daemonStatus(m.mountpoint)["photos"], "10000")
        m.finish()
    }

    /// `-o scan_wait` and `scan_progress` by what they do. With `scan_wait=0` the launcher returns
    /// while the first scan of 20,000 new files runs (about a second), and `scan_progress` (headers read / to read)
    /// climbs through it, never past its total nor back, to every file read; with a wait longer
    /// than the scan the launcher returns once the scan is done.
    func testScanWaitAndScanProgressFollowTheFirstScan() throws {
        let big = state + "/big", total = 20_000
        try copies(total, into: big)
        let quick = try launch(big, index: "quick", scanWait: 0)
        defer { unmountLaunched(quick) }
        var status = daemonStatus(quick)
        XCTAssertNotEqual(status["scan_state"], "done", "scan_wait=0 returns before the scan ends: \(status)")
        var samples: [(read: Int, toRead: Int)] = []
        XCTAssertTrue(eventually(120) {
            status = daemonStatus(quick)
            if let parts = status["scan_progress"]?.split(separator: "/").compactMap({ Int($0) }), parts.count == 2 { samples.append((parts[0], parts[1])) }
            return status["scan_state"] == "done"
        }, "the first scan ends: \(status)")
        XCTAssertFalse(samples.isEmpty, "scan_progress is in the status")
        XCTAssertTrue(samples.allSatisfy { $0.read <= $0.toRead }, "never past its total: \(samples.suffix(5))")
        XCTAssertTrue(zip(samples, samples.dropFirst()).allSatisfy { $0.read <= $1.read }, "never back")
        XCTAssertTrue(samples.contains { $0.read > 0 && $0.read < total }, "seen part way: \(samples.prefix(5))")
        XCTAssertEqual(status["header_reads"], String(total))
        XCTAssertEqual(status["scan_progress"], "\(total)/\(total)", "every file read, of every file to read")

        let waited = try launch(big, index: "waited", scanWait: 300)
        defer { unmountLaunched(waited) }
        status = daemonStatus(waited)
        XCTAssertEqual(status["scan_state"], "done", "a scan_wait longer than the scan returns once it is done: \(status)")
        XCTAssertEqual(status["photos"], String(total))
        XCTAssertEqual(status["scan_progress"], "\(total)/\(total)")
    }

    /// `count` new photos in `folder`: the sample generator's 500 dated camera photos, and copies
    /// of them under other names in 39 more folders (quicker to write than to generate).
    func copies(_ count: Int, into folder: String) throws {
        let made = runCommand(albumfsBinary(), ["sample", folder + "/0", "--count", "500"], timeout: 120)
        XCTAssertEqual(made.status, 0, made.stderr)
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: folder + "/0")?.allObjects as? [String])
            .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".JPG") }.map { folder + "/0/" + $0 }
        XCTAssertEqual(files.count, 500, "the sample's photos")
        let contents = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        for copy in 1..<(count / files.count) {
            try FileManager.default.createDirectory(atPath: folder + "/\(copy)", withIntermediateDirectories: true)
            for (i, data) in contents.enumerated() { try data.write(to: URL(fileURLWithPath: folder + "/\(copy)/IMG_\(i).JPG")) }
        }
    }

    /// A mount made as a script makes it (the launcher returns once the mount answers, after at
    /// most `scan_wait`), with an index of its own and the test's cache; its mount point.
    func launch(_ source: String, index: String, scanWait: Int) throws -> String {
        let mountpoint = makeTempFolder("mnt")
        let r = runCommand(albumfsBinary(), [source, mountpoint, "-o", "scan_wait=\(scanWait),index=\(state!)/\(index).sqlite",
                                             "-o", "cache_dir=\(state!)/cache-\(index),picks_db=\(state!)/picks-\(index).sqlite"], timeout: 400)
        XCTAssertEqual(r.status, 0, r.stderr)
        guard isMounted(mountpoint) else { throw HarnessError(message: "not mounted: \(r.stderr)") }
        return mountpoint
    }

    /// Unmounts and waits for the daemon to end: it writes its views snapshot into the test's
    /// state folder after the unmount, which the test removes next.
    func unmountLaunched(_ mountpoint: String) {
        let pid = daemonPid(for: mountpoint)
        XCTAssertNotNil(pid, "the daemon of \(mountpoint)")
        XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", mountpoint]).status, 0)
        XCTAssertTrue(eventually(20) { !isMounted(mountpoint) }, "unmounted")
        XCTAssertTrue(waitUntilGone(pid), "the daemon ended")
        rmdir(mountpoint)
    }

    /// `thumbnail_cache_writes` says when the cache cannot take a thumbnail (here a cache on a
    /// filesystem of the test's own, filled up): the thumbnail is still served, kept in memory,
    /// and the key goes back to `ok` once a write succeeds again.
    func testThumbnailCacheWritesSaysWhenTheCacheCannotBeWritten() throws {
        let disk = makeTempFolder("smallfs")
        XCTAssertEqual(runCommand("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", disk]).status, 0)
        defer {
            XCTAssertEqual(runCommand("/usr/bin/umount", [disk]).status, 0)
            rmdir(disk)
        }
        let m = try Mount(source: source.path, options: ["-o", "cache_dir=\(disk)/cache"])
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnail_cache_writes"], "ok")
        // The disk filled to its last few bytes.
        let filler = disk + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let block = [UInt8](repeating: 7, count: 4096)
        while write(fd, block, block.count) == block.count {}
        close(fd)
        let first = try readFile(m.path("thumbnails/200x200/IMG_1234.jpg")).get()
        XCTAssertNotNil(DecodedImage(jpeg: first), "served though not cached")
        var status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["thumbnail_cache_writes"], "failing (No space left on device): kept in memory", "\(status)")
        let rendered = status["thumbnails_rendered"]
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/IMG_1234.jpg")).get(), first)
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnails_rendered"], rendered, "kept in memory: not made again")
        XCTAssertEqual(unlink(filler), 0)
        _ = try readFile(m.path("thumbnails/200x200/DSC01234.jpg")).get()
        status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["thumbnail_cache_writes"], "ok", "a write that succeeds again: \(status)")
        XCTAssertNotEqual(status["thumbnail_cache_bytes"], "0")
        m.finish(allowing: ["warning: thumbnail cache \(disk)/cache cannot be written"])
    }

    /// The distinct `scan_state` values a mount's status shows, in the order seen, read every 2 ms
    /// until `finished` holds (at most 60 s: a failure of the caller's test if it never does).
    func states(of m: Mount, until finished: ([String: String]) -> Bool, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        var seen: [String] = [], status: [String: String] = [:], ended = false
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && !ended {
            status = daemonStatus(m.mountpoint)
            if let state = status["scan_state"], state != seen.last { seen.append(state) }
            ended = finished(status)
            if !ended { usleep(2_000) }
        }
        XCTAssertTrue(ended, "the status reached what the test waits for within 60 s: \(status)", file: file, line: line)
        return seen
    }
}

extension Array where Element == String {
    /// Whether `seen` runs through this sequence in order, each step taken at most once and any
    /// step possibly skipped.
    func isOrdered(_ seen: [String]) -> Bool {
        var position = 0
        for s in seen {
            guard let i = self[position...].firstIndex(of: s) else { return false }
            position = i + 1
        }
        return true
    }
}
