import AlbumCore
import AlbumSystem
import FoundationEssentials
import Glibc
import Synchronization

/// inotify on every folder of the library: reports which folder changed, nothing more. The
/// coordinator decides what to rescan. The corresponding C functions are `inotify_init1`,
/// `inotify_add_watch` and `read`.
///
/// The same thread tells when the mount table changes: the kernel flags /proc/self/mountinfo
/// (POLLPRI) on every mount and unmount, and `poll` resets the flag. inotify says nothing when a
/// disk is mounted (the folder under it is untouched), so an unavailable library whose disk
/// comes back would otherwise wait for the periodic rescan (300 s).
/// (`@unchecked Sendable`: what changes is in `state`, a `Locked`; the descriptors and callbacks
/// do not change after `init`.)
public final class FolderWatcher: @unchecked Sendable {
    private let fd: Int32
    /// /proc/self/mountinfo, or -1 (no /proc: the periodic rescan notices instead).
    private let mountTable: Int32
    private let onChange: @Sendable (String, [(name: String, complete: Bool)]) -> Void
    private let onMountsChanged: @Sendable () -> Void
    private let warn: @Sendable (String) -> Void
    /// `-o max_watches`: a cap below the kernel's own (`fs.inotify.max_user_watches`).
    private let maxWatches: Int?
    private struct State {
        var pathByWatch: [Int32: String] = [:]
        var watchByPath: [String: Int32] = [:]
        var limitReached = false
        /// Whether `path`'s watch is there and still sends its events to `path` (a folder renamed
        /// away and another made, or it renamed back, under the name leaves the name's entry stale).
        func watches(_ path: String) -> Bool { watchByPath[path].map { pathByWatch[$0] == path } ?? false }
    }
    // Protects the watch maps; the reader thread and the scanner's `watch` calls share them.
    private let state = Locked(State())
    private let stopping = Atomic<Bool>(false)
    /// A pipe `stop` writes a byte to, waking the reader thread at once (read end, write end): the
    /// thread waits in `poll` with no timeout.
    private let wake: (read: Int32, write: Int32)

    static let mask: UInt32 = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY
                                     | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)

    /// Nil when inotify itself, or the pipe that wakes its thread, is unavailable (the periodic
    /// rescan then does all the work).
    /// - Parameters:
    ///   - onChange: a folder's absolute path ("": events were lost, the kernel's queue
    ///     overflowed), and the entries named in its events; an entry is
    ///     complete when its last event was IN_CLOSE_WRITE (written and closed) or IN_MOVED_TO
    ///     (renamed into place: rsync, Syncthing, browsers and phone-sync tools write a temporary
    ///     name and rename it once whole; a rename never changes what a file holds).
    ///   - onMountsChanged: a filesystem was mounted or unmounted somewhere.
    public init?(maxWatches: Int?, onChange: @escaping @Sendable (String, [(name: String, complete: Bool)]) -> Void,
                 onMountsChanged: @escaping @Sendable () -> Void = {}, warn: @escaping @Sendable (String) -> Void) {
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else {
            warn("albumfs: warning: inotify is not available (\(String(cString: strerror(errno)))); changes are found by the periodic rescan only")
            return nil
        }
        guard let wake = Self.wakePipe() else {
            warn("albumfs: warning: no pipe to wake the inotify thread (\(String(cString: strerror(errno)))); changes are found by the periodic rescan only")
            close(fd)
            return nil
        }
        self.fd = fd
        self.wake = wake
        mountTable = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
        self.maxWatches = maxWatches
        self.onChange = onChange
        self.onMountsChanged = onMountsChanged
        self.warn = warn
    }

    deinit {
        close(fd)
        if mountTable >= 0 { close(mountTable) }
        close(wake.read)
        close(wake.write)
    }

    /// Watches a folder (idempotent). At the watch limit: one warning, and no more watches.
    /// A watch follows its folder, not its name: a folder renamed keeps its watch, whose events
    /// the walk of its new path sends there (`inotify_add_watch` gives the same watch again for
    /// the same folder), and the path it had is forgotten.
    public func watch(_ path: String) {
        let (skip, count) = state.withLock { s in (s.watches(path) || s.limitReached, s.pathByWatch.count) }
        if skip { return }
        if let maxWatches, count >= maxWatches { limitReached("the max_watches limit (\(maxWatches))"); return }
        let wd = inotify_add_watch(fd, path, Self.mask)
        guard wd >= 0 else {
            if errno == ENOSPC { limitReached("the kernel's inotify watch limit (fs.inotify.max_user_watches)") }
            return  // a folder that vanished meanwhile: nothing to watch
        }
        state.withLock { s in
            if let old = s.pathByWatch[wd], old != path, s.watchByPath[old] == wd { s.watchByPath[old] = nil }
            s.pathByWatch[wd] = path
            s.watchByPath[path] = wd
        }
    }

    private func limitReached(_ which: String) {
        let first = state.withLock { s -> Bool in
            defer { s.limitReached = true }
            return !s.limitReached
        }
        if first { warn("albumfs: warning: \(which) is reached; folders beyond it are seen by the periodic rescan only") }
    }

    /// A pipe closed on exec whose write end never blocks, or nil (errno says why).
    static func wakePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        guard fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0,
              fcntl(ends[1], F_SETFL, O_NONBLOCK) == 0 else {
            let failure = errno
            close(ends[0]); close(ends[1])
            errno = failure
            return nil
        }
        return (ends[0], ends[1])
    }

    public var watchCount: Int { state.withLock { $0.pathByWatch.count } }
    public var isAtLimit: Bool { state.withLock { $0.limitReached } }

    /// Reads events on a thread of its own until `stop`.
    public func start() {
        Threads.detach { [self] in
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            // (A negative descriptor is ignored by poll.)
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: mountTable, events: Int16(POLLPRI), revents: 0),
                       pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            while !stopping.load(ordering: .relaxed) {
                // (`stop` wakes it through `wake`: no timeout.)
                guard poll(&fds, nfds_t(fds.count), -1) > 0 else { continue }
                if fds[1].revents & Int16(POLLPRI | POLLERR) != 0 { onMountsChanged() }
                guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { continue }
                let events = buffer.withUnsafeBytes { Self.events(in: UnsafeRawBufferPointer(rebasing: $0[..<n])) }
                let changed = Self.folders(changedBy: events) { event in
                    state.withLock { s in
                        guard let path = s.pathByWatch[event.watch] else { return nil }
                        if event.mask & UInt32(IN_IGNORED) != 0 {
                            s.pathByWatch[event.watch] = nil
                            if s.watchByPath[path] == event.watch { s.watchByPath[path] = nil }
                        }
                        return path
                    }
                }
                for (path, entries) in changed { onChange(path, entries.map { ($0.key, $0.value) }) }
            }
        }
    }

    /// One inotify event as read: its watch, its mask, the entry it names ("" for the folder itself).
    struct Event {
        var watch: Int32
        var mask: UInt32
        var name: String
    }

    /// The events in what one `read` of the inotify descriptor gave (`struct inotify_event`s).
    static func events(in bytes: UnsafeRawBufferPointer) -> [Event] {
        var events: [Event] = []
        var offset = 0
        while offset + 16 <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            guard offset + 16 + length <= bytes.count else { break }
            let name = FileNameBytes.string(Array(bytes[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }))
            events.append(Event(watch: watch, mask: mask, name: name))
            offset += 16 + length
        }
        return events
    }

    /// The folders the events name, each with the entries named in it and whether each entry's
    /// last event says it is whole; "" when the kernel's queue overflowed (events were lost, on
    /// no watch of ours). `path` gives a watch's folder (nil: a watch no longer followed).
    static func folders(changedBy events: [Event], path: (Event) -> String?) -> [String: [String: Bool]] {
        var changed: [String: [String: Bool]] = [:]
        for event in events {
            if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { changed["", default: [:]] = [:] }
            guard let folder = path(event) else { continue }
            var entries = changed[folder, default: [:]]
            if !event.name.isEmpty { entries[event.name] = event.mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0 }
            changed[folder] = entries
        }
        return changed
    }

    /// Ends the reader thread: at once, or within half a second where no eventfd could be made.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        var byte: UInt8 = 1
        // (Non-blocking: it fails only when the pipe is full, and then a wake is pending anyway.)
        _ = write(wake.write, &byte, 1)
    }
}
