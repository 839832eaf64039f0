import AlbumCore
import AlbumSystem
import CSandbox
import Glibc

/// One render worker process, as the daemon holds it: its pid and its end of the socket.
/// Used by one render at a time (`RenderWorkers` hands it out).
final class RenderWorker {
    let pid: pid_t
    let socket: Int32
    /// Whether it may serve another render (false once it died, overran or said what makes no sense).
    private(set) var usable = true

    private init(pid: pid_t, socket: Int32) {
        self.pid = pid
        self.socket = socket
    }

    /// Starts `executable render-worker MEMORY MAX_PIXELS DAEMON_PID`, its end of a new socket as
    /// descriptor 3, `name` its argv[0] (what `ps` shows); the calling thread is its parent thread
    /// (`PR_SET_PDEATHSIG`).
    static func start(executable: String, name: String = "albumfs", memory: Int, maxPixels: Int) throws(ThumbnailError) -> RenderWorker {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw ThumbnailError("cannot make a socket for a render worker: \(Errno.current)")
        }
        defer { close(ends[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], RenderWorkerProcess.socketFD)
        // (What decoders print about a damaged file is the daemon's to say, once, in its words.)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDWR, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_RDWR, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_RDWR, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Signals as a new program has them: none blocked, the daemon's handlers at their default.
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = [name, "render-worker", String(memory), String(maxPixels), String(getpid())]
        // The daemon's environment (where its libraries are found: LD_LIBRARY_PATH), but no crash
        // report of the worker's own: a worker that crashes is the daemon's to report.
        let environment = Self.inherited().filter { !$0.hasPrefix("SWIFT_BACKTRACE=") } + ["SWIFT_BACKTRACE=enable=no"]
        var pid: pid_t = 0
        let spawned = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
        }
        guard spawned == 0 else {
            close(ends[0])
            throw ThumbnailError("cannot start a render worker (\(executable)): \(Errno(rawValue: spawned))")
        }
        return RenderWorker(pid: pid, socket: ends[0])
    }

    /// The process's environment, as `NAME=value` strings.
    static func inherited() -> [String] {
        var all: [String] = []
        var at = environ
        while let entry = at.pointee {
            all.append(String(cString: entry))
            at += 1
        }
        return all
    }

    /// Sends `request` with the original's descriptor and waits for the answer, a large decode's
    /// turn taken on `turn` meanwhile; past `seconds` without an answer the worker is ended.
    func render(_ request: RenderRequest, fd: Int32, seconds: Double, turn: LargeDecodeGate) -> Result<WorkerMessage, WorkerChannelError> {
        let bytes = request.bytes
        guard bytes.withUnsafeBytes({ albumfs_send_with_fd(socket, $0.baseAddress, $0.count, fd) }) == 0 else {
            usable = false
            return .failure(.unsent(Errno.current))
        }
        var deadline = Condition.deadline(in: seconds)
        var holding = false
        defer { if holding { turn.leave() } }
        while true {
            let message = WorkerMessage.read(from: socket, until: deadline)
            switch message {
            case .success(.largeDecode) where !holding:
                turn.enter()
                holding = true
                guard WorkerMessage.go.send(on: socket) == nil else { return fail(.ended) }
                // (Its time is the decode's, not the wait's for its turn.)
                deadline = Condition.deadline(in: seconds)
            case .success(.largeDecodeDone) where holding:
                turn.leave()
                holding = false
            case .success(.thumbnail), .success(.image), .success(.hash), .success(.failure):
                return message
            case .success:
                return fail(.garbled)
            case .failure(let e):
                return fail(e)
            }
        }
    }

    private func fail(_ e: WorkerChannelError) -> Result<WorkerMessage, WorkerChannelError> {
        usable = false
        return .failure(e)
    }

    /// Whether an idle worker has ended (its socket closed: an idle worker sends nothing).
    var hasEnded: Bool {
        var p = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) != 0
    }

    /// Ends the process (if it still runs: a process that died already keeps the signal that
    /// ended it) and reaps it: how it ended, in words ("killed by signal 11 (SIGSEGV)"), or nil
    /// when it exited 0.
    func end() -> String? {
        close(socket)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        guard Errno.retryingInterrupts({ waitpid(pid, &status, 0) }) == pid else { return nil }
        let signal = status & 0x7f
        if signal != 0 { return "killed by signal \(signal) (\(Self.signalName(signal)))" }
        let code = (status >> 8) & 0xff
        return code == 0 ? nil : "exited with status \(code)"
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: return "SIGSEGV"
        case SIGBUS: return "SIGBUS"
        case SIGABRT: return "SIGABRT"
        case SIGKILL: return "SIGKILL"
        case SIGXCPU: return "SIGXCPU: over its CPU time"
        case SIGILL: return "SIGILL"
        case SIGFPE: return "SIGFPE"
        case SIGSYS: return "SIGSYS"
        case SIGTRAP: return "SIGTRAP"
        default: return "signal \(signal)"
        }
    }
}

/// `strings` as a NULL-ended array of C strings, for `body`.
func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    let copies = strings.map { strdup($0) } + [nil]
    defer { copies.forEach { free($0) } }
    return body(copies)
}
