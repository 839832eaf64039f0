import AlbumCore
import AlbumSystem
import FoundationEssentials
import Glibc

/// Going to the background the way sshfs does, without `fork()` in a threaded Swift process:
/// the launcher re-executes itself as a new session leader with a pipe on fd 3, and exits only
/// when the daemon writes "ready" on it (the mount answers) or dies (its exit code is passed on).
enum Daemon {
    static let readyFD: Int32 = 3
    /// glibc's `POSIX_SPAWN_SETSID` (spawn.h, glibc ≥ 2.26); hidden from Swift behind `__USE_GNU`.
    static let posixSpawnSetSID: Int16 = 0x80

    /// Runs in the launcher: starts the daemon and waits for it to be ready.
    static func launch(arguments: [String]) -> ExitCode.RawValue {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0, fcntl(fds[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0 else {
            Log.line("albumfs: cannot create a pipe: \(String(cString: strerror(errno)))")
            return ExitCode.failure.rawValue
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], readyFD)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // A new session: the shell's Ctrl-C and hang-up no longer reach the daemon.
        posix_spawnattr_setflags(&attr, posixSpawnSetSID)
        let exe = executablePath()
        let argv = ([CommandLine.arguments.first ?? "albumfs"] + arguments + ["--daemon-ready-fd=\(readyFD)"]).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, exe, &actions, &attr, argv, environ)
        close(fds[1])
        defer { close(fds[0]) }
        guard rc == 0 else {
            Log.line("albumfs: cannot start the daemon: \(String(cString: strerror(rc)))")
            return ExitCode.failure.rawValue
        }
        var byte: UInt8 = 0
        let n = Errno.retryingInterrupts { Glibc.read(fds[0], &byte, 1) }
        if n == 1 { return ExitCode.success.rawValue }
        // EOF: the daemon died before the mount answered; its message is already on stderr.
        var status: Int32 = 0
        _ = Errno.retryingInterrupts { waitpid(pid, &status, 0) }
        let exited = status & 0x7F == 0
        return exited ? (status >> 8) & 0xFF : ExitCode.failure.rawValue
    }

    /// Runs first in the daemon: closes every descriptor it inherited beyond 0–2 and the ready
    /// pipe. A launcher started by a program that leaks descriptors (pipes without CLOEXEC) would
    /// otherwise keep that program's pipes open for the daemon's whole life.
    static func closeInheritedDescriptors(keeping ready: Int32) {
        guard let dir = opendir("/proc/self/fd") else { return }
        var fds: [Int32] = []
        while let entry = readdir(dir) {
            let name = direntName(entry)
            if let fd = Int32(name), fd > 2, fd != ready { fds.append(fd) }
        }
        let own = dirfd(dir)
        closedir(dir)
        for fd in fds where fd != own { close(fd) }
    }

    /// Runs in the daemon once the mount answers: release the launcher, stop writing to its
    /// terminal (the log goes to `logfile` or nowhere).
    static func signalReady(fd: Int32, logFile: String?) {
        var byte = UInt8(ascii: "R")
        _ = write(fd, &byte, 1)
        close(fd)
        let target = logFile.map { open($0, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) } ?? -1
        let sink = target >= 0 ? target : open("/dev/null", O_WRONLY | O_CLOEXEC)
        if sink >= 0 {
            dup2(sink, 2)
            close(sink)
        }
    }

    /// Raises the soft limit on open descriptors to the hard one, as Go's runtime and many
    /// daemons do: each original open through the mount holds a descriptor, and each reader thread
    /// of a scan holds a chunk of them, while the usual soft limit (1024) is a relic of `select`,
    /// which albumfs does not use. Left as it is when the kernel refuses. Returns the soft limit
    /// in effect.
    @discardableResult
    static func raiseDescriptorLimit() -> UInt64 {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }

    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard n > 0 else { return CommandLine.arguments.first ?? "albumfs" }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// `sd_notify(READY=1)` for a systemd `Type=notify` unit, without libsystemd: one datagram to
/// `$NOTIFY_SOCKET`.
enum SystemdNotify {
    static func ready() {
        guard let path = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"], !path.isEmpty else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // abstract socket
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { return }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let message = "READY=1"
        _ = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                message.withCString { sendto(fd, $0, strlen($0), 0, sa, length) }
            }
        }
    }
}
