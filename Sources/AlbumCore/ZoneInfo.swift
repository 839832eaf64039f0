import AlbumSystem
import Glibc

/// A zone of the system's time zone database (`/usr/share/zoneinfo/NAME`, a TZif file, RFC 8536):
/// its offsets from UTC at any instant, and at a wall-clock time written without an offset.
///
/// Read by this small parser rather than through libc: `localtime_r` reads the one zone of `TZ`,
/// and setting `TZ` per call is process-wide and not thread-safe, while a scan decides photos of
/// many places on several threads at once.
public struct ZoneInfo: UTCOffsets, Equatable {
    /// Instants at which the offset changes, ascending, and the offset from each on.
    let transitions: [Int64]
    let offsets: [Int32]
    /// The offset before the first transition (RFC 8536: local time type 0).
    let initial: Int32

    /// Offsets a zone can have: RFC 8536's bounds (-25 h + 1 s ... 26 h - 1 s).
    static let offsetRange: ClosedRange<Int32> = -89_999...93_599

    /// The zone a TZif file describes: its 64-bit data (version 2 and later), else its 32-bit data.
    /// Nil for bytes that are no TZif file or whose counts or values do not hold together.
    public init?(tzif bytes: [UInt8]) {
        guard let first = TZifBlock(bytes, at: 0, timeSize: 4) else { return nil }
        let block = bytes[4] >= UInt8(ascii: "2") ? TZifBlock(bytes, at: first.end, timeSize: 8) : first
        guard let block, let parsed = block.zone() else { return nil }
        (transitions, offsets, initial) = parsed
    }

    /// Seconds east of UTC at `instant`. After the file's last transition (2037 in the files
    /// Debian installs, `zic -b fat`) the last offset holds: the footer's rule is not read.
    public func secondsEastOfUTC(at instant: Int64) -> Int {
        var low = 0, high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if transitions[mid] <= instant { low = mid + 1 } else { high = mid }
        }
        return Int(low == 0 ? initial : offsets[low - 1])
    }

    /// The offset of a wall-clock time written in this zone: the one in force then. Where clocks
    /// went back and the time came twice, the first (daylight saving time's); where they went
    /// forward and it never came, the offset before the change (a clock not yet moved).
    public func offset(atLocal local: LocalDateTime) -> Int {
        let asUTC = local.secondsSinceEpochAsUTC
        let before = secondsEastOfUTC(at: asUTC - 86_400), after = secondsEastOfUTC(at: asUTC + 86_400)
        for candidate in [before, after] where secondsEastOfUTC(at: asUTC - Int64(candidate)) == candidate { return candidate }
        return before
    }
}

/// One data block of a TZif file: its header's counts, bounds-checked against the bytes.
private struct TZifBlock {
    let bytes: [UInt8]
    let timeSize: Int
    let timeCount: Int, typeCount: Int
    /// Where the transition times, their types and the types' records start; where the block ends.
    let times: Int, typeIndices: Int, types: Int, end: Int

    init?(_ bytes: [UInt8], at start: Int, timeSize: Int) {
        guard start >= 0, bytes.count >= start + 44, bytes[start..<(start + 4)].elementsEqual("TZif".utf8) else { return nil }
        func count(_ k: Int) -> Int {
            let at = start + 20 + 4 * k
            return bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
        }
        let (utCount, stdCount, leapCount) = (count(0), count(1), count(2))
        (timeCount, typeCount) = (count(3), count(4))
        let charCount = count(5)
        // (Counts of at most 2^32 each: the sum cannot overflow an Int.)
        times = start + 44
        typeIndices = times + timeCount * timeSize
        types = typeIndices + timeCount
        end = types + typeCount * 6 + charCount + leapCount * (timeSize + 4) + stdCount + utCount
        guard typeCount >= 1, end <= bytes.count else { return nil }
        self.bytes = bytes
        self.timeSize = timeSize
    }

    func signed(_ at: Int, _ size: Int) -> Int64 {
        let raw = bytes[at..<(at + size)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return size == 8 ? Int64(bitPattern: raw) : Int64(Int32(bitPattern: UInt32(raw)))
    }

    /// The transitions, the offset after each, and the offset before the first; nil when a
    /// transition names no type, an offset is out of range, or the times are not ascending.
    func zone() -> (transitions: [Int64], offsets: [Int32], initial: Int32)? {
        var offsetOfType: [Int32] = []
        for t in 0..<typeCount {
            let offset = Int32(truncatingIfNeeded: signed(types + 6 * t, 4))
            guard ZoneInfo.offsetRange.contains(offset) else { return nil }
            offsetOfType.append(offset)
        }
        var transitions: [Int64] = [], offsets: [Int32] = []
        for i in 0..<timeCount {
            let time = signed(times + i * timeSize, timeSize), type = Int(bytes[typeIndices + i])
            guard type < typeCount, transitions.last.map({ $0 < time }) ?? true else { return nil }
            transitions.append(time)
            offsets.append(offsetOfType[type])
        }
        return (transitions, offsets, offsetOfType[0])
    }
}

/// The system's zones by name, each file read once (a place's zone is asked for every photo taken
/// there). Names come from the gazetteer; only a tz database name (`Area/Location`, letters,
/// digits, `_`, `-`, `+`) is looked up, never a path.
public final class ZoneInfoCache: Sendable {
    /// The zones of `/usr/share/zoneinfo`, for every scan of the process.
    public static let system = ZoneInfoCache(folder: "/usr/share/zoneinfo")

    private let folder: String
    /// Zones read (nil: no such zone, or not a TZif file), by name.
    private let zones = Locked<[String: ZoneInfo?]>([:])
    /// The largest zone file read: the biggest of tzdata's is a few kilobytes.
    static let maxFileSize = 256 << 10

    public init(folder: String) { self.folder = folder }

    public func zone(named name: String) -> ZoneInfo? {
        if let known = zones.withLock({ $0[name] }) { return known }
        let zone = Self.isZoneName(name) ? Self.read(folder + "/" + name).flatMap(ZoneInfo.init(tzif:)) : nil
        zones.withLock { $0[name] = zone }
        return zone
    }

    static func isZoneName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && !name.hasPrefix("/") && !name.split(separator: "/").contains(where: { $0 == ".." || $0 == "." })
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-+/".unicodeScalars.contains($0)) }
    }

    /// The bytes of a zone file (links followed: tzdata links one name to another's file).
    static func read(_ path: String) -> [UInt8]? {
        let fd = Errno.retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size > 0, st.st_size <= maxFileSize else { return nil }
        return try? PositionalRead.bytes(fd, count: Int(st.st_size), at: 0).get()
    }
}
