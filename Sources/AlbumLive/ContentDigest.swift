import AlbumCore
import AlbumSystem
import CXXHash
import Glibc

/// The two content hashes of `duplicates/` (`ContentHashRecord`), of a file open for reading,
/// through one buffer the caller keeps (at most `bufferSize` bytes in memory however big the file).
enum ContentDigest {
    static let bufferSize = 1 << 20

    /// XXH3-64 of the first and the last `DuplicateGroups.partialSpan` bytes (the whole file when
    /// it is shorter than both), seeded with the size. A short read is EIO: the file changed.
    static func partial(_ fd: Int32, size: Int, buffer: inout [UInt8]) throws(Errno) -> UInt64 {
        let span = DuplicateGroups.partialSpan
        let head = min(size, span)
        let tailStart = max(head, size - span)
        let total = head + (size - tailStart)
        if buffer.count < total { buffer = [UInt8](repeating: 0, count: max(total, bufferSize)) }
        try read(fd, into: &buffer, at: 0, count: head, from: 0)
        try read(fd, into: &buffer, at: head, count: size - tailStart, from: Int64(tailStart))
        return buffer.withUnsafeBytes { XXH3_64bits_withSeed($0.baseAddress, total, UInt64(size)) }
    }

    /// XXH3-128 of every byte (its `hex` is what picks' `ContentHash` gives); a short read is EIO.
    static func fullHash(_ fd: Int32, size: Int, buffer: inout [UInt8]) throws(Errno) -> FullContentHash {
        guard let state = XXH3_createState() else { throw Errno(rawValue: ENOMEM) }
        defer { XXH3_freeState(state) }
        guard XXH3_128bits_reset(state) == XXH_OK else { throw Errno.ioError }
        if buffer.count < bufferSize { buffer = [UInt8](repeating: 0, count: bufferSize) }
        var done = 0
        while done < size {
            let count = min(bufferSize, size - done)
            try read(fd, into: &buffer, at: 0, count: count, from: Int64(done))
            let rc = buffer.withUnsafeBytes { XXH3_128bits_update(state, $0.baseAddress, count) }
            guard rc == XXH_OK else { throw Errno.ioError }
            done += count
        }
        let h = XXH3_128bits_digest(state)
        return FullContentHash(high: h.high64, low: h.low64)
    }

    private static func read(_ fd: Int32, into buffer: inout [UInt8], at start: Int, count: Int, from offset: Int64) throws(Errno) {
        guard count > 0 else { return }
        let (filled, error) = buffer.withUnsafeMutableBytes { PositionalRead.fill(fd, into: $0.baseAddress! + start, count: count, at: offset) }
        if let error { throw error }
        guard filled == count else { throw Errno.ioError }
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
