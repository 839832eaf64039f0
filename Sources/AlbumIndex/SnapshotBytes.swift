import AlbumCore

/// Why a views snapshot was not used: the one error of its reader.
public struct SnapshotRefusal: Error, CustomStringConvertible {
    public let description: String
    /// Whether the snapshot is merely another's (other options, an index written since), as a
    /// mount expects now and then, not damaged.
    public let isStale: Bool
    init(_ description: String, stale: Bool = false) {
        self.description = description
        isStale = stale
    }
}

/// Appends a snapshot's fields, little-endian, strings as their length and UTF-8 bytes; strings
/// that repeat from photo to photo (reasons, problems) once, in a table, then by number.
struct SnapshotWriter {
    private(set) var bytes: [UInt8] = []
    private var table: [String: UInt32] = [:]
    private(set) var tableStrings: [String] = []

    init(reserving capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func int<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        int(UInt32(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    mutating func time(_ t: Timestamp) {
        int(t.seconds)
        int(Int32(t.nanoseconds))
    }

    /// A repeating string's number in the table.
    mutating func shared(_ value: String) {
        if let k = table[value] { return int(k) }
        let k = UInt32(tableStrings.count)
        table[value] = k
        tableStrings.append(value)
        int(k)
    }

    mutating func shared(_ values: [String]) {
        int(UInt16(clamping: values.count))
        for v in values.prefix(Int(UInt16.max)) { shared(v) }
    }

    mutating func int32s(_ values: ContiguousArray<Int32>) {
        int(UInt32(values.count))
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }
}

/// Reads what `SnapshotWriter` wrote, every length checked against what is left: a damaged or
/// foreign file is refused, never read past.
struct SnapshotReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0
    var table: [String] = []

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var atEnd: Bool { offset == bytes.count }

    mutating func take(_ count: Int) throws(SnapshotRefusal) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= bytes.count - offset else { throw SnapshotRefusal("cut short") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func int<T: FixedWidthInteger>(_: T.Type = T.self) throws(SnapshotRefusal) -> T {
        let raw = try take(MemoryLayout<T>.size)
        return T(littleEndian: raw.loadUnaligned(as: T.self))
    }

    /// A count of items of at least `itemSize` bytes each (so a damaged count cannot make a reader
    /// reserve more than the file could hold).
    mutating func count(itemSize: Int) throws(SnapshotRefusal) -> Int {
        let n = Int(try int(UInt32.self))
        guard n <= (bytes.count - offset) / max(1, itemSize) else { throw SnapshotRefusal("a count past the end") }
        return n
    }

    mutating func string() throws(SnapshotRefusal) -> String {
        let n = try count(itemSize: 1)
        return String(decoding: try take(n), as: UTF8.self)
    }

    mutating func time() throws(SnapshotRefusal) -> Timestamp {
        let seconds = try int(Int64.self)
        let nanoseconds = try int(Int32.self)
        // (Within what `Timestamp.nanosecondsSinceEpoch` holds, as every time the index keeps is.)
        guard (-999_999_999...999_999_999).contains(nanoseconds), seconds.magnitude < UInt64(Int64.max / 1_000_000_000 - 1) else {
            throw SnapshotRefusal("a time out of range")
        }
        return Timestamp(seconds: seconds, nanoseconds: Int(nanoseconds))
    }

    mutating func shared() throws(SnapshotRefusal) -> String {
        let k = Int(try int(UInt32.self))
        guard k < table.count else { throw SnapshotRefusal("a string number out of range") }
        return table[k]
    }

    mutating func sharedList() throws(SnapshotRefusal) -> [String] {
        let n = Int(try int(UInt16.self))
        guard n > 0 else { return [] }
        var list: [String] = []
        list.reserveCapacity(n)
        for _ in 0..<n { list.append(try shared()) }
        return list
    }

    mutating func int32s() throws(SnapshotRefusal) -> ContiguousArray<Int32> {
        let n = try count(itemSize: 4)
        let raw = try take(n * 4)
        return ContiguousArray<Int32>(unsafeUninitializedCapacity: n) { buffer, initialized in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: raw)
            for k in 0..<n { buffer[k] = Int32(littleEndian: buffer[k]) }
            initialized = n
        }
    }
}
