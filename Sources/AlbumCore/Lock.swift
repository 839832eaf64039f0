import Foundation

/// A mutex with a `withLock` shape (Foundation's NSLock underneath).
public final class NSLockShim: @unchecked Sendable {
    private let lock = NSLock()
    public init() {}
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
