import AlbumCore
import AlbumMetadata
import AlbumSystem

/// A scan's walk on a thread of its own, the producer of a scan (`ScanRun` consumes): it hands
/// the read batches it starts into a bounded queue, waiting while the queue is full, so a merge
/// or a tree shown that falls behind holds the walk, and what it has in flight, at `capacity`
/// batches, first scans and rescans alike. It ends with its survey.
/// (`@unchecked Sendable`: `queued`, `handed`, `handedFiles` and `ended` change only under
/// `condition`; `body` is taken once, by the walk's thread.)
public final class ConcurrentWalk: @unchecked Sendable {
    /// What the walk found, once it has ended.
    struct Ended: Sendable {
        var survey: LibraryScanner.Survey
        /// Files taken from what was known at new paths (`KnownMoves`).
        var heldMoves: [FileMove]
    }

    /// The walk, run on its thread: what it takes with it is checked to be Sendable, and what it
    /// found (the survey, the folder times it noted) comes back in its `Ended`, not through
    /// state shared with the merges.
    typealias Body = @Sendable (_ handOff: @escaping (ReadStream.Batch) -> Void) -> Ended

    /// Batches handed on and not taken yet, at most: 16,000 files, enough that the readers never
    /// wait for the walk while a batch merges or a tree is built.
    public static let capacity = 8

    private var body: Body?
    private let capacity: Int
    private let condition = Condition()
    // Guarded by `condition`.
    private var queued: [ReadStream.Batch] = []
    private var handed = 0
    private var handedFiles = 0
    private var ended: Ended?

    /// Starts `body` on a thread of its own. What it captures is released on that thread before
    /// the walk says it has ended (a snapshot of the known files among it: `KnownSnapshot`).
    init(capacity: Int = ConcurrentWalk.capacity, _ body: @escaping Body) {
        self.body = body
        self.capacity = max(1, capacity)
        Threads.detach { [self] in run() }
    }

    private func run() {
        var result: Ended?
        do {
            // (Released at the end of this scope at the latest, before the end is told.)
            let walk = body.take()
            result = walk? { [self] batch in handOff(batch) }
        }
        condition.lock()
        ended = result ?? Ended(survey: .unavailable("the walk did not run"), heldMoves: [])
        condition.broadcast()
        condition.unlock()
    }

    /// Queues `batch`, waiting while the queue is full.
    private func handOff(_ batch: ReadStream.Batch) {
        condition.lock()
        while queued.count >= capacity { condition.wait() }
        queued.append(batch)
        handed += 1
        handedFiles += batch.count
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch handed on, in the walk's order, waiting for one; nil once the walk has
    /// ended and every batch was taken.
    func next() -> ReadStream.Batch? {
        condition.lock()
        defer { condition.unlock() }
        while queued.isEmpty && ended == nil { condition.wait() }
        guard !queued.isEmpty else { return nil }
        condition.broadcast()
        return queued.removeFirst()
    }

    /// What the walk found, waiting for its end.
    func end() -> Ended {
        condition.lock()
        defer { condition.unlock() }
        while ended == nil { condition.wait() }
        return ended.unsafelyUnwrapped
    }

    /// Batches and files handed on so far, and whether the walk has ended.
    var counts: (batches: Int, files: Int, ended: Bool) {
        condition.lock()
        defer { condition.unlock() }
        return (handed, handedFiles, ended != nil)
    }
}
