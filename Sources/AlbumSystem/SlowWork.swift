import Glibc

/// A fixed number of threads of their own that run slow requests (thumbnail renders, picks'
/// content hashes) in the order they come, so that however many of them arrive at once, the
/// threads that answer the kernel stay free for listings, `stat` and reads of originals.
/// (`@unchecked Sendable`: its variables are read and written only under `condition`.)
public final class SlowWork: @unchecked Sendable {
    public let width: Int
    // Protects the four variables below; held only to take or put a job, never while one runs.
    private let condition = Condition()
    private var jobs: [@Sendable () -> Void] = []
    /// Where the next job to run is in `jobs`.
    private var head = 0
    private var started = 0
    private var idle = 0

    public init(width: Int) { self.width = max(1, width) }

    /// Runs `job` on one of the threads (started as they are needed), after those queued before it.
    public func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let startOne = jobs.count - head > idle && started < width
        if startOne { started += 1 }
        condition.signal()
        condition.unlock()
        if startOne { Threads.detach { [self] in work() } }
    }

    private func work() {
        condition.lock()
        while true {
            while head == jobs.count {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job()
            condition.lock()
        }
    }
}
