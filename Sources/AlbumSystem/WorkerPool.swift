import Glibc

/// Long-lived named threads that run jobs, interactive ones first: the one pool type of albumfs.
///
/// A job is a body and a width: `width` threads each run the body once (a scan's readers take
/// their own work from a shared source until none is left); `run` waits for its job's runs,
/// `submit` does not. Threads start when no idle thread can take a ticket, up to `width`, and end
/// after `idleSeconds` without one (nil: they live as long as the pool), so an idle mount holds
/// none of a scan's.
///
/// Priorities: a free thread takes an `.interactive` ticket (a read the kernel waits on) before
/// any `.ahead` one (a render made ahead of a reader, background work), and `.ahead` jobs run on
/// at most `aheadWidth` threads at once, so made-ahead work never takes the threads reads need.
/// (`@unchecked Sendable`: every variable is read and written only under `condition`.)
public final class WorkerPool: @unchecked Sendable {
    public enum Priority: Sendable {
        /// A request the kernel (or a caller) waits on.
        case interactive
        /// Work made ahead of a reader, or in the background: it runs when no interactive ticket
        /// waits, on at most `aheadWidth` threads.
        case ahead
    }

    private final class Job {
        let body: @Sendable () -> Void
        let priority: Priority
        /// Threads still to start it.
        var tickets: Int
        /// Threads that have not finished it.
        var running: Int
        init(_ body: @escaping @Sendable () -> Void, priority: Priority, width: Int) {
            self.body = body
            self.priority = priority
            tickets = width
            running = width
        }
    }

    /// The threads' name (`/proc/PID/task/TID/comm`, 15 bytes at most).
    public let name: String
    /// Threads at most (nil: as many as the jobs ask for).
    public let width: Int?
    /// `.ahead` jobs' threads at once, at most.
    public let aheadWidth: Int
    private let idleSeconds: Double?
    // Protects every variable below; held only to take or put a ticket, never while a body runs.
    private let condition = Condition()
    /// Jobs with tickets left, oldest first, one queue per priority.
    private var interactive = TicketQueue()
    private var ahead = TicketQueue()
    private var alive = 0
    /// Threads running a body, and those of them running an `.ahead` one.
    private var busy = 0
    private var busyAhead = 0

    /// - Parameter width: threads at most (nil: a thread for every ticket no idle thread takes).
    /// - Parameter aheadWidth: threads running `.ahead` jobs at once, at most (nil: `width`).
    /// - Parameter idleSeconds: how long an idle thread waits for a ticket before it ends (nil:
    ///   for the pool's life).
    public init(name: String, width: Int?, aheadWidth: Int? = nil, idleSeconds: Double?) {
        self.name = name
        self.width = width.map { max(1, $0) }
        self.aheadWidth = max(0, aheadWidth ?? width ?? Int.max)
        self.idleSeconds = idleSeconds
    }

    /// Runs `body` on `width` threads (each once, as threads come free: the runs need not meet),
    /// after the tickets of its priority queued before it; returns at once.
    public func submit(_ priority: Priority = .interactive, width: Int = 1, _ body: @escaping @Sendable () -> Void) {
        guard width > 0 else { return }
        condition.lock()
        enqueue(Job(body, priority: priority, width: width))
        condition.unlock()
    }

    /// Runs `body` on `width` threads at once and returns when every run has returned.
    /// A bounded pool must be at least `width` wide for the runs to meet.
    public func run(width: Int, _ priority: Priority = .interactive, _ body: @escaping @Sendable () -> Void) {
        guard width > 0 else { return }
        condition.lock()
        let job = Job(body, priority: priority, width: width)
        enqueue(job)
        while job.running > 0 { condition.wait() }
        condition.unlock()
    }

    /// Threads alive now (for tests and status).
    public var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return alive
    }

    /// Queues `job` and starts the threads that no idle one covers (the lock held).
    private func enqueue(_ job: Job) {
        if job.priority == .interactive { interactive.append(job) } else { ahead.append(job) }
        let takeable = interactive.tickets + max(0, min(ahead.tickets, aheadWidth - busyAhead))
        let idle = alive - busy
        var starting = max(0, takeable - idle)
        if let width { starting = min(starting, width - alive) }
        for _ in 0..<max(0, starting) {
            alive += 1
            Threads.detach(name: name) { [self] in work() }
        }
        condition.broadcast()
    }

    /// The next ticket a free thread takes (the lock held): interactive first, then ahead while
    /// fewer than `aheadWidth` threads run ahead work.
    private func take() -> Job? {
        if let job = interactive.take() { return job }
        guard busyAhead < aheadWidth else { return nil }
        return ahead.take()
    }

    private func work() {
        condition.lock()
        while true {
            guard let job = take() else {
                guard let idleSeconds else {
                    condition.wait()
                    continue
                }
                let woken = condition.wait(seconds: idleSeconds)
                if !woken && interactive.tickets == 0 && ahead.tickets == 0 {
                    alive -= 1
                    condition.unlock()
                    return
                }
                continue
            }
            busy += 1
            if job.priority == .ahead { busyAhead += 1 }
            condition.unlock()
            job.body()
            condition.lock()
            busy -= 1
            job.running -= 1
            // A waiting caller, or an idle thread held back by `aheadWidth`, may go on now.
            if job.priority == .ahead { busyAhead -= 1 }
            if job.running == 0 || job.priority == .ahead { condition.broadcast() }
        }
    }

    /// Jobs with tickets left, oldest first, and their tickets in all (under the pool's lock).
    private struct TicketQueue {
        private var jobs: [Job] = []
        /// Where the oldest job with tickets left is in `jobs`.
        private var head = 0
        private(set) var tickets = 0

        mutating func append(_ job: Job) {
            jobs.append(job)
            tickets += job.tickets
        }

        /// The oldest job with a ticket left, that ticket taken.
        mutating func take() -> Job? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            job.tickets -= 1
            tickets -= 1
            if job.tickets == 0 {
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                }
            }
            return job
        }
    }
}
