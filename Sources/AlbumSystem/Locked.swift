import Synchronization
#if ALBUMFS_TSAN
import Glibc
#endif

// The one lock type of albumfs (each use says what it protects). It is the standard library's
// `Mutex`, except in a ThreadSanitizer build (`-Xswiftc -DALBUMFS_TSAN`, scripts/tsan): `Mutex`
// waits in the kernel (futex) when contended, an order TSan cannot see, so it reports races
// between two accesses that are both inside `withLock`. There a pthread mutex, which TSan
// intercepts, does the same job.

#if ALBUMFS_TSAN
/// A value reached only while holding its lock: `withLock` is its one way in.
/// The corresponding C functions are `pthread_mutex_lock` and `pthread_mutex_unlock`.
/// (`@unchecked Sendable`: the value is only reached under the pthread mutex.)
public struct Locked<Value>: ~Copyable, @unchecked Sendable {
    private final class Box: @unchecked Sendable {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var value: Value

        init(_ value: consuming Value) {
            self.value = value
            let rc = pthread_mutex_init(mutex, nil)
            precondition(rc == 0, "pthread_mutex_init: \(rc)")
        }

        deinit {
            let rc = pthread_mutex_destroy(mutex)
            precondition(rc == 0, "pthread_mutex_destroy: \(rc)")
            mutex.deallocate()
        }
    }

    private let box: Box

    public init(_ value: consuming sending Value) { box = Box(value) }

    /// Runs `body` with the value, the lock held.
    public borrowing func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let rc = pthread_mutex_lock(box.mutex)
        precondition(rc == 0, "pthread_mutex_lock: \(rc)")
        defer {
            let rc = pthread_mutex_unlock(box.mutex)
            precondition(rc == 0, "pthread_mutex_unlock: \(rc)")
        }
        return try body(&box.value)
    }
}
#else
/// A value reached only while holding its lock: `withLock` is its one way in.
/// The corresponding type is the standard library's `Mutex`.
public struct Locked<Value>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>

    @inlinable public init(_ value: consuming sending Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, the lock held.
    @inlinable public borrowing func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock(body)
    }
}
#endif
