import Dispatch

/// Work started on another thread whose result is collected later.
final class Pending<T: Sendable>: @unchecked Sendable {
    private var value: T?
    private let finished = DispatchSemaphore(value: 0)

    init(_ work: @escaping @Sendable () -> T) {
        DispatchQueue.global().async { [self] in
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
