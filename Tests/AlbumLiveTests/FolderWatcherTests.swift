@testable import AlbumLive
import Foundation
import Glibc
import XCTest

/// What the watcher says of each entry: whether it is whole (no need to wait for it to settle).
final class FolderWatcherTests: XCTestCase {
    /// Events seen, by entry name: its last `complete` flag.
    final class Seen: @unchecked Sendable {
        private var entries: [String: Bool] = [:]
        private let lock = NSLock()
        func add(_ list: [(name: String, complete: Bool)]) { lock.withLock { for e in list { entries[e.name] = e.complete } } }
        func complete(_ name: String) -> Bool? { lock.withLock { entries[name] } }
    }

    func testWrittenAndClosedOrRenamedIntoPlaceIsCompleteStillOpenIsNot() throws {
        let folder = NSTemporaryDirectory() + "albumfs-watch-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let seen = Seen()
        let watcher = try XCTUnwrap(FolderWatcher(maxWatches: nil, onChange: { _, entries in seen.add(entries) }, warn: { XCTFail($0) }))
        watcher.watch(folder)
        watcher.start()
        defer { watcher.stop() }
        func eventually(_ condition: () -> Bool) -> Bool {
            for _ in 0..<250 where !condition() { usleep(20_000) }
            return condition()
        }
        // Still being written: open, some bytes, not closed.
        let open = Glibc.open(folder + "/copying.jpg", O_WRONLY | O_CREAT, 0o644)
        XCTAssertGreaterThanOrEqual(open, 0)
        XCTAssertEqual(write(open, "abc", 3), 3)
        XCTAssertTrue(eventually { seen.complete("copying.jpg") == false })
        // Closed after writing: whole.
        close(open)
        XCTAssertTrue(eventually { seen.complete("copying.jpg") == true })
        // Written under a hidden name, then renamed into place (rsync, Syncthing): whole at once.
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/.synced.jpg.tmp", contents: Data("xyz".utf8)))
        XCTAssertEqual(rename(folder + "/.synced.jpg.tmp", folder + "/synced.jpg"), 0)
        XCTAssertTrue(eventually { seen.complete("synced.jpg") == true })
    }

    /// A watcher stopped ends its thread (woken through its pipe, not a timeout) and closes every
    /// descriptor it opened: inotify's, the mount table's, both ends of the pipe. (Other tests'
    /// threads may open and close descriptors meanwhile: each of the watcher's is checked by
    /// number and by what it was, a pipe by its inode.)
    func testAStoppedWatcherEndsAndClosesItsDescriptors() throws {
        func open() -> [String: String] {
            let numbers = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return Dictionary(numbers.compactMap { n in (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + n)).map { (n, $0) } },
                              uniquingKeysWith: { a, _ in a })
        }
        weak var gone: FolderWatcher?
        var its: [String: String] = [:]
        do {
            let before = open()
            let watcher = try XCTUnwrap(FolderWatcher(maxWatches: nil, onChange: { _, _ in }, warn: { XCTFail($0) }))
            its = open().filter { before[$0.key] != $0.value && ($0.value.hasPrefix("pipe:") || $0.value == "anon_inode:inotify" || $0.value.hasSuffix("/mountinfo")) }
            XCTAssertEqual(its.values.filter { $0.hasPrefix("pipe:") }.count, 2, "the wake pipe's two ends: \(its)")
            XCTAssertEqual(its.values.filter { $0 == "anon_inode:inotify" }.count, 1, "\(its)")
            XCTAssertEqual(its.values.filter { $0.hasSuffix("/mountinfo") }.count, 1, "\(its)")
            watcher.start()
            gone = watcher
            watcher.stop()
        }
        for _ in 0..<250 where gone != nil { usleep(20_000) }
        XCTAssertNil(gone, "the thread let go of the watcher")
        // (The weak reference is cleared as the watcher's deinit begins, on the watcher's thread;
        // the descriptors close in that deinit a moment later.)
        func allClosed() -> Bool { let now = open(); return its.allSatisfy { now[$0.key] != $0.value } }
        for _ in 0..<250 where !allClosed() { usleep(20_000) }
        let after = open()
        for (number, what) in its { XCTAssertNotEqual(after[number], what, "descriptor \(number) (\(what)) still open") }
    }

    /// A folder renamed away and back (or another made under its name) is watched under its name
    /// again: its events name the path it has now, not the one it had between.
    func testAFolderRenamedBackReportsItsPathAgain() throws {
        let root = NSTemporaryDirectory() + "albumfs-watch-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: root + "/A", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        final class Paths: @unchecked Sendable {
            private var seen: Set<String> = []
            private let lock = NSLock()
            func add(_ path: String) { lock.withLock { _ = seen.insert(path) } }
            func has(_ path: String) -> Bool { lock.withLock { seen.contains(path) } }
        }
        let paths = Paths()
        // (Each folder with the names its events gave: the renames' own events may be read while
        // the folder is watched as B, and rightly name B; the file made after is the test.)
        let watcher = try XCTUnwrap(FolderWatcher(maxWatches: nil, onChange: { path, entries in
            paths.add(path)
            for entry in entries { paths.add(path + "/" + entry.name) }
        }, warn: { XCTFail($0) }))
        watcher.watch(root + "/A")
        watcher.start()
        defer { watcher.stop() }
        // As a walk does after each rename: the folder watched under the path it has.
        XCTAssertEqual(rename(root + "/A", root + "/B"), 0)
        watcher.watch(root + "/B")
        XCTAssertEqual(rename(root + "/B", root + "/A"), 0)
        watcher.watch(root + "/A")
        XCTAssertEqual(watcher.watchCount, 1, "one folder, one watch")
        XCTAssertTrue(FileManager.default.createFile(atPath: root + "/A/new.jpg", contents: Data("x".utf8)))
        for _ in 0..<250 where !paths.has(root + "/A/new.jpg") { usleep(20_000) }
        XCTAssertTrue(paths.has(root + "/A/new.jpg"))
        XCTAssertFalse(paths.has(root + "/B/new.jpg"), "no event sent to the path it had between")
    }

    /// What a read of inotify gives, folder by folder: a lost-events overflow (on watch -1, which
    /// is no folder's) says "", so the library is walked; a watch no longer followed says nothing.
    func testEventsReadNameTheirFoldersAndAnOverflowTheLibrary() {
        func event(_ watch: Int32, _ mask: Int32, _ name: String) -> [UInt8] {
            var name = Array(name.utf8)
            if !name.isEmpty { name += [UInt8](repeating: 0, count: 16 - name.count % 16) }
            let fields = [UInt32(bitPattern: watch), UInt32(bitPattern: mask), 0, UInt32(name.count)]
            return fields.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) } + name
        }
        let bytes = event(1, IN_CREATE, "a.jpg") + event(1, IN_CLOSE_WRITE, "a.jpg") + event(2, IN_MODIFY, "b.jpg")
            + event(-1, IN_Q_OVERFLOW, "") + event(3, IN_CREATE, "gone.jpg") + event(1, IN_MOVE_SELF, "")
        let events = bytes.withUnsafeBytes { FolderWatcher.events(in: $0) }
        XCTAssertEqual(events.map(\.name), ["a.jpg", "a.jpg", "b.jpg", "", "gone.jpg", ""])
        let folders = FolderWatcher.folders(changedBy: events) { [1: "/lib/A", 2: "/lib/B"][$0.watch] }
        XCTAssertEqual(folders, ["/lib/A": ["a.jpg": true], "/lib/B": ["b.jpg": false], "": [:]])
        // Cut short (a read never ends mid-event, but the parse must not read past it).
        XCTAssertEqual(bytes.prefix(20).withUnsafeBytes { FolderWatcher.events(in: $0) }.count, 0)
    }
}
