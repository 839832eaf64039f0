import AlbumCore
import AlbumSystem
import Glibc

/// An original's bytes as a render reads them: from memory, or from an open file a range at a
/// time, so a JPEG is never held whole (its decoder reads the file itself: `JPEGStream`).
final class Original {
    let count: Int
    /// The open file, or nil when the bytes are in memory.
    let fd: Int32?
    private let memory: [UInt8]
    /// The file's first bytes, read once: the header segments a render looks at are there.
    private var head: [UInt8]?
    static let headSize = 64 << 10

    init(bytes: [UInt8]) {
        memory = bytes
        count = bytes.count
        fd = nil
    }

    /// `fd` stays the caller's: open for as long as this is used, closed by the caller.
    init(fd: Int32, size: Int) {
        self.fd = fd
        count = size
        memory = []
    }

    /// Up to `length` bytes at `offset`: fewer at the end of the file (or of a file that shrank).
    func read(_ offset: Int, _ length: Int) throws(ThumbnailError) -> [UInt8] {
        let end = min(count, offset + max(0, length))
        guard offset >= 0, offset < end else { return [] }
        guard let fd else { return Array(memory[offset..<end]) }
        if end <= Self.headSize {
            if head == nil { head = try Self.pread(fd, 0, min(count, Self.headSize)) }
            return Array(head![offset..<min(end, head!.count)])
        }
        return try Self.pread(fd, offset, end - offset)
    }

    func read(_ range: Range<Int>) throws(ThumbnailError) -> [UInt8] { try read(range.lowerBound, range.count) }

    /// Every byte (for the PNG decoders, which work in memory).
    func all() throws(ThumbnailError) -> [UInt8] { fd == nil ? memory : try read(0, count) }

    /// A decoder of the JPEG in `range` (the whole original by default), its header read.
    func jpeg(_ range: Range<Int>? = nil) throws(ThumbnailError) -> JPEGStream {
        let range = range ?? 0..<count
        if let fd { return try JPEGStream(file: fd, range: range) }
        return try JPEGStream(bytes: range == 0..<count ? memory : Array(memory[range]))
    }

    /// `length` bytes at `offset`, or fewer at the end of the file; read failures are the
    /// original's (`isReadFailure`), not its content's.
    static func pread(_ fd: Int32, _ offset: Int, _ length: Int) throws(ThumbnailError) -> [UInt8] {
        switch PositionalRead.bytes(fd, count: length, at: Int64(offset)) {
        case .success(let bytes): return bytes
        case .failure(let error): throw .original("read", error)
        }
    }
}
