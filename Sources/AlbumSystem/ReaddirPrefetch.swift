import Dispatch

/// A readdir prefetch: answers made before they are asked for, one per slot (an open listing):
/// while a reader takes in one answer, the next is made on a queue of its own, so the maker's
/// half of each request runs beside the reader's instead of between its turns.
///
/// An answer made ahead is given only to the request it was made for. One not yet begun when
/// that request comes is dropped and the request makes its own, so a busy queue never holds a
/// request up; one being made is waited for (its maker is running). At most `slots` answers
/// are held at once, so the memory they take is bounded however many slots a client opens.
/// (`@unchecked Sendable`: `pending` is read and written with `condition` held.)
public final class ReaddirPrefetch<Slot: Hashable & Sendable, Request: Equatable & Sendable, Answer: Sendable>: @unchecked Sendable {
    private enum Progress {
        case queued
        case making
        case made(Answer?)
        case dropped
    }

    /// (`@unchecked Sendable`: `progress` is read and written with `condition` held.)
    private final class Pending: @unchecked Sendable {
        let request: Request
        var progress = Progress.queued
        init(_ request: Request) { self.request = request }
    }

    /// Guards `pending` and each entry's `progress`; broadcast when an answer is made.
    private let condition = Condition()
    /// Per slot, the answer being made ahead of its next request.
    private var pending: [Slot: Pending] = [:]
    private let queue: DispatchQueue
    private let slots: Int

    public init(label: String, slots: Int) {
        queue = DispatchQueue(label: label)
        self.slots = slots
    }

    /// The answer made ahead for `request` in `slot` (waited for if it is being made), or nil:
    /// none was made for it, it had not begun, or its maker gave none. Either way the slot is
    /// empty after.
    public func take(_ slot: Slot, _ request: Request) -> Answer? {
        condition.lock()
        defer { condition.unlock() }
        guard let entry = pending.removeValue(forKey: slot) else { return nil }
        while true {
            switch entry.progress {
            case .making where entry.request == request:
                condition.wait()
            case .made(let answer) where entry.request == request:
                return answer
            default:
                entry.progress = .dropped
                return nil
            }
        }
    }

    /// Makes the answer to `request` in `slot` on the queue, for `take` to find; what was made
    /// ahead in the slot before goes. Nothing is made when `slots` other slots hold answers.
    public func prefetch(_ slot: Slot, _ request: Request, _ make: @escaping @Sendable () -> Answer?) {
        let entry = Pending(request)
        condition.lock()
        guard pending[slot] != nil || pending.count < slots else { return condition.unlock() }
        pending.updateValue(entry, forKey: slot)?.progress = .dropped
        condition.unlock()
        queue.async { [condition] in
            condition.lock()
            guard case .queued = entry.progress else { return condition.unlock() }
            entry.progress = .making
            condition.unlock()
            let answer = make()
            condition.lock()
            if case .making = entry.progress { entry.progress = .made(answer) }
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The slot is closed: what was made ahead in it goes.
    public func forget(_ slot: Slot) {
        condition.lock()
        pending.removeValue(forKey: slot)?.progress = .dropped
        condition.unlock()
    }
}
