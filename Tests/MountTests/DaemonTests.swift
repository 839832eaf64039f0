import AlbumSample
import Foundation
import Glibc
import XCTest

/// What docs/cli.md promises about the daemon itself: the exit code of a mount the kernel
/// refuses, the debug and single-thread modes, `auto_unmount`, the log file of a background
/// daemon and systemd's readiness message.
final class DaemonTests: SampleLibraryTestCase {
    /// A mount the kernel refuses (here: a root without CAP_SYS_ADMIN, so both mount(2) and the
    /// fusermount3 helper are refused) exits 1, says so, and leaves no mount.
    func testAMountTheKernelRefusesExitsOne() throws {
        let mountpoint = makeTempFolder("refused")
        defer { rmdir(mountpoint) }
        let r = runCommand("/usr/bin/setpriv", ["--bounding-set", "-sys_admin", "--inh-caps", "-all", albumfsBinary(),
                                                "-o", "index=\(state!)/index.sqlite,picks_db=\(state!)/picks.sqlite,cache_dir=\(state!)/cache",
                                                source.path, mountpoint])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("albumfs: the kernel refused to mount on \(mountpoint)"), r.stderr)
        XCTAssertFalse(isMounted(mountpoint))
    }

    /// `-d` logs every request libfuse receives on stderr, and the mount serves as usual.
    func testDebugLogsEveryRequest() throws {
        let m = try Mount(source: source.path, options: ["-d"])
        XCTAssertNotNil(readdirNames(m.path("non-screenshots")))
        XCTAssertEqual(m.unmount(), 0, "exit status")
        XCTAssertTrue(m.stderr.contains("opcode: LOOKUP"), String(m.stderr.prefix(2000)))
        XCTAssertTrue(m.stderr.contains("opcode: READDIR"), String(m.stderr.prefix(2000)))
    }

    /// `-s`: one thread serves every request, so parallel readers start no FUSE worker threads,
    /// which the multi-threaded loop starts as requests wait; both serve the same bytes.
    func testOneThreadServesAllRequests() throws {
        var added: [String: Int] = [:]
        for (label, options) in [("-s", ["-s"]), ("default", [])] {
            let m = try Mount(source: source.path, options: options)
            let names = readdirNames(m.path("non-screenshots")) ?? []
            XCTAssertGreaterThan(names.count, 20)
            let before = threadCount(m.process.processIdentifier)
            let originals = names.map { try? Data(contentsOf: URL(fileURLWithPath: xattr(m.path("non-screenshots/" + $0), "user.albumfs.source") ?? "/")) }
            let paths = names.map { m.path("non-screenshots/" + $0) }
            for _ in 0..<5 {
                DispatchQueue.concurrentPerform(iterations: paths.count) { i in
                    XCTAssertEqual(FileManager.default.contents(atPath: paths[i]), originals[i], "\(label): \(paths[i])")
                }
            }
            added[label] = threadCount(m.process.processIdentifier) - before
            m.finish()
        }
        // (At most 0: a background thread of albumfs's own, an idle header reader say, may end meanwhile.)
        XCTAssertLessThanOrEqual(try XCTUnwrap(added["-s"]), 0, "threads started under -s")
        XCTAssertGreaterThan(added["default"] ?? 0, 0, "the multi-threaded loop starts workers (else this test shows nothing)")
    }

    /// `-o auto_unmount`: a daemon that is killed leaves no stale mount behind.
    func testAutoUnmountClearsTheMountOfAKilledDaemon() throws {
        let m = try Mount(source: source.path, options: ["-o", "auto_unmount"])
        XCTAssertTrue(isMounted(m.mountpoint))
        XCTAssertEqual(kill(m.process.processIdentifier, SIGKILL), 0)
        m.process.waitUntilExit()
        XCTAssertTrue(eventually(10) { !isMounted(m.mountpoint) }, "still mounted after the daemon was killed")
        XCTAssertNotNil(opendir(m.mountpoint).map { closedir($0) }, "the folder is a plain folder again")
    }

    /// `-o logfile=PATH`: a background daemon's lines (here, a thumbnail it cannot make) go to
    /// the file, appended; without it they go nowhere.
    func testABackgroundDaemonWritesItsLogFile() throws {
        try SampleLibrary.writeFile(source.path + "/" + SampleLibrary.undecodableJPEGPath, SampleLibrary.undecodableJPEG(),
                                    mtime: SampleLibrary.defaultMtime)
        let mountpoint = makeTempFolder("logged")
        defer { rmdir(mountpoint) }
        let log = state + "/albumfs.log"
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: Data("earlier line\n".utf8)))
        let r = runCommand(albumfsBinary(), ["-o", "logfile=\(log),index=\(state!)/index.sqlite,picks_db=\(state!)/picks.sqlite,cache_dir=\(state!)/cache",
                                             source.path, mountpoint])
        XCTAssertEqual(r.status, 0, r.stderr)
        defer { if isMounted(mountpoint) { runCommand("/usr/bin/fusermount3", ["-u", mountpoint]) } }
        XCTAssertEqual(readFile(mountpoint + "/thumbnails/200x200/undecodable.jpg").failure?.code, EIO)
        XCTAssertTrue(eventually(5) {
            (try? String(contentsOfFile: log, encoding: .utf8))?.contains("cannot make a thumbnail of Edge/undecodable.jpg") ?? false
        }, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "no log")
        XCTAssertTrue(try String(contentsOfFile: log, encoding: .utf8).hasPrefix("earlier line\n"), "appended, not replaced")
        XCTAssertFalse(r.stderr.contains("cannot make a thumbnail"), "said after the launcher returned: the log's alone")
    }

    /// With `$NOTIFY_SOCKET` set (systemd's `Type=notify`), the daemon sends `READY=1` once the
    /// mount answers.
    func testReadyIsSentToSystemd() throws {
        let path = state + "/notify"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0, String(cString: strerror(errno)))
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        XCTAssertEqual(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)), 0)
        let m = try Mount(source: source.path, launcher: ["/usr/bin/env", "NOTIFY_SOCKET=" + path])
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = recv(fd, &buffer, buffer.count, 0)
        XCTAssertGreaterThan(n, 0, "no message: \(String(cString: strerror(errno)))")
        XCTAssertEqual(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self), "READY=1")
        XCTAssertNotNil(readdirNames(m.path("by-date")), "the mount answers")
        m.finish()
    }

    /// The threads of a process, from /proc.
    func threadCount(_ pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? -1
    }
}
