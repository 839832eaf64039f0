import Foundation
import Glibc
import XCTest

/// A folder served by sshfs on loopback: sshfs starts `sftp-server` itself (its `ssh_command`),
/// so there is no sshd and no network. sshfs runs in the foreground (a daemon keeps descriptors
/// that make `Process` wait for it for ever); the server's process id is written by its own
/// script, so a test can stop it (`stall`), as a server that stops answering does.
final class SshfsShare {
    let path: String
    private let folder: String
    private let script: String
    private let pidFile: String
    private var sshfs: Process?
    /// sshfs options besides the server's.
    private let options: [String]

    /// Serves `folder` at `path` (made here), its server script and process id in `scratch`;
    /// `options` are sshfs's (`-o dir_cache=no`).
    init(serving folder: String, at path: String, scratch: String, options: [String] = []) throws {
        self.folder = folder
        self.path = path
        self.options = options
        script = scratch + "/sftp-server.sh"
        pidFile = scratch + "/sftp-server.pid"
        XCTAssertEqual(mkdir(path, 0o755), 0)
        let text = "#!/bin/sh\necho $$ > '\(pidFile)'\nexec /usr/lib/openssh/sftp-server\n"
        XCTAssertTrue(FileManager.default.createFile(atPath: script, contents: Data(text.utf8), attributes: [.posixPermissions: 0o755]))
        try mount()
    }

    func mount() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sshfs")
        p.arguments = ["-f", "-o", "ssh_command=" + script] + options + ["localhost:" + folder, path]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        sshfs = p
        XCTAssertTrue(eventually { isMounted(path) }, "sshfs mounts")
    }

    /// Unmounts (the server let go on first, if stopped) and waits for sshfs to end.
    func unmount() {
        resume()
        if isMounted(path) { XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", path]).status, 0) }
        if let sshfs { XCTAssertTrue(waitForExit(sshfs), "sshfs ends once unmounted") }
        sshfs = nil
    }

    /// The sftp-server of the current mount (this test's sshfs's child).
    var serverPID: pid_t? {
        (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Stops the server (SIGSTOP): sshfs's requests wait for it, as for a server gone silent.
    func stall() { if let pid = serverPID { XCTAssertEqual(kill(pid, SIGSTOP), 0) } }
    func resume() { if let pid = serverPID { _ = kill(pid, SIGCONT) } }
}

/// A folder served over WebDAV by `rclone serve webdav` on loopback (a port of its choosing) and
/// mounted with `rclone mount`, as a NAS's WebDAV share is; rclone's configuration stays in
/// `scratch`. `stall` stops the server.
final class RcloneShare {
    let path: String
    private let server: Process
    private var mount: Process?
    private let environment: [String: String]

    init(serving folder: String, at path: String, scratch: String) throws {
        self.path = path
        XCTAssertEqual(mkdir(path, 0o755), 0)
        environment = ProcessInfo.processInfo.environment.merging([
            "RCLONE_CONFIG": scratch + "/rclone.conf", "RCLONE_CACHE_DIR": scratch + "/rclone-cache"]) { $1 }
        let log = scratch + "/rclone-serve.log"
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil))
        server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/rclone")
        server.arguments = ["serve", "webdav", "--addr", "127.0.0.1:0", folder]
        server.environment = environment
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = FileHandle.nullDevice
        server.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try server.run()
        // "WebDav Server started on http://127.0.0.1:PORT/"
        var url: String?
        XCTAssertTrue(eventually(10) {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            url = text.components(separatedBy: "started on ").dropFirst().first?.split(separator: "\n").first.map(String.init)
            return url != nil
        }, "rclone serves")
        let m = Process()
        m.executableURL = URL(fileURLWithPath: "/usr/bin/rclone")
        m.arguments = ["mount", ":webdav,url='\(url ?? "")':", path]
        m.environment = environment
        m.standardInput = FileHandle.nullDevice
        m.standardOutput = FileHandle.nullDevice
        m.standardError = FileHandle.nullDevice
        try m.run()
        mount = m
        XCTAssertTrue(eventually(10) { isMounted(path) }, "rclone mounts")
    }

    func stall() { XCTAssertEqual(kill(server.processIdentifier, SIGSTOP), 0) }
    func resume() { _ = kill(server.processIdentifier, SIGCONT) }

    /// Unmounts, waits for `rclone mount` to end, and ends the server.
    func unmount() {
        resume()
        if isMounted(path) { XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", path]).status, 0) }
        if let mount { XCTAssertTrue(waitForExit(mount), "rclone mount ends once unmounted") }
        mount = nil
        server.terminate()
        XCTAssertTrue(waitForExit(server))
    }
}
