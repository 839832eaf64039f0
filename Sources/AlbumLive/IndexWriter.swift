import AlbumCore
import AlbumSystem
import Dispatch
import FoundationEssentials
import Synchronization

/// Writes a scan's batches to the index on a serial queue, in order; a failure is logged once and
/// ends the writing for that scan (the next scan writes again).
///
/// Finishing says whether the scan wrote, failed, or had nothing to write (`Outcome`): only the
/// first two say anything about the index's disk. A status that took "nothing to write" for "ok"
/// called a full disk healthy again after any quiet rescan.
///
/// A first scan (nothing known yet) may *hold* its batches and write them once its views are
/// published (`Holding`), packed (`PackedFiles`): on a fast disk a scan is bound by the CPU, and
/// writing rows while it reads takes CPU time from it, so the views come later
/// (docs/benchmarks.md). Held for a short time and a bounded number of files only, so that a long
/// scan (a slow share, a huge library) keeps its progress in the index as it goes, and a mount
/// stopped meanwhile writes what it holds (`stopHolding`).
/// (`@unchecked Sendable`: its variables are read and written only on `queue`, a serial queue;
/// `mayHold` and `pending` are atomics.)
public final class IndexWriter: @unchecked Sendable {
    /// How long and how much a first scan holds before it writes as it goes.
    public struct Holding: Sendable {
        public var files: Int
        public var seconds: Double
        public init(files: Int, seconds: Double) {
            self.files = files
            self.seconds = seconds
        }
        /// At most 15 s of reading and 1,000,000 files (packed: ~130 MB).
        public static let firstScan = Holding(files: 1_000_000, seconds: 15)
    }

    /// Shared by every writer of one index, so that a scan's rows never land after a later scan's.
    private let queue: DispatchQueue
    private let log: @Sendable (String) -> Void
    /// Rows handed in and not written yet (shown as `index_pending`; shared by a mount's writers).
    private let pending: PendingRows
    // Touched only on `queue`.
    /// Nil once finished: the writer can outlive its scan (reader threads let go of the stream
    /// holding it a moment later), and a process that exits then must still close the index
    /// (SQLite folds its WAL back into the file on close; `albumfs index` left it beside the file).
    private var index: FileIndexStore?
    private var failure: Errno?
    private var wroteAny = false
    private var holding: Holding?
    private var held: [PackedFiles] = []
    private var heldCount = 0
    /// Whether `holding` may still take batches: they are then packed by whoever saves them
    /// (`PackedFiles`: a reader thread, so every core packs), read without the queue.
    private let mayHold: Atomic<Bool>
    private let started = Date()

    public init(index: FileIndexStore?, log: @escaping @Sendable (String) -> Void,
                queue: DispatchQueue = DispatchQueue(label: "albumfs.index-writer"), pending: PendingRows = PendingRows(),
                holding: Holding? = nil) {
        self.index = index
        self.log = log
        self.queue = queue
        self.pending = pending
        self.holding = holding
        mayHold = Atomic(holding != nil)
    }

    public func save(_ files: some Collection<IndexedFile>) {
        guard !files.isEmpty else { return }
        pending.add(files.count)
        guard mayHold.load(ordering: .relaxed) else {
            let upserts = Array(files)
            queue.async { [self] in
                writeHeld()
                write(upserts, [])
            }
            return
        }
        // (The closure keeps the packed files only: the records go once the caller drops them.)
        let packed = PackedFiles(files)
        queue.async { [self] in
            if let holding, heldCount + packed.count <= holding.files, Date().timeIntervalSince(started) < holding.seconds {
                held.append(packed)
                heldCount += packed.count
                return
            }
            writeHeld()
            write(packed.unpacked(), [])
        }
    }

    /// Files found at new paths, whose rows the index copies there (`FileIndexStore.save(moves:)`),
    /// after the batches saved before.
    public func save(moves: [FileMove]) {
        guard !moves.isEmpty else { return }
        pending.add(moves.count)
        queue.async { [self] in
            writeHeld()
            write(rows: moves.count) { index throws(Errno) in try index.save(moves: moves) }
        }
    }

    /// Writes what is held and holds nothing more (a mount stopping while its first scan reads).
    public func stopHolding() {
        queue.async { [self] in writeHeld() }
    }

    /// What a scan's writing came to.
    public enum Outcome: Equatable, Sendable {
        /// Nothing to write (or no index): says nothing about whether the index can be written.
        case nothingWritten
        case written
        /// Why the writing stopped (logged already); what was written before it stays.
        case failed(Errno)

        public var failure: Errno? {
            if case .failed(let errno) = self { return errno }
            return nil
        }

        /// The index's write failure to show after this outcome, `shown` the one shown before: a
        /// scan that wrote nothing leaves it as it was.
        public func failure(after shown: Errno?) -> Errno? {
            switch self {
            case .nothingWritten: shown
            case .written: nil
            case .failed(let errno): errno
            }
        }
    }

    /// Writes what is held and the removals after every batch, waits until all is written, and
    /// lets go of the index.
    @discardableResult
    public func finish(removing removals: [String]) -> Outcome {
        queue.sync { finishOnQueue(removals) }
    }

    /// The same without waiting: `done` is called on the writer's queue once all is written.
    public func finishLater(removing removals: [String], done: @escaping @Sendable (Outcome) -> Void) {
        queue.async { [self] in done(finishOnQueue(removals)) }
    }

    private func finishOnQueue(_ removals: [String]) -> Outcome {
        writeHeld()
        if !removals.isEmpty { write([], removals) }
        index = nil
        if let failure { return .failed(failure) }
        return wroteAny ? .written : .nothingWritten
    }

    /// Writes the held batches, one transaction each (unpacked one at a time), and holds no more.
    private func writeHeld() {
        holding = nil
        mayHold.store(false, ordering: .relaxed)
        let batches = held
        held = []
        heldCount = 0
        for batch in batches { write(batch.unpacked(), []) }
    }

    private func write(_ upserts: [IndexedFile], _ removals: [String]) {
        write(rows: upserts.count) { index throws(Errno) in try index.save(upserts: upserts, removals: removals) }
    }

    /// Runs one save of `rows` rows counted as pending, unless the writing has stopped.
    private func write(rows: Int, _ save: (FileIndexStore) throws(Errno) -> Void) {
        defer { pending.add(-rows) }
        guard let index, failure == nil else { return }
        do {
            try save(index)
            wroteAny = true
        } catch {
            failure = error
            log("albumfs: warning: the index cannot be written: \(error)")
        }
    }
}

/// Rows handed to a mount's index writers and not written yet.
public final class PendingRows: Sendable {
    private let rows = Atomic<Int>(0)
    public init() {}
    public var count: Int { rows.load(ordering: .relaxed) }
    func add(_ n: Int) { rows.add(n, ordering: .relaxed) }
}
