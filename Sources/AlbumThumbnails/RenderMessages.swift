import AlbumCore
import AlbumSystem
import CSandbox
import Glibc

/// What the daemon asks a render worker: one render of the original whose descriptor comes with
/// it, or its perceptual hash. A fixed 32 bytes.
struct RenderRequest: Equatable {
    enum Kind: UInt8 { case thumbnail = 0, fitting = 1, hash = 2 }
    var kind: Kind
    var format: ImageFormat
    var orientation: Int
    /// The box (`thumbnail`), or the side twice (`fitting`, `hash`).
    var width: Int
    var height: Int
    var size: Int
    /// CPU seconds the render may take.
    var cpuSeconds: Int

    static let byteCount = 32
    static let formats: [ImageFormat] = [.jpeg, .png, .heif, .video, .webp, .gif, .tiff, .jxl, .raw]

    var bytes: [UInt8] {
        var w = ByteWriter()
        w.u8(kind.rawValue)
        w.u8(UInt8(Self.formats.firstIndex(of: format)!))
        w.u8(0)
        w.u8(0)
        w.i32(orientation)
        w.i32(width)
        w.i32(height)
        w.i64(size)
        w.i64(cpuSeconds)
        return w.bytes
    }

    init(kind: Kind, source: SourceImage, width: Int, height: Int, cpuSeconds: Int) {
        self.kind = kind
        format = source.format
        orientation = source.orientation
        self.width = width
        self.height = height
        size = source.size
        self.cpuSeconds = cpuSeconds
    }

    init?(_ bytes: [UInt8]) {
        var r = ByteReader(bytes)
        guard bytes.count == Self.byteCount, let kind = Kind(rawValue: r.u8()), case let f = Int(r.u8()), f < Self.formats.count else { return nil }
        r.skip(2)
        self.kind = kind
        format = Self.formats[f]
        orientation = r.i32()
        width = r.i32()
        height = r.i32()
        size = r.i64()
        cpuSeconds = r.i64()
        guard width > 0, height > 0, width <= ThumbnailBox.maxSide, height <= ThumbnailBox.maxSide, size >= 0, cpuSeconds > 0 else { return nil }
    }
}

/// What a worker sends back, as frames of a type byte and a 4-byte length: the answer, or, in
/// the middle of a render, a request to start a large decode (the daemon lets one run at a time
/// over all workers, `DecodeMemory`) and word that it ended.
enum WorkerMessage: Equatable {
    case thumbnail(bytes: [UInt8], plan: String)
    case image(width: Int, height: Int, pixels: [UInt8])
    case failure(message: String, isReadFailure: Bool, isMissing: Bool)
    /// A perceptual hash (`SimilarGroups.dHash`): 8 bytes.
    case hash(UInt64)
    case largeDecode
    case largeDecodeDone
    /// The daemon's answer to `largeDecode`: the decode may start.
    case go

    /// The largest frame a daemon accepts: a 2048x2048 thumbnail's JPEG, or a 256-pixel image.
    static let maxPayload = 32 << 20

    var frame: [UInt8] {
        var w = ByteWriter()
        switch self {
        case .thumbnail(let bytes, let plan):
            w.u8(1)
            w.string(plan)
            w.append(bytes)
        case .image(let width, let height, let pixels):
            w.u8(2)
            w.i32(width)
            w.i32(height)
            w.append(pixels)
        case .failure(let message, let isReadFailure, let isMissing):
            w.u8(3)
            w.u8((isReadFailure ? 1 : 0) | (isMissing ? 2 : 0))
            w.string(message)
        case .hash(let value):
            w.u8(7)
            w.i64(Int(Int64(bitPattern: value)))
        case .largeDecode: w.u8(4)
        case .largeDecodeDone: w.u8(5)
        case .go: w.u8(6)
        }
        var frame = ByteWriter()
        frame.u8(w.bytes[0])
        frame.i32(w.bytes.count - 1)
        frame.append(Array(w.bytes.dropFirst()))
        return frame.bytes
    }

    /// The message of a frame's type and payload; nil for one that makes no sense.
    init?(type: UInt8, payload: [UInt8]) {
        var r = ByteReader(payload)
        switch type {
        case 1:
            guard let plan = r.string() else { return nil }
            self = .thumbnail(bytes: r.rest(), plan: plan)
        case 2:
            let (width, height) = (r.i32(), r.i32())
            let pixels = r.rest()
            guard width > 0, height > 0, width <= 4096, height <= 4096, pixels.count == width * height * 3 else { return nil }
            self = .image(width: width, height: height, pixels: pixels)
        case 3:
            let flags = r.u8()
            guard let message = r.string() else { return nil }
            self = .failure(message: message, isReadFailure: flags & 1 != 0, isMissing: flags & 2 != 0)
        case 7:
            guard payload.count == 8 else { return nil }
            self = .hash(UInt64(bitPattern: Int64(r.i64())))
        case 4: self = .largeDecode
        case 5: self = .largeDecodeDone
        case 6: self = .go
        default: return nil
        }
    }

    /// Reads one frame from `socket`, waiting until `deadline` at most (nil: no deadline).
    static func read(from socket: Int32, until deadline: timespec?) -> Result<WorkerMessage, WorkerChannelError> {
        let head: [UInt8]
        switch readExactly(socket, 5, until: deadline) {
        case .success(let bytes): head = bytes
        case .failure(let e): return .failure(e)
        }
        var r = ByteReader(head)
        let type = r.u8()
        let length = r.i32()
        guard length >= 0, length <= maxPayload else { return .failure(.garbled) }
        switch readExactly(socket, length, until: deadline) {
        case .success(let payload): return WorkerMessage(type: type, payload: payload).map { .success($0) } ?? .failure(.garbled)
        case .failure(let e): return .failure(e)
        }
    }

    /// Sends the frame on `socket`.
    func send(on socket: Int32) -> Errno? {
        let frame = self.frame
        return frame.withUnsafeBytes { albumfs_send_with_fd(socket, $0.baseAddress, $0.count, -1) } == 0 ? nil : Errno.current
    }

    /// `count` bytes from `socket`, waiting until `deadline` at most.
    static func readExactly(_ socket: Int32, _ count: Int, until deadline: timespec?) -> Result<[UInt8], WorkerChannelError> {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            if let deadline, !WorkerChannel.waitReadable(socket, until: deadline) { return .failure(.timedOut) }
            var fd: Int32 = -1
            let n = bytes.withUnsafeMutableBytes { albumfs_recv_with_fd(socket, $0.baseAddress! + got, count - got, &fd) }
            if fd >= 0 { close(fd) }
            if n < 0 { return .failure(.broken(Errno.current)) }
            if n == 0 { return .failure(.ended) }
            got += n
        }
        return .success(bytes)
    }
}

/// Why a message did not come.
enum WorkerChannelError: Error, Equatable {
    /// The other end closed (a worker that died, or a daemon that went away).
    case ended
    case timedOut
    case garbled
    case broken(Errno)
    /// The request could not be sent: the worker had ended before it (while idle).
    case unsent(Errno)
}

enum WorkerChannel {
    /// Waits until `socket` has something to read (or its other end closed) or `deadline` passes.
    static func waitReadable(_ socket: Int32, until deadline: timespec) -> Bool {
        while true {
            let now = Condition.deadline(in: 0)
            let ms = max(0, (deadline.tv_sec - now.tv_sec) * 1000 + (deadline.tv_nsec - now.tv_nsec) / 1_000_000)
            var p = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, Int32(min(ms, Int(Int32.max))))
            if n > 0 { return true }
            if n == 0 { return false }
            if errno != EINTR { return true }  // (the read that follows says what is wrong)
        }
    }
}

/// Little-endian fields into bytes.
struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func i32(_ v: Int) { withUnsafeBytes(of: Int32(truncatingIfNeeded: v).littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func i64(_ v: Int) { withUnsafeBytes(of: Int64(v).littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func append(_ v: [UInt8]) { bytes.append(contentsOf: v) }
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        i32(utf8.count)
        append(utf8)
    }
}

/// Little-endian fields out of bytes; past the end, zeros.
struct ByteReader {
    private let bytes: [UInt8]
    private var at = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    mutating func u8() -> UInt8 {
        defer { at += 1 }
        return at < bytes.count ? bytes[at] : 0
    }
    mutating func skip(_ n: Int) { at += n }
    mutating func i32() -> Int { Int(Int32(bitPattern: UInt32(le(4)))) }
    mutating func i64() -> Int { Int(Int64(bitPattern: le(8))) }
    private mutating func le(_ n: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<n { v |= UInt64(u8()) << (8 * UInt64(i)) }
        return v
    }
    mutating func rest() -> [UInt8] {
        defer { at = bytes.count }
        return at < bytes.count ? Array(bytes[at...]) : []
    }
    /// A length-prefixed UTF-8 string, nil when the length runs past the end.
    mutating func string() -> String? {
        let n = i32()
        guard n >= 0, at + n <= bytes.count else { return nil }
        defer { at += n }
        return String(decoding: bytes[at..<(at + n)], as: UTF8.self)
    }
}
