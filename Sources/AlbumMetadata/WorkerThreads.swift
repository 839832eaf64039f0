import AlbumCore
import AlbumSystem
import FoundationEssentials
import Glibc

/// Long-lived threads that run jobs, each on several threads at once: every thread given a job
/// runs its body (which takes its own work from a shared source until none is left).
///
/// A scan reads its files on several threads per core, batch after batch: starting and ending
/// them for every batch costs the scan CPU time. Threads start when no idle one can take
/// a job (so two jobs never wait for each other's threads) and end after `idleSeconds` without
/// one, so an idle mount holds none.
/// (`@unchecked Sendable`: `waiting`, `alive`, `busy` and each job's counts are read and written
/// only under `condition`.)
final class WorkerThreads: @unchecked Sendable {
    private final class Job {
        let body: @Sendable () -> Void
        /// Threads still to start it.
        var tickets: Int
        /// Threads that have not finished it.
        var running: Int
        init(_ body: @escaping @Sendable () -> Void, width: Int) {
            self.body = body
            tickets = width
            running = width
        }
    }

    private let idleSeconds: Double
    private let condition = Condition()
    // Guarded by `condition`.
    /// Jobs with tickets left, oldest first.
    private var waiting: [Job] = []
    private var alive = 0
    /// Threads running a body.
    private var busy = 0

    init(idleSeconds: Double) {
        self.idleSeconds = idleSeconds
    }

    /// Runs `body` on `width` threads at once and returns when every run has returned.
    func run(width: Int, _ body: @escaping @Sendable () -> Void) {
        guard width > 0 else { return }
        condition.lock()
        let job = Job(body, width: width)
        waiting.append(job)
        // Every thread not running a body will take a ticket; start threads for the rest.
        let uncovered = waiting.reduce(0) { $0 + $1.tickets } - (alive - busy)
        for _ in 0..<max(0, uncovered) {
            alive += 1
            Threads.detach { [self] in work() }
        }
        condition.broadcast()
        while job.running > 0 { condition.wait() }
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            guard let job = waiting.first else {
                let woken = condition.wait(seconds: idleSeconds)
                if !woken && waiting.isEmpty {
                    alive -= 1
                    condition.unlock()
                    return
                }
                continue
            }
            job.tickets -= 1
            if job.tickets == 0 { waiting.removeFirst() }
            busy += 1
            condition.unlock()
            job.body()
            condition.lock()
            busy -= 1
            job.running -= 1
            if job.running == 0 { condition.broadcast() }
        }
    }

    /// Threads alive now (for tests).
    var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return alive
    }
}
