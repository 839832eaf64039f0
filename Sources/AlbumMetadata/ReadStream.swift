import AlbumCore
import AlbumSystem
import FoundationEssentials
import Glibc
import Synchronization

/// Reads the headers of files handed in batch after batch (as a walk finds them) on the shared
/// reader threads, as one stream: the threads go from one batch to the next without waiting for
/// the batch's slowest read to end. (Reading batch by batch, with a barrier after each, left most
/// threads idle at the end of every batch on a cold disk: ~50,000 files/s at 100,000 cold files.)
///
/// Each batch's results come back in its own order, through `Batch.take()`.
///
/// (Not generic: its code is then compiled for its one element type, and results are moved from
/// reader to merge, where a generic class used from another module copied, retained and released
/// every field of every result.)
/// (`@unchecked Sendable`: its queue and each batch's count of unread items change only under
/// `condition`; each result slot is written by the one reader that took its item.)
public final class ReadStream: @unchecked Sendable {
    /// A file read, and its photo when the stream decides photos. (A struct, not a tuple: arrays
    /// of tuples are destroyed by the runtime's generic tuple code, element by element.)
    public struct Read: Sendable {
        public var file: IndexedFile
        public var photo: Photo?
        public init(file: IndexedFile, photo: Photo?) {
            self.file = file
            self.photo = photo
        }
    }

    /// Files handed in together; its results once all are read.
    /// (`@unchecked Sendable`: `unread` changes under the stream's `condition`; each slot is
    /// written by one reader; `results` is written before `finished` is fulfilled and read after
    /// it is, by the one thread that takes the batch.)
    public final class Batch: @unchecked Sendable {
        fileprivate let items: [(path: String, identity: FileIdentity)]
        /// The items' positions in the order they are read: by inode, which on the common Linux
        /// filesystems follows where files lie on the disk (a folder copied in one go is laid out
        /// one file after the next), so reads taken together can be merged (see `ReadRing`).
        fileprivate let order: [Int]
        /// One slot per item, written by reader threads (each slot by one thread); freed once
        /// the batch is complete.
        fileprivate let slots: UnsafeMutableBufferPointer<Read?>
        /// Items not yet read (guarded by the stream's lock).
        fileprivate var unread: Int
        private var results: [Read]?
        /// Given once every item is read and the results are kept.
        private let finished = Promise<Void>()

        fileprivate init(_ items: [(path: String, identity: FileIdentity)]) {
            self.items = items
            order = items.indices.sorted { items[$0].identity.inode < items[$1].identity.inode }
            slots = .allocate(capacity: items.count)
            slots.initialize(repeating: nil)
            unread = items.count
        }

        /// The results (the files still there, in the batch's order), once every item is read.
        fileprivate func collect() -> [Read] {
            // Moved out, not copied: no retain and release of every field of every result.
            var collected: [Read] = []
            collected.reserveCapacity(slots.count)
            for i in slots.indices {
                if let result = (slots.baseAddress! + i).move() { collected.append(result) }
            }
            slots.deallocate()
            return collected
        }

        /// Keeps `kept` for whoever takes the batch, and wakes them.
        fileprivate func release(keeping kept: [Read]) {
            results = kept
            finished.fulfil(())
        }

        /// How many files were handed in.
        public var count: Int { items.count }

        /// Whether every file is read (`take` would not wait).
        public var isComplete: Bool { finished.given != nil }

        /// Blocks until every file of the batch is read, and hands over the results (once: the
        /// batch keeps nothing, so a long scan does not hold the evidence of every batch merged).
        public func take() -> [Read] {
            finished.wait()
            defer { results = nil }  // (a later take gets nothing)
            return results ?? []
        }
    }

    private let scanner: LibraryScanner
    /// Whether photos are decided on the reader threads (a mount needs them; `read` does not).
    private let decides: Bool
    private let progress: (@Sendable (Int, Int) -> Void)?
    private let onBatch: (@Sendable (inout [Read]) -> Void)?
    private let maxThreads: Int
    private let condition = Condition()
    // Guarded by `condition`.
    private var queue: [Batch] = []
    /// The next unread position in `queue[0]`.
    private var offset = 0
    private var ended = false
    private var started = false
    private var handedIn = 0
    private var done = 0
    /// Reader threads of the stream that have not ended.
    private let readersLeft = Atomic<Int>(0)

    /// Files read per turn: small, so the last reads of a batch spread over every thread, yet
    /// enough for reads of neighbouring files to merge when submitted together.
    static let chunk = 32

    /// - Parameters:
    ///   - decides: whether to decide each file's photo on the reader threads.
    ///   - onBatch: called with each batch's results as soon as it is complete (on a reader thread);
    ///     what it leaves in them is what the batch keeps until taken (e.g. the records slimmed of
    ///     what was just saved: a walk can run far ahead of the merge, and batches wait for it).
    ///     In place: the results are not copied for it.
    ///   - progress: `(done, handed in so far)`, from reader threads, one call at a time and in
    ///     order (keep it short: readers wait for it).
    init(scanner: LibraryScanner, maxThreads: Int, decides: Bool,
         onBatch: (@Sendable (inout [Read]) -> Void)? = nil, progress: (@Sendable (Int, Int) -> Void)? = nil) {
        self.scanner = scanner
        self.maxThreads = maxThreads
        self.decides = decides
        self.onBatch = onBatch
        self.progress = progress
    }

    /// Hands in files to read; reading starts at once.
    public func add(_ items: [(path: String, identity: FileIdentity)]) -> Batch {
        let batch = Batch(items)
        condition.lock()
        defer { condition.unlock() }
        if items.isEmpty {
            batch.release(keeping: batch.collect())
            return batch
        }
        queue.append(batch)
        handedIn += items.count
        if !started {
            started = true
            // A small first batch (a rescan of a few files) needs few threads, but on network
            // storage each file waits round trips: a thread each, up to the most.
            let width = min(maxThreads, max(1, items.count / (scanner.onNetworkStorage ? 1 : 64)))
            let rootFD = (try? SourceOpening.root(scanner.root)) ?? -1
            readersLeft.store(width, ordering: .relaxed)
            LibraryScanner.readers.submit(.interactive, width: width) { [self] in
                readUntilEnd(rootFD: rootFD)
                // (The last reader to end closes the stream's root descriptor.)
                if readersLeft.subtract(1, ordering: .acquiringAndReleasing).newValue == 0, rootFD >= 0 { close(rootFD) }
            }
        }
        condition.broadcast()
        return batch
    }

    /// No more batches: the reader threads end once everything handed in is read.
    public func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    private func read(_ file: consuming IndexedFile, cameras: inout CameraNameCache.Memo) -> Read {
        let photo = decides ? scanner.photo(from: file, cameras: &cameras) : nil
        return Read(file: file, photo: photo)
    }

    /// One reader thread: takes a chunk of the oldest batch, reads it, until the stream has ended
    /// and nothing is left.
    private func readUntilEnd(rootFD: Int32) {
        // Per thread; nil (file-by-file reads) without io_uring.
        var ring = scanner.batchedReads ? ReadRing(capacity: Self.chunk) : nil
        var cameras = CameraNameCache.Memo()
        let headers = scanner.headers
        condition.lock()
        while true {
            guard let batch = queue.first else {
                if ended { break }
                condition.wait()
                continue
            }
            let range = offset..<min(batch.items.count, offset + Self.chunk)
            offset = range.upperBound
            if offset == batch.items.count {
                queue.removeFirst()
                offset = 0
            }
            condition.unlock()
            let positions = batch.order[range]
            var digests: [HashesWhileReading.Digest] = []
            if let ring, var files = headers.examine(positions.lazy.map { batch.items[$0] }, rootFD: rootFD, ring: ring, digests: &digests) {
                // (Moved out of `files` into the slots, not copied.)
                for (j, i) in positions.enumerated() { batch.slots[i] = files[j].take().map { read($0, cameras: &cameras) } }
            } else {
                ring = nil  // (failed: not tried again)
                digests = []
                for i in positions {
                    batch.slots[i] = headers.examine(batch.items[i].path, identity: batch.items[i].identity, rootFD: rootFD, digests: &digests).map { read($0, cameras: &cameras) }
                }
            }
            scanner.hashesWhileReading?.note(digests)
            condition.lock()
            batch.unread -= range.count
            done += range.count
            // Reported under the lock, so in order, and before the batch is released: once the
            // last batch is taken, no late count can follow (a progress line's last word is final).
            progress?(done, handedIn)
            let complete = batch.unread == 0
            condition.unlock()
            if complete {
                // Handed on (to the index) before anyone waiting is woken: whoever waits for the
                // last batch may then rely on every batch having been handed on.
                var results = batch.collect()
                onBatch?(&results)
                batch.release(keeping: results)
            }
            condition.lock()
        }
        condition.unlock()
    }
}
