import AlbumCore
import Dispatch

/// Writes a scan's batches to the index on a serial queue of its own, in order; a failure is
/// logged once and ends the writing for that scan (the next scan writes again).
public final class IndexWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "albumfs.index-writer")
    private let log: @Sendable (String) -> Void
    // Touched only on `queue`.
    /// Nil once finished: the writer can outlive its scan (reader threads let go of the stream
    /// holding it a moment later), and a process that exits then must still close the index
    /// (SQLite folds its WAL back into the file on close; `albumfs index` left it beside the file).
    private var index: FileIndexStore?
    private var failure: Errno?

    public init(index: FileIndexStore?, log: @escaping @Sendable (String) -> Void) {
        self.index = index
        self.log = log
    }

    public func save(_ upserts: [IndexedFile]) {
        guard !upserts.isEmpty else { return }
        queue.async { self.write(upserts, []) }
    }

    /// Writes the removals after every batch, waits until all is written, and lets go of the
    /// index. Returns why the writing stopped, if it did (logged already).
    @discardableResult
    public func finish(removing removals: [String]) -> Errno? {
        queue.sync {
            if !removals.isEmpty { write([], removals) }
            index = nil
            return failure
        }
    }

    private func write(_ upserts: [IndexedFile], _ removals: [String]) {
        guard let index, failure == nil else { return }
        do { try index.save(upserts: upserts, removals: removals) } catch {
            failure = error
            log("albumfs: warning: the index cannot be written: \(error)")
        }
    }
}
