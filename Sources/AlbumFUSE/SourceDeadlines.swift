import AlbumSystem
import CFuse3
import Glibc

/// Requests that wait on the library's storage (opening and reading originals, thumbnails made
/// from them, `statfs`) are answered EIO once `timeout` passes without an answer from it. A
/// network filesystem whose server stopped answering (sshfs, an `rclone mount`, a hard NFS
/// mount) never returns from the `read` the request's thread is in, so a watchdog thread answers
/// for it, and the thread's own answer, if it ever comes, is dropped. While a request is
/// stuck so, the storage is *stalled*: further requests for it are answered EIO at once, rather
/// than each holding one of the loop's threads for good (listings, `stat` and the status need
/// them), until a stuck one returns.
///
/// (`@unchecked Sendable`: `waiting`, `expired`, `nextTicket` and `stallChanges` are read and
/// written only under `condition`.)
final class SourceDeadlines: @unchecked Sendable {
    /// Seconds a request may wait on the storage (`-o source_timeout`); 0: for ever.
    let timeout: Double
    /// Told each time the storage becomes stalled or answers again, with the change's number
    /// (told outside the lock, so two changes may arrive out of order: the later number wins).
    private let onStall: @Sendable (Bool, UInt64) -> Void
    /// How the watchdog answers a request past its deadline (EIO to the kernel; a test's own sink).
    private let answerLate: @Sendable (PendingRequest) -> Void
    // Protects the variables below; never held while a request waits on the storage or is answered.
    private let condition = Condition()
    private var waiting: [UInt64: Waiting] = [:]
    /// Requests the watchdog answered whose thread is still waiting on the storage.
    private var expired = Set<UInt64>()
    private var nextTicket: UInt64 = 1
    private var stallChanges: UInt64 = 0

    private struct Waiting {
        let request: PendingRequest
        let deadline: timespec
    }

    /// A request's claim on its answer while it waits on the storage (`start`, `finish`).
    struct Ticket: Sendable {
        /// 0: no deadline (`timeout` 0).
        let id: UInt64
    }

    /// The watchdog starts with the mount (a thread from the start, none started while serving).
    init(timeout: Double, answerLate: @escaping @Sendable (PendingRequest) -> Void = { Reply.error($0.req, .ioError) },
         onStall: @escaping @Sendable (Bool, UInt64) -> Void) {
        self.timeout = timeout
        self.answerLate = answerLate
        self.onStall = onStall
        if timeout > 0 { Threads.detach { [self] in watch() } }
    }

    /// Whether a request is stuck on the storage now (requests for it are answered EIO at once).
    var isStalled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !expired.isEmpty
    }

    /// Registers `req` before its thread waits on the storage; nil when the storage is stalled,
    /// and the request is to be answered EIO at once.
    func start(_ req: fuse_req_t?) -> Ticket? {
        guard timeout > 0 else { return Ticket(id: 0) }
        condition.lock()
        defer { condition.unlock() }
        guard expired.isEmpty else { return nil }
        let id = nextTicket
        nextTicket += 1
        waiting[id] = Waiting(request: PendingRequest(req), deadline: Condition.deadline(in: timeout))
        // (The watchdog is not woken: its deadline is `timeout` from now, and an idle watchdog
        // looks again within `timeout` anyway. A read costs no thread switch.)
        return Ticket(id: id)
    }

    /// Whether the request's own thread is to answer it, now that the storage has answered
    /// (false: the watchdog answered EIO at the deadline, and what the thread made must be let go).
    func finish(_ ticket: Ticket) -> Bool {
        guard ticket.id != 0 else { return true }
        condition.lock()
        if waiting.removeValue(forKey: ticket.id) != nil {
            condition.unlock()
            return true
        }
        let recovered = expired.remove(ticket.id) != nil && expired.isEmpty
        if recovered { stallChanges += 1 }
        let change = stallChanges
        condition.unlock()
        if recovered { onStall(false, change) }
        return false
    }

    /// The watchdog: sleeps until the earliest deadline, answers EIO for each request past its own.
    private func watch() {
        condition.lock()
        while true {
            guard let earliest = waiting.values.map(\.deadline).min(by: Self.before) else {
                _ = condition.wait(seconds: timeout)
                continue
            }
            let now = Condition.deadline(in: 0)
            if Self.before(now, earliest) {
                _ = condition.wait(until: earliest)  // (a request answered meanwhile is gone from `waiting` by then)
                continue
            }
            let late = waiting.filter { !Self.before(now, $0.value.deadline) }
            let stalls = expired.isEmpty
            for id in late.keys {
                waiting[id] = nil
                expired.insert(id)
            }
            if stalls { stallChanges += 1 }
            let change = stallChanges
            condition.unlock()
            if stalls { onStall(true, change) }
            for request in late.values { answerLate(request.request) }
            condition.lock()
        }
    }

    private static func before(_ a: timespec, _ b: timespec) -> Bool {
        a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec)
    }
}
