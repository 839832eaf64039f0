import Dispatch

/// Independent works run side by side on every core (GCD's worker threads), results in order.
public enum Parallel {
    public static func all<T: Sendable>(_ works: [@Sendable () -> T]) -> [T] {
        var results = [T?](repeating: nil, count: works.count)
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: works.count) { out[$0] = works[$0]() }
        }
        return results.map { $0! }
    }
}
