import AlbumCore
import Glibc
import Synchronization

/// Tells when the mount table changes (a disk mounted or unmounted): the kernel marks
/// /proc/self/mountinfo readable-urgent (POLLPRI) on every change, and `poll` then resets it.
///
/// Why: a library whose disk is unplugged is kept as it was (docs/status.md), and inotify says
/// nothing when the disk is mounted again (a mount leaves the folder under it untouched): without
/// this, the library came back only at the next periodic rescan (`-o rescan`, 300 s).
public final class MountTableWatcher: @unchecked Sendable {
    private let fd: Int32
    private let onChange: @Sendable () -> Void
    private let stopping = Atomic<Bool>(false)

    /// Nil when /proc is not there (the periodic rescan then notices instead).
    public init?(onChange: @escaping @Sendable () -> Void) {
        fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.onChange = onChange
    }

    deinit { close(fd) }

    /// Polls on a thread of its own until `stop`.
    public func start() {
        Threads.detach { [self] in
            while !stopping.load(ordering: .relaxed) {
                var pfd = pollfd(fd: fd, events: Int16(POLLPRI), revents: 0)
                // Wake up now and then to notice `stop`.
                guard poll(&pfd, 1, 500) > 0, pfd.revents & Int16(POLLPRI | POLLERR) != 0 else { continue }
                onChange()
            }
        }
    }

    public func stop() { stopping.store(true, ordering: .relaxed) }
}
