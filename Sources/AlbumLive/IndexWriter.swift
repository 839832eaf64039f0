import AlbumCore
import Dispatch

/// Writes a scan's batches to the index on a serial queue of its own, in order; a failure is
/// logged once and ends the writing for that scan (the next scan writes again).
final class IndexWriter: @unchecked Sendable {
    private let index: FileIndexStore?
    private let queue = DispatchQueue(label: "albumfs.index-writer")
    private let log: @Sendable (String) -> Void
    // Touched only on `queue`.
    private var failed = false

    init(index: FileIndexStore?, log: @escaping @Sendable (String) -> Void) {
        self.index = index
        self.log = log
    }

    func save(_ upserts: [IndexedFile]) {
        guard index != nil, !upserts.isEmpty else { return }
        queue.async { self.write(upserts, []) }
    }

    /// Writes the removals after every batch, and waits until all is written.
    func finish(removing removals: [String]) {
        queue.sync { if !removals.isEmpty { write([], removals) } }
    }

    private func write(_ upserts: [IndexedFile], _ removals: [String]) {
        guard let index, !failed else { return }
        do { try index.save(upserts: upserts, removals: removals) } catch {
            failed = true
            log("albumfs: warning: the index cannot be written: \(error)")
        }
    }
}
