import AlbumSystem
import FoundationEssentials
import Glibc
import Synchronization

/// The memory a render may take to decode its original, and the large decodes done one at a time.
///
/// Why: a baseline JPEG streams (a 250 MP one decodes at 1/8 in a few MB), but a progressive one
/// makes libjpeg hold every DCT coefficient of the image until its last scan, whatever the scale:
/// 2 bytes per sample, so a 250 MP colour one takes 750 MB (4:2:0) to 1.5 GB (4:4:4). Renders
/// run in parallel up to the core
/// count, and a file manager opening a folder of such files asks for all of them: on a small
/// machine, enough to have the daemon killed for its memory. Each render is estimated from the
/// headers before anything is allocated (`ThumbnailRenderer`): over `limit` it is refused (EIO,
/// named in `.albumfs/errors`); over `oneAtATime` it waits for the other large ones, holding none
/// of the decode slots (one per core) meanwhile.
public final class DecodeMemory: Sendable {
    /// Bytes one render may use (`-o thumbnail_memory`).
    public let limit: Int
    /// Decodes estimated above this run one at a time (below, up to the core count at once).
    let oneAtATime: Int
    /// Decodes at once: one per core.
    private let slots: Places
    /// Where a large decode waits for the others to end: in this process, or, in a render worker,
    /// the daemon's, over every worker (`RenderWorkers`).
    private let large: LargeDecodeGate
    private let largeNow = Atomic<Int>(0)
    private let largePeak = Atomic<Int>(0)

    public init(limit: Int = DecodeMemory.defaultLimit, oneAtATime: Int = 64 << 20,
                decodesAtOnce: Int = ProcessInfo.processInfo.activeProcessorCount, large: LargeDecodeGate = OneAtATime()) {
        self.limit = limit
        self.oneAtATime = oneAtATime
        slots = Places(max(1, decodesAtOnce))
        self.large = large
    }

    /// A quarter of the memory the process may use, between 256 MiB and 1 GiB: a 250 MP
    /// progressive JPEG (4:2:0) fits with 4 GB or more.
    public static var defaultLimit: Int { defaultLimit(usable: usableMemory) }

    /// The default limit for a process that may use `usable` bytes.
    static func defaultLimit(usable: Int) -> Int { min(1 << 30, max(256 << 20, usable / 4)) }

    /// The machine's memory, or the limit of the process's cgroup when lower (a container, a
    /// systemd unit with `MemoryMax=`): version 2's `memory.max`, else version 1's limit.
    static var usableMemory: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), size = sysconf(Int32(_SC_PAGESIZE))
        let physical = pages > 0 && size > 0 ? pages.multipliedReportingOverflow(by: size).partialValue : 4 << 30
        let limits = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"].compactMap(number(in:))
        return ([physical] + limits.filter { $0 > 0 }).min()!
    }

    /// The decimal number a small kernel file holds ("max" and the like: nil).
    static func number(in path: String) -> Int? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return Int(String(decoding: buffer[..<n].prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
    }

    /// The most large renders that ran at once (tests: never more than one).
    var peakLargeRenders: Int { largePeak.load(ordering: .relaxed) }

    /// Runs `body` (a decode and its resample: the work and the memory of a render) with `bytes`
    /// reserved for it, in one of the render slots (one per core); a large one first waits for
    /// any other large one, holding no slot meanwhile, so a folder of huge progressive JPEGs never
    /// holds up every other thumbnail. Throws (without running it) when over the limit. `what`
    /// names the image.
    func reserving<T>(_ bytes: Int, for what: @autoclosure () -> String, _ body: () throws(ThumbnailError) -> T) throws(ThumbnailError) -> T {
        guard bytes <= limit else {
            throw ThumbnailError("\(what()) needs \(Self.megabytes(bytes)) MB to decode, over the \(Self.megabytes(limit)) MB "
                                 + "a thumbnail may take (-o thumbnail_memory)")
        }
        let isLarge = bytes > oneAtATime
        if isLarge {
            large.enter()
            largePeak.max(largeNow.add(1, ordering: .relaxed).newValue, ordering: .relaxed)
        }
        defer {
            if isLarge {
                largeNow.subtract(1, ordering: .relaxed)
                large.leave()
            }
        }
        slots.take()
        defer { slots.giveBack() }
        return try body()
    }

    static func megabytes(_ bytes: Int) -> Int { (bytes + (1 << 20) - 1) >> 20 }
}

/// Where large decodes take turns (`DecodeMemory`).
public protocol LargeDecodeGate: Sendable {
    /// Returns once no other large decode runs.
    func enter()
    func leave()
}

/// Large decodes one at a time in this process.
public final class OneAtATime: LargeDecodeGate {
    private let turn = Places(1)
    public init() {}
    public func enter() { turn.take() }
    public func leave() { turn.giveBack() }
}

/// A number of places taken and given back, a thread waiting while none is free: a `Condition`
/// and its predicate (a place is free).
/// (`@unchecked Sendable`: `free` is read and written only under `condition`'s lock.)
final class Places: @unchecked Sendable {
    private let condition = Condition()
    private var free: Int

    init(_ count: Int) { free = count }

    /// Takes a place, waiting for one to be given back when none is free.
    func take() {
        condition.lock()
        defer { condition.unlock() }
        while free == 0 { condition.wait() }
        free -= 1
    }

    func giveBack() {
        condition.lock()
        defer { condition.unlock() }
        free += 1
        condition.signal()
    }
}
