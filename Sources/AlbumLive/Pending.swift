import Dispatch

/// Work started on another thread whose result is collected later.
final class Pending<T: Sendable>: @unchecked Sendable {
    private var value: T?
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `work` on `queue` (a serial queue runs such works one after another, in order).
    init(on queue: DispatchQueue = .global(), _ work: @escaping @Sendable () -> T) {
        queue.async { [self] in
            value = work()
            finished.signal()
        }
    }

    /// Blocks until the work is done (once).
    func wait() -> T {
        finished.wait()
        return value!
    }
}
