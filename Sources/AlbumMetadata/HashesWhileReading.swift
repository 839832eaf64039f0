import AlbumCore
import AlbumSystem
import CXXHash
import Synchronization

/// `duplicates/`'s content hashes of the files a scan reads whole anyway: a file no longer than
/// its first read (`MetadataReader.firstReadLength`) is hashed from the bytes the header read
/// already holds, so the duplicate search at the scan's end need not open it again. Only a file
/// whose size a file read before it had (`sizeSeenBefore`) is hashed: a file of a size of its
/// own is no copy, and most files of a library are of sizes of their own. (The first file of a
/// size is read by the search at the scan's end, when another file shares its size.)
///
/// Readers hand in what they made a chunk at a time (`note`); the one that searches takes it
/// (`take`), on its own thread: producers push, one owner consumes.
/// (`@unchecked Sendable`: `sizes` is written only through its atomics; `made` is a `Locked`.)
public final class HashesWhileReading: @unchecked Sendable {
    /// One file's hashes as made from its bytes, and which file that was.
    public struct Digest: Sendable {
        /// `pathKey` of the file's path under SOURCE.
        public var pathKey: UInt64
        /// `stampKey` of the file as read.
        public var stamp: UInt64
        /// The partial hash (`DuplicateFinder`: XXH3-64 of the file, seeded with its size, where it
        /// is no longer than twice `DuplicateGroups.partialSpan`).
        public var partial: UInt64
        /// XXH3-128 of every byte.
        public var fullHigh: UInt64
        public var fullLow: UInt64
    }

    /// A bit for each of `bitCount` buckets of sizes: set once a file of a size in it was read.
    private let sizes: UnsafeMutablePointer<Atomic<UInt64>>
    private static let wordCount = 1 << 14
    /// What readers made since the last `take` (for the search's owner to take).
    private let made = Locked<[Digest]>([])

    public init() {
        sizes = .allocate(capacity: Self.wordCount)
        for i in 0..<Self.wordCount { (sizes + i).initialize(to: Atomic(0)) }
    }

    deinit {
        sizes.deinitialize(count: Self.wordCount)
        sizes.deallocate()
    }

    /// Whether a file of `size` bytes was seen before this one (or one whose size shares its
    /// bucket: a few files then hashed for nothing), marking it seen.
    public func sizeSeenBefore(_ size: Int64) -> Bool {
        // Fibonacci hashing spreads sizes that differ by a few bytes over distant buckets.
        let bucket = Int((UInt64(bitPattern: size) &* 0x9E37_79B9_7F4A_7C15) >> (64 - 20))
        let bit: UInt64 = 1 << UInt64(bucket & 63)
        let before = sizes[bucket >> 6].bitwiseOr(bit, ordering: .relaxed).oldValue
        return before & bit != 0
    }

    /// Keeps `digests` for the next `take`.
    func note(_ digests: [Digest]) {
        guard !digests.isEmpty else { return }
        made.withLock { $0 += digests }
    }

    /// What readers made since the last call.
    public func take() -> [Digest] {
        made.withLock { made in
            defer { made = [] }
            return made
        }
    }

    /// The digest of a file read whole into `bytes` (`size` bytes), made as `file` says.
    static func digest(_ bytes: UnsafeRawBufferPointer, of file: IndexedFile) -> Digest {
        let full = XXH3_128bits(bytes.baseAddress, bytes.count)
        return Digest(pathKey: pathKey(file.relativePath), stamp: stampKey(FileStamp(identity: file.identity, changedWhenRead: file.changedWhenRead)),
                      partial: XXH3_64bits_withSeed(bytes.baseAddress, bytes.count, UInt64(bytes.count)),
                      fullHigh: full.high64, fullLow: full.low64)
    }

    /// The key a path's entries are kept under: XXH3-64 of its UTF-8 bytes.
    public static func pathKey(_ path: String) -> UInt64 {
        var path = path
        return path.withUTF8 { XXH3_64bits($0.baseAddress, $0.count) }
    }

    /// A file as scanned, as one number (XXH3-64 of its stamp's fields): what a kept entry
    /// compares a file with.
    public static func stampKey(_ stamp: FileStamp) -> UInt64 {
        var words = [stamp.identity.inode, UInt64(bitPattern: stamp.identity.size), UInt64(bitPattern: stamp.identity.mtime.nanosecondsSinceEpoch),
                     UInt64(bitPattern: stamp.changedWhenRead?.nanosecondsSinceEpoch ?? .min)]
        return words.withUnsafeMutableBytes { XXH3_64bits($0.baseAddress, $0.count) }
    }
}
