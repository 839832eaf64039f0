import Dispatch

/// A value only one serial queue reads and writes. Each access to one of its properties checks it
/// runs there (`dispatchPrecondition`: a trap, not a race, when another thread reaches for it), so
/// the state of a type that lives on the coordinator's queue needs no lock and stays checked.
@dynamicMemberLookup
struct QueueConfined<Value> {
    let queue: DispatchQueue
    private var value: Value

    init(_ value: Value, on queue: DispatchQueue) {
        self.queue = queue
        self.value = value
    }

    subscript<Member>(dynamicMember member: WritableKeyPath<Value, Member>) -> Member {
        _read {
            dispatchPrecondition(condition: .onQueue(queue))
            yield value[keyPath: member]
        }
        _modify {
            dispatchPrecondition(condition: .onQueue(queue))
            yield &value[keyPath: member]
        }
    }
}
