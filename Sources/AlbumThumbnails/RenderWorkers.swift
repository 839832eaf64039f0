import AlbumCore
import AlbumSystem
import Glibc
import Synchronization

/// Renders in worker processes of albumfs's own (`RenderWorkerProcess`), a few at a time: the
/// C decoders never see an original's bytes in the process that serves the mount. Each render
/// takes an idle worker (or starts one, up to `size`), hands it the original's descriptor and
/// waits for its answer; a worker that crashes, overruns its time or garbles its answer is ended
/// and costs that one thumbnail (EIO, the reason naming the signal), and the next render starts
/// another.
/// (`@unchecked Sendable`: its variables are read and written only under `condition`; each
/// `RenderWorker` is used by the one render that took it from `idle`.)
public final class RenderWorkers: ThumbnailRendering, @unchecked Sendable {
    /// What each render may take.
    public struct Limits: Sendable {
        /// Bytes a decode may take (`-o thumbnail_memory`): the estimate's limit, and the worker's
        /// data segment beyond what it holds when it starts.
        public var memory: Int
        public var maxPixels: Int
        /// CPU seconds a photo's render may take (`-o thumbnail_timeout`); a video's, `videoFactor` times it.
        public var seconds: Int
        public static let videoFactor = 3

        public init(memory: Int, maxPixels: Int, seconds: Int) {
            self.memory = memory
            self.maxPixels = maxPixels
            self.seconds = seconds
        }

        /// The CPU seconds a render of `format` may take.
        func cpuSeconds(_ format: ImageFormat) -> Int { format == .video ? seconds * Self.videoFactor : seconds }
    }

    /// The albumfs binary the workers run (`/proc/self/exe`: the daemon's own, even if replaced on disk).
    let executable: String
    public let limits: Limits
    /// Workers at most (one per core by default: renders are CPU-bound).
    public let size: Int
    private let log: @Sendable (String) -> Void
    /// Large decodes take turns over every worker, as they do in one process (`DecodeMemory`).
    private let turn = OneAtATime()
    // Protects the variables below; held only to take or give back a worker or ask for one,
    // never during a render or a start.
    private let condition = Condition()
    private var idle: [RenderWorker] = []
    /// Workers running or being started.
    private var started = 0
    /// Workers asked of the spawner and not started yet.
    private var wanted = 0
    /// The spawner's start under way (0 or 1).
    private var starting = 0
    /// Starts that failed, and why the last one did (a render waiting for a worker gives up on it).
    private var failedStarts = 0
    private var lastStartFailure = ThumbnailError("no render worker started")
    /// Renders asked for and not answered yet (`waitUntilIdle`).
    private var inFlight = 0
    private let ended = Atomic<Int>(0)
    /// The workers' argv[0]: `albumfs`, or `albumfs-similar` for the background pool.
    private let name: String

    /// - Parameter background: the workers run at background priority (`BackgroundPriority`:
    ///   nice 10, the idle I/O class), as the work they do for the hash pass of similar photos.
    public init(executable: String = "/proc/self/exe", limits: Limits, size: Int, background: Bool = false,
                log: @escaping @Sendable (String) -> Void) {
        self.executable = executable
        self.limits = limits
        self.size = max(1, size)
        self.log = log
        name = background ? "albumfs-similar" : "albumfs"
        // (Started with the pool, not with the first worker: the daemon's threads are then all
        // there once it is mounted. A process inherits the priorities of the thread that starts
        // it, so lowering the spawner's lowers every worker's.)
        Threads.detach { [self] in
            if background, let failure = BackgroundPriority.lowerThisThread() {
                log("albumfs: warning: background render workers keep the daemon's priority (\(failure))")
            }
            spawn()
        }
    }

    /// Workers running now, started and ready (status: `render_workers`): not those asked for
    /// or still starting, so that a status saying all run means every one answers.
    public var running: Int {
        condition.lock()
        defer { condition.unlock() }
        return started - wanted - starting
    }

    /// Workers that ended in a render (crashed, over a limit, killed at their deadline) and were
    /// replaced (status: `render_worker_restarts`).
    public var restarts: Int { ended.load(ordering: .relaxed) }

    public func thumbnail(_ source: SourceImage, box: ThumbnailBox) throws(ThumbnailError) -> RenderedThumbnail {
        let request = RenderRequest(kind: .thumbnail, source: source, width: box.width, height: box.height,
                                    cpuSeconds: limits.cpuSeconds(source.format))
        guard case .thumbnail(let bytes, let plan) = try run(request, fd: source.fd) else { throw ThumbnailError("the render worker answered nonsense") }
        // (What a worker says is checked like any input: the size every reader was told.)
        guard bytes.count == FixedSizeJPEG.size(for: box.width, box.height) else {
            throw ThumbnailError("the render worker answered \(bytes.count) bytes for a \(box) thumbnail")
        }
        return RenderedThumbnail(bytes: bytes, plan: plan)
    }

    public func fitting(_ source: SourceImage, side: Int) throws(ThumbnailError) -> RGBImage {
        let request = RenderRequest(kind: .fitting, source: source, width: side, height: side, cpuSeconds: limits.cpuSeconds(source.format))
        guard case .image(let width, let height, let pixels) = try run(request, fd: source.fd), width <= side, height <= side else {
            throw ThumbnailError("the render worker answered nonsense")
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    public func perceptualHash(_ source: SourceImage) throws(ThumbnailError) -> UInt64 {
        let side = PerceptualHashing.side
        let request = RenderRequest(kind: .hash, source: source, width: side, height: side, cpuSeconds: limits.cpuSeconds(source.format))
        guard case .hash(let value) = try run(request, fd: source.fd) else { throw ThumbnailError("the render worker answered nonsense") }
        return value
    }

    /// Waits until no render is under way or asked for, or `seconds` pass: false when they did.
    /// (The hash pass of similar photos yields to thumbnails this way.)
    public func waitUntilIdle(seconds: Double) -> Bool {
        let deadline = Condition.deadline(in: seconds)
        condition.lock()
        defer { condition.unlock() }
        while inFlight > 0 { if !condition.wait(until: deadline) { return inFlight == 0 } }
        return true
    }

    /// One render on a worker: its answer, or why there is none. A worker found ended before the
    /// request reached it (killed while idle) costs nothing: the render goes to another.
    private func run(_ request: RenderRequest, fd: Int32) throws(ThumbnailError) -> WorkerMessage {
        condition.lock()
        inFlight += 1
        condition.unlock()
        defer {
            condition.lock()
            inFlight -= 1
            condition.broadcast()
            condition.unlock()
        }
        for _ in 0...size {
            let worker = try take()
            let answer = worker.render(request, fd: fd, seconds: Double(Self.wallSeconds(request.cpuSeconds)), turn: turn)
            guard case .failure(.unsent) = answer else { return try settle(answer, of: worker, request) }
            _ = worker.end()
            giveBack(worker)
        }
        throw ThumbnailError("no render worker could be reached")
    }

    /// A worker's answer as the render's result; a worker that gave none is ended.
    private func settle(_ answer: Result<WorkerMessage, WorkerChannelError>, of worker: RenderWorker,
                        _ request: RenderRequest) throws(ThumbnailError) -> WorkerMessage {
        switch answer {
        case .success(.failure(let message, let isReadFailure, let isMissing)):
            giveBack(worker)
            throw ThumbnailError(message, isReadFailure: isReadFailure, isMissing: isMissing)
        case .success(let message):
            giveBack(worker)
            return message
        case .failure(let error):
            let how = worker.end()
            giveBack(worker)
            ended.add(1, ordering: .relaxed)
            throw ThumbnailError(Self.words(error, how: how, seconds: Self.wallSeconds(request.cpuSeconds)))
        }
    }

    /// The wall clock's bound on a render of `cpuSeconds`: twice it and a second (a decode on one
    /// thread meets its CPU limit first; one waiting on a slow disk uses no CPU at all).
    static func wallSeconds(_ cpuSeconds: Int) -> Int { 2 * cpuSeconds + 1 }

    /// Why a worker gave no answer, for `.albumfs/errors`.
    static func words(_ error: WorkerChannelError, how: String?, seconds: Int) -> String {
        switch error {
        case .timedOut: return "the decoder took over \(seconds) s (-o thumbnail_timeout) and was stopped"
        case .garbled: return "the render worker answered nonsense and was stopped"
        case .ended, .broken, .unsent:
            return "the render worker ended during the decode (\(how ?? "it exited"))"
        }
    }

    /// Starts the workers not running yet, in the background, each then idle: a folder of
    /// thumbnails opened is about to be read, and a worker's start (its decoders loaded) is tens
    /// of milliseconds that the first renders would otherwise wait for.
    public func warmUp() {
        condition.lock()
        // (Idle ones that ended meanwhile, killed by someone, are let go and started anew.)
        let gone = idle.filter(\.hasEnded)
        if !gone.isEmpty {
            idle.removeAll { worker in gone.contains { $0 === worker } }
            started -= gone.count
        }
        askForWorkers(size - started)
        condition.unlock()
        for worker in gone { _ = worker.end() }
    }

    /// Asks the spawner for `count` more workers (the lock held).
    private func askForWorkers(_ count: Int) {
        guard count > 0 else { return }
        started += count
        wanted += count
        condition.broadcast()
    }

    /// The spawner: one thread for the daemon's life starts every worker, so that each worker's
    /// parent thread (what `PR_SET_PDEATHSIG` watches) lives as long as the daemon: a daemon that
    /// dies, even by SIGKILL, takes its workers with it, stopped ones too.
    private func spawn() {
        condition.lock()
        while true {
            while wanted == 0 { condition.wait() }
            wanted -= 1
            starting = 1
            condition.unlock()
            let started = Result { () throws(ThumbnailError) in
                try RenderWorker.start(executable: executable, name: name, memory: limits.memory, maxPixels: limits.maxPixels)
            }
            condition.lock()
            starting = 0
            switch started {
            case .success(let worker): idle.append(worker)
            case .failure(let error):
                self.started -= 1
                failedStarts += 1
                lastStartFailure = error
            }
            condition.broadcast()
        }
    }

    /// An idle worker, or one started for it while fewer than `size` run; else waits for one
    /// to be given back. Throws when the start it waited for failed.
    private func take() throws(ThumbnailError) -> RenderWorker {
        condition.lock()
        defer { condition.unlock() }
        let failuresBefore = failedStarts
        while true {
            if let worker = idle.popLast() { return worker }
            if failedStarts != failuresBefore && started < size {
                log("albumfs: warning: \(lastStartFailure)")
                throw lastStartFailure
            }
            if started < size { askForWorkers(1) }
            condition.wait()
        }
    }

    private func giveBack(_ worker: RenderWorker) {
        condition.lock()
        if worker.usable { idle.append(worker) } else { started -= 1 }
        condition.broadcast()
        condition.unlock()
    }

    /// Ends every idle worker (the mount is over): a worker someone stopped would not see its
    /// socket close, and would outlive the daemon. Renders still running end with the daemon.
    public func shutdown() {
        condition.lock()
        let all = idle
        idle = []
        started -= all.count
        condition.unlock()
        for worker in all { _ = worker.end() }
    }

    deinit { shutdown() }
}
