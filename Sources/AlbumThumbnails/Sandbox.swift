import AlbumSystem
import CSandbox
import Glibc

/// The walls a render worker decodes hostile bytes inside (docs/security.md): no path can be
/// opened and no socket made (seccomp), no file written, no new privileges, another user's
/// rights when root mounts, and memory and descriptors bounded.
enum Sandbox {
    /// The system calls a worker makes, measured (`strace -f -c` of workers rendering every kind
    /// the tests render) and grouped: memory, threads and their locks, signals, time, the reads
    /// of the descriptors it is handed and the socket it answers on, limits, and what libdispatch
    /// waits with. Absent: open, openat, socket, connect, execve, fork, ptrace, and every call
    /// that names a path but `newfstatat`, which glibc's `fstat` is. (Threads: `CSandbox`.)
    static let allowed = [
        "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "membarrier",
        "exit", "exit_group", "futex", "set_robust_list", "get_robust_list", "rseq", "set_tid_address",
        "sched_yield", "sched_getaffinity", "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid",
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "restart_syscall",
        "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "times",
        "read", "readv", "pread64", "preadv", "write", "writev", "lseek", "close", "fstat", "newfstatat", "statx", "fcntl",
        "recvmsg", "recvfrom", "sendmsg", "sendto", "poll", "ppoll", "shutdown",
        "getrandom", "uname", "sysinfo", "getrlimit", "setrlimit", "getrusage", "prctl",
        "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "eventfd2", "timerfd_create", "timerfd_settime", "pipe2",
    ]

    /// The user a worker runs as when root mounts: one of its own, which no account and no other
    /// process has (`nobody` is shared: a process running as it could stop or slow the workers),
    /// in a range no distribution or systemd hands out; `nobody` only where it cannot be had (a
    /// user namespace that maps fewer users).
    static let unprivileged: uid_t = 2_147_459_519
    static let fallback: uid_t = 65534

    /// Enters the sandbox, for good: bytes a decode may hold at most `memory` more than the worker
    /// holds now. Nil once inside; else what failed.
    static func enter(memory: Int) -> String? {
        if let failure = limit(RLIMIT_DATA, Int(Self.dataInUse() + memory + Self.threadStacks)) { return failure }
        if let failure = limit(RLIMIT_FSIZE, 0) ?? limit(RLIMIT_CORE, 0) ?? limit(RLIMIT_NOFILE, 64) { return failure }
        if geteuid() == 0 {
            guard albumfs_become(unprivileged, unprivileged) == 0 || albumfs_become(fallback, fallback) == 0 else {
                return "cannot become user \(unprivileged) or \(fallback): \(Errno.current)"
            }
        }
        let names = allowed.map { strdup($0) }
        defer { names.forEach { free($0) } }
        let loaded = names.map { UnsafePointer($0) }.withUnsafeBufferPointer {
            albumfs_seccomp_allow_only($0.baseAddress, $0.count, EPERM, getpid())
        }
        return loaded == 0 ? nil : "cannot load the seccomp filter: \(Errno(rawValue: -loaded))"
    }

    /// The stacks of the threads decoders start (8 MiB each, a few per core), which count as data.
    static let threadStacks = 256 << 20

    private static func limit(_ resource: __rlimit_resource, _ value: Int) -> String? {
        let resource = __rlimit_resource_t(resource.rawValue)
        var l = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(value))
        return setrlimit(resource, &l) == 0 ? nil : "cannot limit resource \(resource): \(Errno.current)"
    }

    /// The worker's data segment now (`VmData` of /proc/self/status, which `RLIMIT_DATA` counts).
    static func dataInUse() -> Int {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        guard case .success(let bytes) = PositionalRead.bytes(fd, count: 8192, at: 0) else { return 0 }
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("VmData:") }
        let kb = line?.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kb * 1024
    }

    /// Sets the CPU seconds the process may have used when the next render ends (what it used,
    /// rounded up, and `seconds`): SIGXCPU, which ends it, past that.
    static func limitCPU(seconds: Int) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let used = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1
        var l = rlimit()
        let cpu = __rlimit_resource_t(RLIMIT_CPU.rawValue)
        getrlimit(cpu, &l)
        l.rlim_cur = rlim_t(used + seconds)
        setrlimit(cpu, &l)
    }
}
