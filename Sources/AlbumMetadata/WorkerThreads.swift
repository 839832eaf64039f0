import Foundation

/// Long-lived threads that run one job at a time on several threads at once, each running the
/// job's body (which takes its own work from a shared counter until none is left).
///
/// A scan reads its files in batches of 2,000, each on 8 threads per core: starting and ending
/// 16 threads per batch was ~3% of a cached 100,000-file scan's CPU time. Threads start on first
/// use and end after `idleSeconds` without a job, so an idle mount holds none.
final class WorkerThreads: @unchecked Sendable {
    private let idleSeconds: Double
    private let condition = NSCondition()
    /// One job at a time: a second caller waits for the first to finish.
    private let oneJob = NSLock()
    // Guarded by `condition`.
    private var job: (@Sendable () -> Void)?
    /// Threads still to start the current job.
    private var tickets = 0
    /// Threads of the current job that have not finished it.
    private var running = 0
    /// Threads alive (waiting or working).
    private var alive = 0

    init(idleSeconds: Double) {
        self.idleSeconds = idleSeconds
    }

    /// Runs `body` on `width` threads at once and returns when every run has returned.
    func run(width: Int, _ body: @escaping @Sendable () -> Void) {
        guard width > 0 else { return }
        oneJob.lock()
        defer { oneJob.unlock() }
        condition.lock()
        while alive < width {
            alive += 1
            Thread.detachNewThread { [self] in work() }
        }
        job = body
        tickets = width
        running = width
        condition.broadcast()
        while running > 0 { condition.wait() }
        job = nil
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            while tickets == 0 {
                if !condition.wait(until: Date(timeIntervalSinceNow: idleSeconds)) && tickets == 0 {
                    alive -= 1
                    condition.unlock()
                    return
                }
            }
            tickets -= 1
            let body = job!
            condition.unlock()
            body()
            condition.lock()
            running -= 1
            if running == 0 { condition.broadcast() }
        }
    }

    /// Threads alive now (for tests).
    var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return alive
    }
}
