import CSysOpen
import Glibc

/// The calling thread's CPU and I/O priority lowered for work nobody waits on: nice 10 and the
/// idle I/O class, so that a listing, a read of an original or a render always goes first.
/// Per thread: only for threads of the caller's own (a `WorkerPool` of its own), never a shared pool's, since
/// an ordinary user cannot raise a priority again.
public enum BackgroundPriority {
    public static let niceValue: Int32 = 10

    /// Lowers the calling thread's priorities; the error says why not (the work then runs as it is).
    public static func lowerThisThread() -> Errno? {
        albumfs_thread_priority_set(niceValue, albumfs_io_priority_idle()) == 0 ? nil : Errno.current
    }

    /// The calling thread's nice value and I/O priority (`ioprio_get`), or the error.
    public static func ofThisThread() -> Result<(nice: Int32, io: Int32), Errno> {
        var nice: Int32 = 0, io: Int32 = 0
        guard albumfs_thread_priority_get(&nice, &io) == 0 else { return .failure(Errno.current) }
        return .success((nice, io))
    }

    /// `ioprio_get`'s value of the idle class.
    public static var idleIO: Int32 { albumfs_io_priority_idle() }
}
