import AlbumCore
import AlbumSystem
import AlbumSample
import Foundation
import CSysXattr
import Glibc
import XCTest

/// The built `albumfs` binary: `$ALBUMFS_BIN` (scripts/test sets it) or beside the test bundle.
/// Polls `condition` every 20 ms until it holds or `timeout` passes.
func eventually(_ timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}

/// Where the daemons the tests start keep what they keep by default (an index under
/// $XDG_CACHE_HOME, picks under $XDG_DATA_HOME): a folder of this test run, removed when the run
/// ends, not the user's ~/.cache and ~/.local/share (each run left ~50 index files there, 2,600
/// over a day of runs, and test picks in the user's own picks database). Set in this process's
/// environment, which the daemons inherit, once the first `albumfsBinary()` is asked for.
let testStateHome: String = {
    let path = makeTempFolder("xdg")
    setenv("XDG_CACHE_HOME", path + "/cache", 1)
    setenv("XDG_DATA_HOME", path + "/data", 1)
    setenv("ALBUMFS_TEST_STATE_HOME", path, 1)
    // A coverage run (`swift test --enable-code-coverage`): the daemons and commands the tests start
    // write their counts into a folder any user may write (some run as another user; a profile they
    // cannot write is an error line on their stderr), which scripts/coverage adds to the run's.
    if let pattern = ProcessInfo.processInfo.environment["LLVM_PROFILE_FILE"], pattern.contains("%p") {
        let started = (pattern as NSString).deletingLastPathComponent + "/started"
        mkdir(started, 0o1777)
        chmod(started, 0o1777)
        setenv("LLVM_PROFILE_FILE", started + "/%p-%m.profraw", 1)
    }
    atexit {
        if let path = getenv("ALBUMFS_TEST_STATE_HOME") { try? FileManager.default.removeItem(atPath: String(cString: path)) }
    }
    return path
}()

func albumfsBinary() -> String {
    _ = testStateHome
    if let path = ProcessInfo.processInfo.environment["ALBUMFS_BIN"], !path.isEmpty { return path }
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return bundle.appendingPathComponent("albumfs").path
}

/// A fresh temporary folder, removed by the caller.
func makeTempFolder(_ tag: String) -> String {
    let path = NSTemporaryDirectory() + "albumfs-test-\(tag)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

struct HarnessError: Error {
    let message: String
}

/// What a finished command printed and returned.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a command to completion with a hard timeout (killed after it), its messages in the C
/// locale (tests match their words).
@discardableResult
func runCommand(_ executable: String, _ args: [String], timeout: TimeInterval = 30, environment: [String: String]? = nil) -> CommandResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = args
    if var environment {
        // (The test run's state folders stay where they are for a command given its own environment.)
        for key in ["XDG_CACHE_HOME", "XDG_DATA_HOME"] where environment[key] == nil {
            environment[key] = ProcessInfo.processInfo.environment[key]
        }
        if environment["LC_ALL"] == nil { environment["LC_ALL"] = "C" }
        p.environment = environment
    } else {
        p.environment = ProcessInfo.processInfo.environment.merging(["LC_ALL": "C"]) { _, c in c }
    }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try! p.run()
    let deadline = Date().addingTimeInterval(timeout)
    // Read both pipes fully on background threads so a chatty command never blocks.
    nonisolated(unsafe) var outData = Data(), errData = Data()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
    DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
    while p.isRunning && Date() < deadline { usleep(5_000) }
    if p.isRunning { p.terminate(); kill(p.processIdentifier, SIGKILL) }
    p.waitUntilExit()
    _ = group.wait(timeout: .now() + 5)  // vacuous-ok: a child left running may hold the pipes; what was read is returned and the caller asserts on it
    return CommandResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}

/// Waits at most `timeout` seconds for a child to end, then kills it: whether it ended by itself.
@discardableResult
func waitForExit(_ p: Process, timeout: TimeInterval = 20) -> Bool {
    let ended = eventually(timeout) { !p.isRunning }
    if !ended { kill(p.processIdentifier, SIGKILL) }
    p.waitUntilExit()
    return ended
}

/// Runs a shell line (`sh -c`).
@discardableResult
func shell(_ line: String, timeout: TimeInterval = 60) -> CommandResult {
    runCommand("/bin/sh", ["-c", line], timeout: timeout)
}

/// A /proc file read to its end (they report size 0, so whole-file readers may stop short).
func readProcFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        out += buffer[0..<n]
    }
    return String(decoding: out, as: UTF8.self)
}

/// Unmounts a mount a test made (a tmpfs, an overlay), retried while it is busy (a daemon's
/// rescan may hold a folder of it open for a moment), detached as a last resort: a test never
/// leaves one behind (one was found after a run under heavy CPU load).
func unmountTestDisk(_ path: String) {
    let unmounted = eventually { runCommand("/usr/bin/umount", [path]).status == 0 || !isMounted(path) }
    if unmounted { return }
    runCommand("/usr/bin/umount", ["-l", path])
}

/// Whether `path` is a mount point right now.
/// The pid of the albumfs daemon serving `mountpoint`, from /proc.
func daemonPid(for mountpoint: String) -> pid_t? {
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let pid = pid_t(entry),
              let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
        let args = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        if args.contains(mountpoint) && args.contains(where: { $0.hasPrefix("--daemon-ready-fd") }) { return pid }
    }
    return nil
}

/// Waits (bounded) until a process no longer runs; a zombie counts as gone.
func waitUntilGone(_ pid: pid_t?) -> Bool {
    guard let pid else { return false }
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
        guard let stat = readProcFile("/proc/\(pid)/stat"), !stat.isEmpty else { return true }
        if let close = stat.lastIndex(of: ")"), stat[stat.index(close, offsetBy: 2)] == "Z" { return true }
        usleep(10_000)
    }
    return false
}

func isMounted(_ path: String) -> Bool {
    guard let mounts = readProcFile("/proc/self/mounts") else { return false }
    return mounts.split(separator: "\n").contains { $0.split(separator: " ").dropFirst().first.map(String.init) == path }
}

/// One albumfs daemon in the foreground (`-f`), mounted on a fresh folder.
///
/// Readiness is the daemon's own "albumfs: ready:" line on stderr, never a sleep. Teardown
/// unmounts, waits for the daemon to exit, and checks its stderr for unexpected lines.
final class Mount {
    let source: String
    let mountpoint: String
    let cacheDir: String
    /// Where this mount's picks live unless the test names a database.
    let picksDB: String
    private let picksDir: String
    let process = Process()
    private let stderrLines = LineCollector()
    /// The ordinary user whose daemon this is, in that user's mount namespace; nil: root's.
    let user: OrdinaryUser?

    /// - Parameter launcher: a command that runs albumfs (e.g. `setpriv …` to drop capabilities).
    /// - Parameter waitForScan: whether to return only once the first scan is done (a complete
    ///   tree), or as soon as the mount answers.
    /// - Parameter user: an ordinary user who mounts (on a mount point of theirs), with the state
    ///   folders their daemon chooses under their home; `launcher` is then not used.
    init(source: String, options: [String] = [], launcher: [String] = [], readyTimeout: TimeInterval = 30,
         waitForScan: Bool = true, user: OrdinaryUser? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        self.source = source
        self.user = user
        mountpoint = makeTempFolder("mnt")
        // Every test gets its own thumbnail cache unless it names one.
        cacheDir = makeTempFolder("cache")
        let cacheOption = options.joined().contains("cache_dir=") ? [] : ["-o", "cache_dir=" + cacheDir]
        picksDir = makeTempFolder("picks")
        picksDB = picksDir + "/picks.sqlite"
        let picksOption = options.joined().contains("picks_db=") ? [] : ["-o", "picks_db=" + picksDB]
        let command: [String]
        if let user {
            XCTAssertEqual(chown(mountpoint, user.uid, user.uid), 0, file: file, line: line)
            command = user.command([user.binary, "-f"] + options + [source, mountpoint])
        } else {
            command = launcher + [albumfsBinary(), "-f"] + cacheOption + picksOption + options + [source, mountpoint]
        }
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        stderrLines.collect(from: err.fileHandleForReading)
        // Ready (the mount answers), then the first scan's end: the tree is complete.
        guard stderrLines.wait(forLineContaining: "albumfs: ready:", timeout: readyTimeout),
              !waitForScan || stderrLines.wait(forLineContaining: "albumfs: scan done:", timeout: readyTimeout) else {
            process.terminate()
            process.waitUntilExit()
            XCTFail("albumfs did not become ready; stderr:\n\(stderrLines.text)", file: file, line: line)
            throw HarnessError(message: "albumfs did not become ready")
        }
    }

    /// A test that stops early (a failed assertion that throws, a mount expected to fail, an
    /// unmount by hand) leaves no daemon, mount or folder behind: 10 folders per run piled up
    /// in /tmp before.
    deinit {
        if process.isRunning { unmount() }
        // A user's mount left by a daemon killed mid-test goes (the mount point with it).
        if user != nil && isMountedNow { fusermount(["-u", "-z"]) }
        if !isMountedNow { rmdir(mountpoint) }
        try? FileManager.default.removeItem(atPath: cacheDir)
        try? FileManager.default.removeItem(atPath: picksDir)
    }

    /// The mount's path for a path inside it.
    func path(_ relative: String) -> String { mountpoint + "/" + relative }

    var stderr: String { stderrLines.text }

    /// Whether the mount point is mounted, in the mount namespace the daemon runs in.
    var isMountedNow: Bool { user?.isMounted(mountpoint) ?? isMounted(mountpoint) }

    /// `fusermount3 ARGS MOUNTPOINT` by whoever mounted, where they mounted.
    @discardableResult
    func fusermount(_ args: [String]) -> CommandResult {
        let command = user?.command(["/usr/bin/fusermount3"] + args + [mountpoint]) ?? ["/usr/bin/fusermount3"] + args + [mountpoint]
        return runCommand(command[0], Array(command.dropFirst()))
    }

    /// Unmounts with fusermount3 and waits (bounded) for the daemon to exit.
    @discardableResult
    func unmount(timeout: TimeInterval = 20) -> Int32 {
        if process.isRunning { fusermount(["-u"]) }
        return waitForExit(timeout: timeout)
    }

    func waitForExit(timeout: TimeInterval = 20) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            fusermount(["-u", "-z"])
            return -1
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Unmounts, removes the mount point, and fails on stderr lines other than the ready and
    /// scan-done lines and those the test expects.
    func finish(allowing allowed: [String] = [], file: StaticString = #filePath, line: UInt = #line) {
        let status = unmount()
        XCTAssertEqual(status, 0, "daemon exit status; stderr:\n\(stderr)", file: file, line: line)
        XCTAssertFalse(isMountedNow, "still mounted", file: file, line: line)
        rmdir(mountpoint)
        try? FileManager.default.removeItem(atPath: cacheDir)
        try? FileManager.default.removeItem(atPath: picksDir)
        stderrLines.waitForEOF(timeout: 5)
        for l in stderrLines.lines where !l.hasPrefix("albumfs: ready:") && !l.hasPrefix("albumfs: scan done:") {
            if !allowed.contains(where: { l.contains($0) }) {
                XCTFail("unexpected daemon output: \(l)", file: file, line: line)
            }
        }
    }
}

/// Collects lines from a pipe on a background thread.
final class LineCollector: @unchecked Sendable {
    private let lock = NSCondition()
    private var buffer = ""
    private var done = false

    var lines: [String] { lock.lock(); defer { lock.unlock() }; return buffer.split(separator: "\n").map(String.init) }
    var text: String { lock.lock(); defer { lock.unlock() }; return buffer }

    func collect(from handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                lock.lock()
                if data.isEmpty { done = true } else { buffer += String(decoding: data, as: UTF8.self) }
                lock.broadcast()
                lock.unlock()
                if data.isEmpty { return }
            }
        }
    }

    func wait(forLineContaining needle: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while !buffer.contains(needle) {
            if done || !lock.wait(until: deadline) { return buffer.contains(needle) }
        }
        return true
    }

    func waitForEOF(timeout: TimeInterval) {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while !done { if !lock.wait(until: deadline) { return } }
    }
}

/// A test case with a fresh sample library and a folder for the daemon's state (index, picks
/// database), both removed afterwards.
class SampleLibraryTestCase: XCTestCase {
    var source: SampleSource!
    var state: String!

    override func setUpWithError() throws {
        source = try SampleSource()
        state = makeTempFolder("state")
    }

    override func tearDown() {
        source.remove()
        try? FileManager.default.removeItem(atPath: state)
    }
}

/// A generated sample library in a temporary folder.
final class SampleSource {
    let path: String
    let items: [SampleItem]

    init() throws {
        path = makeTempFolder("src")
        items = try SampleLibrary.write(to: path)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// How many files a scan sees: every item but those in hidden and system folders (photos,
    /// and files that are not: a text file, a HEIC while HEIF is off).
    var filesSeen: Int { items.filter { !$0.path.hasPrefix(".") && !$0.path.hasPrefix("@eaDir/") }.count }
}

/// The names in a folder in readdir order (what `ls -f` shows), without `.` and `..`.
func readdirNames(_ path: String) -> [String]? {
    guard let dir = opendir(path) else { return nil }
    defer { closedir(dir) }
    var names: [String] = []
    while let e = readdir(dir) {
        let name = direntName(e)
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// `stat` or nil with errno.
func statOf(_ path: String) -> stat? {
    var st = stat()
    return stat(path, &st) == 0 ? st : nil
}

/// `getxattr` as a string, or nil.
func xattr(_ path: String, _ name: String) -> String? {
    let size = getxattr(path, name, nil, 0)
    guard size >= 0 else { return nil }
    var buffer = [UInt8](repeating: 0, count: size)
    let n = getxattr(path, name, &buffer, size)
    guard n >= 0 else { return nil }
    return String(decoding: buffer.prefix(n), as: UTF8.self)
}

/// A `sqlite3` process holding a database locked (after `statements`), until `release` or the
/// end of the test: ended by its own id, never by name.
final class SQLiteLockHolder {
    private let process = Process()
    private let input = Pipe()

    init(_ database: String, _ statements: String, file: StaticString = #filePath, line: UInt = #line) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [database]
        process.standardInput = input
        let said = Pipe()
        process.standardOutput = said
        try process.run()
        // (A busy timeout of its own: a reader of the database may be closing as it starts.)
        input.fileHandleForWriting.write(Data(".timeout 5000\n\(statements)\nSELECT 'held';\n".utf8))
        let collector = LineCollector()
        collector.collect(from: said.fileHandleForReading)
        XCTAssertTrue(collector.wait(forLineContaining: "held", timeout: 10), "the lock is held", file: file, line: line)
        XCTAssertNotEqual(runCommand("/usr/bin/sqlite3", [database, "SELECT count(*) FROM sqlite_master"], timeout: 5).status, 0,
                          "locked", file: file, line: line)
    }

    /// Ends the holder (its transaction rolled back); whether it ended within 10 s.
    @discardableResult
    func release() -> Bool {
        if process.isRunning {
            input.fileHandleForWriting.write(Data(".quit\n".utf8))
            try? input.fileHandleForWriting.close()
        }
        let ended = eventually(10) { !process.isRunning }
        if !ended { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return ended
    }

    deinit { release() }
}
