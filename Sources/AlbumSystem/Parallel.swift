import Dispatch

/// Independent works run side by side on every core (GCD's worker threads), results in order.
/// GCD's pool, not a `WorkerPool`: the caller waits for CPU-bound parts of one result, which
/// GCD sizes to the cores and runs on the caller's thread too; a call from inside a work (or from
/// a pool's own thread) never waits for threads that its callers hold (docs/concurrency.md).
public enum Parallel {
    public static func all<T: Sendable>(_ works: [@Sendable () -> T]) -> [T] {
        var results = [T?](repeating: nil, count: works.count)
        results.withUnsafeMutableBufferPointer { buffer in
            // (Shared unchecked: each work writes only its own slot, and `concurrentPerform`
            // returns once every work has.)
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: works.count) { out[$0] = works[$0]() }
        }
        return results.map { $0! }
    }
}
