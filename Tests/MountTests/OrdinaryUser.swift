import Foundation
import Glibc
import XCTest

/// An ordinary user for mount tests: an unprivileged uid with a scratch home of its own, and a
/// mount namespace (private propagation) that every command of the test enters, the user's
/// daemon among them. In that namespace, and only there, a fuse.conf of the test's is bound over
/// /etc/fuse.conf, so `allow_other` is taken or refused by what the test says, never by what the
/// machine's file says, which no test changes. The mounts made there show in no other
/// namespace, and go with the namespace's last process.
///
/// The daemon then mounts as most users' daemons do: libfuse, not root, asks the setuid
/// `fusermount3`, which reads that fuse.conf and checks the mount point is the user's.
final class OrdinaryUser {
    let uid: uid_t
    /// Another unprivileged uid, for what another user of the machine may do.
    static let other: uid_t = 65533
    /// A root-owned folder of this test (0755): the home, the fuse.conf, a copy of the binary.
    let work: String
    /// The user's `HOME` (its own, 0700): where its daemon keeps its state by default.
    let home: String
    /// The albumfs binary as the user can run it.
    let binary: String
    private let holder = Process()
    private let holderInput = Pipe()

    /// - Parameter userAllowOther: whether the fuse.conf of the namespace says `user_allow_other`.
    init(uid: uid_t = 65534, userAllowOther: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
        self.uid = uid
        try Self.checkSetuidHelper(file: file, line: line)
        work = makeTempFolder("user")
        home = work + "/home"
        XCTAssertEqual(chmod(work, 0o755), 0)
        XCTAssertEqual(mkdir(home, 0o700), 0)
        XCTAssertEqual(chown(home, uid, uid), 0)
        let conf = work + "/fuse.conf"
        try (userAllowOther ? "user_allow_other\n" : "# no user_allow_other\n").write(toFile: conf, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(conf, 0o644), 0)
        binary = try Self.binary(runnableBy: uid, copyingInto: work)
        try startNamespace(fuseConf: conf, file: file, line: line)
    }

    /// The setuid root `fusermount3` is what lets a user mount: a package that installs it
    /// without the bit would make every user's mount fail, so that fails here, loudly.
    static func checkSetuidHelper(file: StaticString, line: UInt) throws {
        var st = stat()
        guard stat("/usr/bin/fusermount3", &st) == 0, st.st_uid == 0, st.st_mode & S_ISUID != 0 else {
            let message = "/usr/bin/fusermount3 is not setuid root (mode \(String(st.st_mode & 0o7777, radix: 8)), owner \(st.st_uid)):"
                + " an ordinary user cannot mount; the fuse3 package installs it setuid (chmod u+s /usr/bin/fusermount3)"
            XCTFail(message, file: file, line: line)
            throw HarnessError(message: message)
        }
    }

    /// The test's albumfs binary, or a copy in `work` where the user cannot reach the build folder.
    private static func binary(runnableBy uid: uid_t, copyingInto work: String) throws -> String {
        let built = albumfsBinary()
        let reach = runCommand("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/test", "-x", built])
        if reach.status == 0 { return built }
        let copy = work + "/albumfs"
        try FileManager.default.copyItem(atPath: built, toPath: copy)
        XCTAssertEqual(chmod(copy, 0o755), 0)
        return copy
    }

    /// `unshare` a mount namespace whose first process binds the fuse.conf and then waits on
    /// its standard input: it ends when this object, or the test process, goes.
    private func startNamespace(fuseConf: String, file: StaticString, line: UInt) throws {
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        holder.arguments = ["--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                            "mount --bind \"$0\" /etc/fuse.conf && echo bound && exec cat", fuseConf]
        holder.standardInput = holderInput
        let out = Pipe(), err = Pipe()
        holder.standardOutput = out
        holder.standardError = err
        try holder.run()
        let said = LineCollector(), complaint = LineCollector()
        said.collect(from: out.fileHandleForReading)
        complaint.collect(from: err.fileHandleForReading)
        guard said.wait(forLineContaining: "bound", timeout: 20) else {
            end()
            XCTFail("the mount namespace did not start: \(complaint.text)", file: file, line: line)
            throw HarnessError(message: "no mount namespace")
        }
    }

    deinit {
        end()
        try? FileManager.default.removeItem(atPath: work)
    }

    private func end() {
        try? holderInput.fileHandleForWriting.close()
        if !eventually(10, { !holder.isRunning }) { kill(holder.processIdentifier, SIGKILL) }
        holder.waitUntilExit()
    }

    /// What the test run sets for every daemon's build (coverage counts, scripts/tsan's workers).
    static let passedOn = ["LLVM_PROFILE_FILE", "ALBUMFS_RENDER_WORKER", "TSAN_OPTIONS"]

    /// A command line that runs `args` in the namespace as `who` (the user unless said), with
    /// only the environment a login gives (and what the test run sets for its builds).
    func command(_ args: [String], as who: uid_t? = nil) -> [String] {
        let who = who ?? uid
        var environment = ["PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=" + (who == uid ? home : "/nonexistent")]
        for key in Self.passedOn { if let value = ProcessInfo.processInfo.environment[key] { environment.append(key + "=" + value) } }
        return ["/usr/bin/nsenter", "--target", String(holder.processIdentifier), "--mount", "--wd=" + (who == uid ? home : "/"), "--",
                "/usr/bin/setpriv", "--reuid=\(who)", "--regid=\(who)", "--clear-groups", "--",
                "/usr/bin/env", "-i"] + environment + args
    }

    /// A shell line run in the namespace as `who` (the user unless said).
    @discardableResult
    func run(_ line: String, as who: uid_t? = nil, timeout: TimeInterval = 60) -> CommandResult {
        let c = command(["/bin/sh", "-c", line], as: who)
        return runCommand(c[0], Array(c.dropFirst()), timeout: timeout)
    }

    /// A shell line run in the namespace as root.
    @discardableResult
    func runAsRoot(_ line: String, timeout: TimeInterval = 60) -> CommandResult {
        runCommand("/usr/bin/nsenter", ["--target", String(holder.processIdentifier), "--mount", "--", "/bin/sh", "-c", line], timeout: timeout)
    }

    /// The namespace's mount table.
    var mounts: String { readProcFile("/proc/\(holder.processIdentifier)/mounts") ?? "" }

    /// The namespace's mount table line of `path`, if it is a mount point there.
    func mountLine(_ path: String) -> String? {
        mounts.split(separator: "\n").map(String.init).first { $0.split(separator: " ").dropFirst().first.map(String.init) == path }
    }

    func isMounted(_ path: String) -> Bool { mountLine(path) != nil }
}
