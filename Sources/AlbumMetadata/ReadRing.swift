import AlbumCore
import AlbumSystem
import CURing
import Glibc

/// Reads the first block of many open files with one system call (io_uring), into a buffer it
/// keeps for the next chunk. One per reader thread (not Sendable).
///
/// Why: a cold scan of small files is bound by the device's request rate, one 4 KiB read per
/// file. Submitted together, reads of adjacent blocks (files written one after another, read in
/// inode order) are merged by the block layer into a few large requests: 100,000 cold files were
/// ~100,000 requests with a thread per read in flight, ~4,000 in chunks through a ring.
final class ReadRing {
    private let ring: OpaquePointer
    /// Files per call, and slots in the buffer.
    let capacity: Int
    /// Bytes per slot: the first block MetadataReader wants at most.
    let slotSize: Int
    private let buffer: UnsafeMutableRawBufferPointer

    /// Whether this kernel lets the process use io_uring (asked once).
    static let isAvailable: Bool = ReadRing(capacity: 1) != nil

    /// Nil when the kernel offers no io_uring (or forbids it): read file by file then.
    init?(capacity: Int, slotSize: Int = MetadataReader.firstBlock) {
        guard capacity > 0, let ring = albumfs_ring_create(UInt32(capacity)) else { return nil }
        self.ring = ring
        self.capacity = capacity
        self.slotSize = slotSize
        // Uninitialised, and only the bytes read are ever touched: small files cost a page each.
        buffer = .allocate(byteCount: capacity * slotSize, alignment: 4096)
    }

    /// Set when a failed ring may still be reading into `buffer`: it is then never freed (a
    /// leak, where freeing could let the kernel write into memory reused for something else).
    private var buffersMayBeInUse = false

    deinit {
        albumfs_ring_destroy(ring)
        if !buffersMayBeInUse { buffer.deallocate() }
    }

    /// Reads up to `lengths[i]` (at most `slotSize`) bytes from the start of `fds[i]`, for at most
    /// `capacity` files, and hands each result to `body(i, bytes)`, in order. The bytes are valid
    /// only during that call; fewer than asked means end of file.
    /// - Returns: false when the ring failed as a whole (nothing was handed to `body`): read those
    ///   files another way, and drop the ring.
    func readStarts(fds: [Int32], lengths: [Int], _ body: (Int, Result<UnsafeRawBufferPointer, Errno>) -> Void) -> Bool {
        precondition(fds.count == lengths.count && fds.count <= capacity)
        let count = fds.count
        guard count > 0 else { return true }
        let wanted = lengths.map { UInt32(min(max($0, 0), slotSize)) }
        let buffers = (0..<count).map { Optional(buffer.baseAddress! + $0 * slotSize) }
        var results = [Int32](repeating: 0, count: count)
        let rc = albumfs_ring_read_all(ring, UInt32(count), fds, buffers, wanted, &results)
        if rc == ALBUMFS_RING_READS_IN_FLIGHT { buffersMayBeInUse = true }
        guard rc == 0 else { return false }
        for i in 0..<count {
            let slot = buffer.baseAddress! + i * slotSize
            var got = max(0, Int(results[i]))
            var failure: Errno?
            if results[i] < 0 {
                // Read again with pread, which is what a verdict of "unreadable" must rest on: a
                // filesystem may refuse io_uring reads that it serves otherwise.
                (got, failure) = PositionalRead.fill(fds[i], into: slot, count: Int(wanted[i]), at: 0)
            } else if got > 0 && got < Int(wanted[i]) {
                // The kernel completes buffered reads of regular files in full; should one come
                // back short before the end of the file, the rest is read here, not taken as EOF.
                let (more, error) = PositionalRead.fill(fds[i], into: slot + got, count: Int(wanted[i]) - got, at: Int64(got))
                got += more
                failure = error
            }
            body(i, failure.map { .failure($0) } ?? .success(UnsafeRawBufferPointer(start: slot, count: got)))
        }
        return true
    }
}
