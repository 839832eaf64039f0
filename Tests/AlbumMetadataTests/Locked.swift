import Foundation

/// A value shared across threads, behind a lock (XCTest targets here have no Synchronization
/// import by default).
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

extension Locked where Value == Int {
    /// Adds `n` and returns the new total (`add(0)` reads it).
    func add(_ n: Int) -> Int { withLock { $0 += n; return $0 } }
}
