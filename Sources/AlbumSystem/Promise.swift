/// A value given once by one thread and waited for by any number of others: a `Condition` and
/// its predicate (the value is there). What a thread waits on for another's result: a render's
/// single flight, a batch of reads, a background thread's end.
/// (`@unchecked Sendable`: `value` is read and written only under `condition`'s lock.)
public final class Promise<Value: Sendable>: @unchecked Sendable {
    private let condition = Condition()
    private var value: Value?

    public init() {}

    /// Gives the value and wakes every waiter. Only the first value given counts: a promise is
    /// kept once.
    public func fulfil(_ given: Value) {
        condition.lock()
        defer { condition.unlock() }
        guard value == nil else { return }
        value = given
        condition.broadcast()
    }

    /// The value, once given (waited for).
    public func wait() -> Value {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let value { return value }
            condition.wait()
        }
    }

    /// The value if it is given within `seconds`, else nil.
    public func wait(seconds: Double) -> Value? {
        let deadline = Condition.deadline(in: seconds)
        condition.lock()
        defer { condition.unlock() }
        // (Woken early: wait on to the same deadline.)
        while value == nil, condition.wait(until: deadline) {}
        return value
    }

    /// The value if it was given already, waiting for nothing.
    public var given: Value? {
        condition.lock()
        defer { condition.unlock() }
        return value
    }
}
