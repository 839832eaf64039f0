import Glibc
import CSysOpen

// Thin wrappers over pthreads: what the daemon needs of Foundation's Thread and NSCondition
// (mutual exclusion alone is `Locked`, the one lock type of albumfs). Why not Foundation: linking it (with ICU) slows every cold launch (`albumfs
// status` included) and adds to the RSS, for these types and a few string helpers
// (docs/benchmarks.md).

/// A mutex and a condition variable (NSCondition's shape): `lock`, then `wait` until woken by
/// `signal` or `broadcast`, or until a deadline on the monotonic clock (a wall-clock change
/// neither ends nor stretches a wait).
/// (`@unchecked Sendable`: the pthread mutex and condition variable are made for use from any
/// thread.)
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        let mutexRC = pthread_mutex_init(mutex, nil)
        precondition(mutexRC == 0, "pthread_mutex_init: \(mutexRC)")
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        let rc = pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
        precondition(rc == 0, "pthread_cond_init: \(rc)")
    }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    public func signal() { pthread_cond_signal(cond) }
    public func broadcast() { pthread_cond_broadcast(cond) }

    /// Waits (the lock held) until woken.
    public func wait() { pthread_cond_wait(cond, mutex) }

    /// Waits (the lock held) until woken or `seconds` pass: false when the time ran out.
    public func wait(seconds: Double) -> Bool { wait(until: Self.deadline(in: seconds)) }

    /// Waits (the lock held) until woken or the monotonic clock reaches `deadline` (from
    /// `deadline(in:)`): false when the time ran out. A loop that waits for a state across
    /// wakeups keeps one deadline, not a new wait of its own length each time.
    public func wait(until deadline: timespec) -> Bool {
        var deadline = deadline
        return pthread_cond_timedwait(cond, mutex, &deadline) != ETIMEDOUT
    }

    /// Seconds on the monotonic clock (a wall clock set back would stretch a wait).
    public static func monotonicNow() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// The monotonic clock's time `seconds` from now.
    public static func deadline(in seconds: Double) -> timespec {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let whole = seconds.rounded(.down)
        deadline.tv_sec += Int(whole)
        deadline.tv_nsec += Int((seconds - whole) * 1e9)
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        return deadline
    }
}

/// Threads of their own (not a dispatch pool's): readers, the inotify loop, helpers.
public enum Threads {
    private final class Start {
        let name: String?
        let body: () -> Void
        init(_ name: String?, _ body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Runs `body` on a new detached thread, which never takes the signals that end the mount
    /// (SIGTERM, SIGINT, SIGHUP, SIGQUIT): libfuse's handler must run on the thread that waits in
    /// its loop (its own workers block them too), or the loop is not woken and the daemon does not
    /// end until the next request. A `name` (15 bytes at most are kept: the kernel's limit) is
    /// what `ps -L` and `/proc/PID/task/TID/comm` show.
    public static func detach(name: String? = nil, _ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(Start(name, body)).toOpaque()
        var thread = pthread_t()
        // Made detached, not detached after: a thread that ended before its maker came back from
        // `pthread_create` was otherwise neither joined nor detached if the process exited then.
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { fatalError("albumfs: cannot start a thread: pthread_attr_init failed") }
        defer { pthread_attr_destroy(&attributes) }
        guard pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) == 0 else {
            fatalError("albumfs: cannot start a thread: pthread_attr_setdetachstate failed")
        }
        let rc = pthread_create(&thread, &attributes, { raw in
            var ending = sigset_t()
            sigemptyset(&ending)
            for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT] { sigaddset(&ending, signal) }
            pthread_sigmask(SIG_BLOCK, &ending, nil)
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            if let name = start.name { Threads.nameThisThread(name) }
            start.body()
            return nil
        }, start)
        guard rc == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            fatalError("albumfs: cannot start a thread: \(Errno(rawValue: rc))")
        }
    }
}

extension Threads {
    /// Names the calling thread: `name`'s first 15 bytes, each byte past ASCII as `?` (the
    /// kernel refuses a longer name, and a cut character would not be UTF-8).
    /// The corresponding C function is `prctl(PR_SET_NAME)`.
    static func nameThisThread(_ name: String) {
        let cut = String(name.utf8.prefix(15).map { $0 < 0x80 ? Character(Unicode.Scalar($0)) : "?" })
        let rc = cut.withCString { albumfs_thread_name_set($0) }
        precondition(rc == 0, "prctl(PR_SET_NAME): \(Errno(rawValue: errno))")
    }

    /// `work`'s answer if it comes within `seconds`, else nil, `work` left to finish on its own
    /// thread. For calls that may block without end: an `opendir` or `stat` of a path on a network
    /// share whose server is gone (a hard NFS mount waits for it for ever, uninterruptibly).
    public static func answer<T: Sendable>(within seconds: Double, _ work: @escaping @Sendable () -> T) -> T? {
        answers(within: seconds, [work])[0]
    }

    /// The same for several calls at once, each on a thread of its own: the answers that came
    /// within `seconds` in all, nil for the others.
    public static func answers<T: Sendable>(within seconds: Double, _ works: [@Sendable () -> T]) -> [T?] {
        let answers = Answers<T>(count: works.count)
        for (i, work) in works.enumerated() {
            detach {
                let value = work()
                answers.done.lock()
                answers.values[i] = value
                answers.missing -= 1
                answers.done.signal()
                answers.done.unlock()
            }
        }
        let deadline = Condition.deadline(in: seconds)
        answers.done.lock()
        defer { answers.done.unlock() }
        // (Woken before every answer came, or early: wait on to the same deadline.)
        while answers.missing > 0, answers.done.wait(until: deadline) {}
        return answers.values
    }
}

/// Where `Threads.answers`' workers leave their values (under `done`'s lock).
/// (`@unchecked Sendable`: `values` and `missing` are read and written only under `done`'s lock.)
private final class Answers<T>: @unchecked Sendable {
    var values: [T?]
    var missing: Int
    let done = Condition()

    init(count: Int) {
        values = Array(repeating: nil, count: count)
        missing = count
    }
}
