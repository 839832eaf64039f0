import AlbumCore
import AlbumSystem
import AlbumVFS
import CFuse3
import FoundationEssentials
import Glibc

/// Why a mount could not be made or served.
public struct MountError: Error, CustomStringConvertible {
    public let description: String
}

/// One mounted session: creates it, mounts, serves until unmounted or signalled, cleans up.
///
/// The corresponding libfuse calls are `fuse_session_new`, `fuse_set_signal_handlers`,
/// `fuse_session_mount`, `fuse_session_loop_mt`, `fuse_session_unmount`, `fuse_session_destroy`.
/// (`@unchecked Sendable`: its stored values do not change after `init` but `serving`, a
/// `Locked`; libfuse's session is made for `fuse_lowlevel_notify_*` from any thread while the
/// loop runs.)
public final class FuseSession: @unchecked Sendable {
    /// Whether the kernel connection is open for notifications: from the mount until the loop
    /// ends. Held across each batch of notifications, so the unmount (which closes the
    /// connection) waits for one in progress and none is written to a closed descriptor.
    private let serving = Locked(false)
    private let context: FuseContext
    private let mountpoint: String
    private let session: OpaquePointer
    /// argv for libfuse's option parser; owned here because the session may keep pointers into it.
    private let argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let argc: Int
    private let threads: UInt32

    /// - Parameters:
    ///   - options: kernel and libfuse `-o` options, already validated (`fsname=…`, `allow_other`).
    ///   - debug: libfuse's own request log on stderr (`-d`).
    public init(context: FuseContext, mountpoint: String, options: [String], debug: Bool, threads: UInt32) throws(MountError) {
        self.context = context
        self.mountpoint = mountpoint
        self.threads = threads
        var words = ["albumfs"]
        if !options.isEmpty { words += ["-o", options.joined(separator: ",")] }
        if debug { words.append("-d") }
        argc = words.count
        argv = .allocate(capacity: words.count + 1)
        for (i, w) in words.enumerated() { argv[i] = strdup(w) }
        argv[words.count] = nil
        var args = fuse_args(argc: Int32(words.count), argv: argv, allocated: 0)
        var ops = Operations.table()
        let userdata = Unmanaged.passUnretained(context).toOpaque()
        guard let se = fuse_session_new(&args, &ops, MemoryLayout<fuse_lowlevel_ops>.size, userdata) else {
            Self.free(argv, argc)
            throw MountError(description: "fuse_session_new refused the options \(options.joined(separator: ","))")
        }
        session = se
    }

    deinit {
        fuse_session_destroy(session)
        Self.free(argv, argc)
    }

    private static func free(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ argc: Int) {
        for i in 0..<argc { Glibc.free(argv[i]) }
        argv.deallocate()
    }

    /// Tells the kernel to drop what it cached of changed nodes. Called from the library's own
    /// thread, never from a request handler (libfuse documents a deadlock there). Errors (ENOENT
    /// for an inode the kernel never saw) are expected and ignored.
    /// The corresponding C functions are `fuse_lowlevel_notify_inval_entry` and `_inval_inode`.
    public func invalidate(_ changes: TreeChanges) {
        serving.withLock { serving in
            guard serving else { return }
            for (parent, name) in changes.removedEntries {
                _ = fuse_lowlevel_notify_inval_entry(session, fuse_ino_t(parent), name, name.utf8.count)
            }
            for inode in changes.changedInodes {
                _ = fuse_lowlevel_notify_inval_inode(session, fuse_ino_t(inode), 0, 0)
            }
        }
    }

    /// Mounts and serves until the filesystem is unmounted (`fusermount3 -u`) or the process gets
    /// SIGTERM, SIGINT or SIGHUP. `ready` runs once the mount answers requests.
    public func run(ready: @escaping @Sendable () -> Void) throws(MountError) {
        // A daemon started with `&` inherits SIGINT ignored, and libfuse only hooks signals that
        // are at their default: reset it so Ctrl-C and `kill -INT` unmount cleanly.
        signal(SIGINT, SIG_DFL)
        guard fuse_set_signal_handlers(session) == 0 else { throw MountError(description: "cannot install signal handlers") }
        defer { fuse_remove_signal_handlers(session) }
        guard fuse_session_mount(session, mountpoint) == 0 else {
            throw MountError(description: "the kernel refused to mount on \(mountpoint) (see the message above)")
        }
        serving.withLock { $0 = true }
        defer {
            serving.withLock { $0 = false }
            fuse_session_unmount(session)
        }
        let path = mountpoint
        // Ready means answering: stat the mount from another thread; it returns only once the
        // loop below has answered the kernel's INIT and a GETATTR of the root.
        Threads.detach {
            var st = stat()
            if stat(path, &st) == 0 { ready() }
        }
        let rc = try loop()
        if rc < 0 && rc != -EINTR {
            throw MountError(description: "the FUSE loop stopped: \(Errno(rawValue: -rc))")
        }
    }

    /// Answers requests until the session ends: `fuse_session_loop_mt`, or `fuse_session_loop` in
    /// a ThreadSanitizer build, since libfuse ends its worker threads by cancelling them, which TSan
    /// reports as a thread finished with ignores enabled.
    private func loop() throws(MountError) -> Int32 {
        #if ALBUMFS_TSAN
        return fuse_session_loop(session)
        #else
        guard let config = fuse_loop_cfg_create() else { throw MountError(description: "fuse_loop_cfg_create failed") }
        defer { fuse_loop_cfg_destroy(config) }
        fuse_loop_cfg_set_max_threads(config, threads)
        fuse_loop_cfg_set_idle_threads(config, UInt32(max(1, threads / 2)))
        return fuse_session_loop_mt(session, config)
        #endif
    }
}
