import AlbumCore
import AlbumSystem
import CFFmpeg
import CRaw
import CSandbox
import Glibc

/// A render worker's side (`albumfs render-worker`): the decoders loaded, the sandbox entered,
/// then one render at a time for the daemon on the socket it was started with, until the daemon
/// closes it. Whatever a hostile original makes a decoder do happens here: a crash, a limit hit,
/// a CPU overrun ends this process, and the daemon answers EIO for that thumbnail alone.
public enum RenderWorkerProcess {
    /// The descriptor the daemon hands the worker's end of the socket on.
    public static let socketFD: Int32 = 3

    /// Serves renders until the daemon goes; the exit status.
    /// - Parameters:
    ///   - memory: bytes one render may take (`-o thumbnail_memory`).
    ///   - maxPixels: `-o thumbnail_max_pixels`.
    ///   - daemon: the daemon's pid: the worker ends with it (`PR_SET_PDEATHSIG`).
    public static func serve(memory: Int, maxPixels: Int, daemon: pid_t) -> Int32 {
        if let failure = prepare(memory: memory) {
            _ = WorkerMessage.failure(message: "the render worker cannot start: \(failure)", isReadFailure: false, isMissing: false)
                .send(on: socketFD)
            return 1
        }
        // (After the sandbox: a change of user clears the parent-death signal.)
        guard albumfs_die_with_parent(daemon) == 0 else { return 1 }
        let renderer = ThumbnailRenderer(maxPixels: maxPixels,
                                         memory: DecodeMemory(limit: memory, decodesAtOnce: 1, large: DaemonsTurn(socket: socketFD)))
        while let (request, fd) = receive() {
            let answer = render(request, fd: fd, renderer)
            close(fd)
            if answer.send(on: socketFD) != nil { return 0 }
        }
        return 0
    }

    /// Loads every decoder (no library can be loaded once inside: that opens files), lets go of
    /// every descriptor but the socket and stderr, and enters the sandbox.
    static func prepare(memory: Int) -> String? {
        _ = HEIFLibrary.setupFailure
        _ = HEIFLibrary.hevcDecoder
        _ = JXLLibrary.setupFailure
        // (A failure is said by each RAW's render: `RawImage`.)
        _ = albumfs_raw_load()
        // No one allocation of FFmpeg's (a packet, a frame, a sample index) over what a render may take.
        if FFmpegLibrary.setupFailure == nil { av_max_alloc(memory) }
        guard albumfs_close_from(socketFD + 1) == 0 else { return "close_range: \(Errno.current)" }
        // (A write past RLIMIT_FSIZE fails, rather than ending the worker: a decoder's warning on
        // a stderr that is a file.)
        signal(SIGXFSZ, SIG_IGN)
        return Sandbox.enter(memory: memory)
    }

    /// The next request and its original's descriptor; nil when the daemon closed the socket (or
    /// sent what makes no sense).
    static func receive() -> (RenderRequest, Int32)? {
        var bytes = [UInt8](repeating: 0, count: RenderRequest.byteCount)
        var got = 0
        var fd: Int32 = -1
        while got < bytes.count {
            var passed: Int32 = -1
            let n = bytes.withUnsafeMutableBytes { albumfs_recv_with_fd(socketFD, $0.baseAddress! + got, $0.count - got, &passed) }
            if passed >= 0 { if fd < 0 { fd = passed } else { close(passed) } }
            guard n > 0 else { break }
            got += n
        }
        guard got == bytes.count, fd >= 0, let request = RenderRequest(bytes) else {
            if fd >= 0 { close(fd) }
            return nil
        }
        return (request, fd)
    }

    static func render(_ request: RenderRequest, fd: Int32, _ renderer: ThumbnailRenderer) -> WorkerMessage {
        Sandbox.limitCPU(seconds: request.cpuSeconds)
        let source = SourceImage(fd: fd, size: request.size, format: request.format, orientation: request.orientation)
        do throws(ThumbnailError) {
            switch request.kind {
            case .thumbnail:
                guard let box = ThumbnailBox(width: request.width, height: request.height) else { throw ThumbnailError("no such box") }
                let made = try renderer.thumbnail(source, box: box)
                return .thumbnail(bytes: made.bytes, plan: made.plan)
            case .fitting:
                let image = try renderer.fitting(source, side: request.width)
                return .image(width: image.width, height: image.height, pixels: image.pixels)
            case .hash:
                return .hash(try renderer.perceptualHash(source))
            }
        } catch {
            return .failure(message: error.description, isReadFailure: error.isReadFailure, isMissing: error.isMissing)
        }
    }

    /// Checks the sandbox as a worker enters it: lines saying what was refused, and whether all was.
    public static func checkSandbox(memory: Int) -> (lines: [String], refused: Bool) {
        if let failure = prepare(memory: memory) { return (["cannot enter the sandbox: \(failure)"], false) }
        var lines: [String] = ["uid \(getuid()) euid \(geteuid()) gid \(getgid()), \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores seen"]
        var refused = true
        func tried(_ what: String, _ result: Int32) {
            let ok = result < 0
            refused = refused && ok
            lines.append("\(what): " + (ok ? "refused (\(Errno.current))" : "ALLOWED"))
            if result >= 0 { close(result) }
        }
        tried("open /etc/passwd", open("/etc/passwd", O_RDONLY))
        tried("openat /etc/hostname", openat(AT_FDCWD, "/etc/hostname", O_RDONLY))
        tried("socket AF_INET", socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
        tried("socket AF_UNIX", socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0))
        tried("kill the parent", kill(getppid(), 0))
        // More than the data segment may grow by: refused at once, nothing taken.
        let over = memory + Sandbox.threadStacks + (64 << 20)
        let block = malloc(over)
        lines.append("allocate \(over >> 20) MB: " + (block == nil ? "refused" : "ALLOWED"))
        refused = refused && block == nil
        free(block)
        let child = fork()
        if child == 0 { _exit(0) }
        if child > 0 { waitpid(child, nil, 0) }
        tried("fork", child > 0 ? open("/dev/null", O_RDONLY) : -1)
        return (lines, refused)
    }
}

/// A worker's large decode waits for the daemon's turn, over every worker.
final class DaemonsTurn: LargeDecodeGate {
    let socket: Int32
    init(socket: Int32) { self.socket = socket }

    func enter() {
        guard WorkerMessage.largeDecode.send(on: socket) == nil else { exit(0) }
        // (Only `go` comes now; anything else, or the daemon gone, ends the worker.)
        guard case .success(.go) = WorkerMessage.read(from: socket, until: nil) else { exit(0) }
    }

    func leave() { _ = WorkerMessage.largeDecodeDone.send(on: socket) }
}
