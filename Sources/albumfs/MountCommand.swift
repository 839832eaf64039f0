import AlbumCore
import AlbumSystem
import AlbumFUSE
import AlbumIndex
import AlbumLive
import AlbumMetadata
import AlbumThumbnails
import AlbumVFS
import Dispatch
import FoundationEssentials
import Glibc

/// `albumfs SOURCE MOUNTPOINT`: check, (go to the background,) scan, mount, serve.
enum MountCommand {
    static func run(_ options: MountOptions, arguments: [String]) throws(CLIError) -> Int32 {
        if let fd = options.readyFD { Daemon.closeInheritedDescriptors(keeping: fd) }
        try Preflight.checkFuse()
        let source = try Preflight.checkSource(options.source)
        let mountpoint = try Preflight.checkMountpoint(options.mountpoint, source: source, allowNonEmpty: options.allowNonEmptyMountpoint)
        // Said once, by the process the user started (a daemon it launches would say it again).
        if options.heif && options.readyFD == nil,
           let warning = HEIFLibrary.versionWarning(installHint: "apt-get install -t bookworm-backports libheif1 (on Debian bookworm; scripts/install-deps does it)") {
            Log.line("albumfs: warning: " + warning)
        }
        if !options.foreground && options.readyFD == nil {
            return Daemon.launch(arguments: arguments)
        }
        Daemon.raiseDescriptorLimit()
        // The index, the picks and the thumbnails are the user's alone (docs/security.md).
        umask(0o077)

        let started = Date()
        var scanner = LibraryScanner(root: source, rules: rules(options), excluding: mountpoint)
        scanner.batchedReads = options.batchedReads
        // (Its quick_check waits until the views are shown when they come from a snapshot: the
        // coordinator's, in the background. FirstTree runs it at once otherwise.)
        var index = openIndexIfPossible(options, source: source, checking: false)
        // Emptied once handed over: this frame lives as long as the mount, and must not keep the
        // first tree and the index rows alive beside the coordinator's own copies.
        var first = FirstTree(index: &index, scanner: scanner, options) { openIndexIfPossible(options, source: source) }
        let paths = MountPaths(source: source, mountpoint: mountpoint)
        let picksPath = options.picksDB ?? dataHome() + "/albumfs/picks.sqlite"
        let picks = PicksDatabase(storage: openPicks(picksPath, source: source), path: picksPath)
        let cache = thumbnailCache(options)
        let workers = renderWorkers(options)
        let requests = FuseContext.requestPool(ahead: options.thumbnailAhead)
        let thumbnails = MountThumbnails(service: thumbnailService(options, cache: cache, workers: workers, index: index, pool: requests),
                                         workers: workers, cache: cache, desktop: desktopThumbnails(options, paths, workers: workers))
        let status = DaemonStatus(thumbnails: thumbnails, index: index, headerReads: scanner.readMethod, firstTree: first.origin,
                                  picksDatabase: picks.statusName)
        let fs = try fileSystem(first.library!, options, paths, thumbnails: thumbnails, status: status, picks: picks)
        var scheduling = CoordinatorOptions(thumbnailBoxes: options.thumbnailBoxes, rescanInterval: options.rescanInterval,
                                            maxWatches: options.maxWatches)
        scheduling.fullRescanInterval = options.fullRescanInterval
        scheduling.views = options.views
        let hashWorkers = options.views.contains(LibraryViews.duplicates) ? similarHashWorkers(options, thumbnails: workers) : nil
        scheduling.perceptualHasher = hashWorkers.map { SimilarHasher(renderer: $0, thumbnails: workers) }
        var parts = CoordinatorParts(scanner: scanner, index: index, fs: fs, options: scheduling, log: { Log.line($0) })
        parts.progress = options.readyFD == nil && isatty(2) == 1 ? ProgressLine(label: "scanning").update : nil
        parts.keeper = first.views?.keeper(loaded: first.snapshotGeneration)
        let coordinator = LibraryCoordinator(parts)
        status.coordinator = coordinator
        status.fileSystem = fs
        do {
            let context = FuseContext(fs: fs, maxRead: options.maxRead ?? 0, sourceTimeout: options.sourceTimeout, requests: requests)
            status.context = context
            let session = try FuseSession(context: context, mountpoint: mountpoint,
                                          options: fuseOptions(options, source: source),
                                          debug: options.debug, threads: options.singleThreaded ? 1 : 32)
            let ready = Ready(readyFD: options.readyFD, logFile: options.logFile, scanWait: options.scanWait, photos: first.library!.filePhotoCount,
                              paths: paths, started: started)
            first.library = nil
            let handoff = TakeOnce(first.known.take())
            fs.setInvalidator(pool: requests) { session.invalidate($0) }
            try session.run {
                // The decoders' workers start once the first scan ends, in the background (their
                // own processes load the decoders, not the daemon): each start loads every decoder
                // library, CPU that a first scan on two cores would wait for. A render asked
                // before then starts its own worker; opening a thumbnails folder starts them all.
                coordinator.start(known: handoff.take(), invalidate: { session.invalidate($0) }, afterFirstScan: { workers.warmUp() })
                ready.announce(coordinator)
            }
            coordinator.stop()
            workers.shutdown()
            hashWorkers?.shutdown()
            thumbnailFailureWrites.sync {}
            foldDatabases(picks: picks, index: index)
        } catch {
            throw CLIError(.failure, "albumfs: \(error.description)")
        }
        return ExitCode.success.rawValue
    }

    /// What is said, and to whom, once the mount answers.
    struct Ready: Sendable {
        let readyFD: Int32?
        let logFile: String?
        let scanWait: Double
        let photos: Int
        let paths: MountPaths
        let started: Date

        /// A launcher waiting on `readyFD` is told (after the first scan, or `scanWait`: scripts
        /// expect a complete tree on the next line, and a big library goes to the background and
        /// keeps filling in); in the foreground, a line on stderr; systemd, when it asks.
        func announce(_ coordinator: LibraryCoordinator) {
            if let readyFD {
                _ = coordinator.waitForFirstScan(seconds: scanWait)
                Daemon.signalReady(fd: readyFD, logFile: logFile)
            } else {
                Log.line("albumfs: ready: \(photos) photos from \(paths.source) at \(paths.mountpoint) "
                         + "(\(Date().timeIntervalSince(started).fixed(2)) s; the scan goes on in the background)")
            }
            SystemdNotify.ready()
        }
    }

    /// The sandboxed processes every decode runs in, one per core and one more (a reader's own
    /// render beside those made ahead of it), bounded by
    /// `-o thumbnail_max_pixels`, `thumbnail_memory` and `thumbnail_timeout`.
    static func renderWorkers(_ options: MountOptions) -> RenderWorkers {
        RenderWorkers(executable: renderWorkerExecutable, limits: .init(memory: options.thumbnailMemory ?? DecodeMemory.defaultLimit, maxPixels: options.thumbnailMaxPixels,
                                    seconds: options.thumbnailTimeout),
                      size: ProcessInfo.processInfo.activeProcessorCount + 1, log: { Log.line($0) })
    }

    /// The sandboxed worker that decodes stills for similar photos' hashes: one, at background
    /// priority, under the thumbnail workers' limits.
    static func similarHashWorkers(_ options: MountOptions, thumbnails: RenderWorkers) -> RenderWorkers {
        RenderWorkers(limits: thumbnails.limits, size: 1, background: true, log: { Log.line($0) })
    }

    /// Where thumbnail failures are written to the index, in order; emptied at unmount.
    static let thumbnailFailureWrites = DispatchQueue(label: "albumfs.thumbnail-failures")

    /// The thumbnail service, its renders made by `workers` (those made ahead on `pool`), the
    /// failures from photos' content kept in `index` across mounts (written on a queue of their
    /// own: a read never waits for SQLite).
    static func thumbnailService(_ options: MountOptions, cache: ThumbnailCache?, workers: RenderWorkers,
                                 index: LibraryIndex?, pool: WorkerPool) -> ThumbnailService {
        // What else a render's outcome depends on: a failure kept under other limits (a larger
        // -o thumbnail_memory) or another pipeline is tried again.
        let limits = workers.limits
        let settings = "pipeline \(ThumbnailRenderer.pipelineVersion); pixels \(limits.maxPixels); memory \(limits.memory); seconds \(limits.seconds)"
        var record: (@Sendable (RecordedThumbnailFailure) -> Void)?
        if let index {
            // (The index is a cache: a failure not kept is met again at a read.)
            record = { failure in thumbnailFailureWrites.async { try? index.thumbnailFailures.save(failure, settings: settings) } }
        }
        let recorded = (try? index?.thumbnailFailures.all(settings: settings)) ?? []
        return ThumbnailService(boxes: options.thumbnailBoxes, cache: cache, renderer: workers,
                                options: .init(ahead: options.thumbnailAhead, pool: pool, debug: options.debug),
                                failures: .init(recorded: recorded, record: record), log: { Log.line($0) })
    }

    /// The writer of desktop file managers' thumbnails (`-o desktop_thumbnails`), into the mounting
    /// user's `$XDG_CACHE_HOME/thumbnails`.
    static func desktopThumbnails(_ options: MountOptions, _ paths: MountPaths, workers: RenderWorkers) -> DesktopThumbnails? {
        guard options.desktopThumbnails else { return nil }
        return DesktopThumbnails(cacheHome: cacheHome(), mountpoint: paths.mountpoint, sourceRoot: paths.source, renderer: workers,
                                 limits: .init(size: options.desktopThumbnailsSize, width: workers.size), log: { Log.line($0) })
    }

    /// The filesystem of the first tree, with its owner (`-o uid=,gid=,umask=`) and services.
    static func fileSystem(_ library: Library, _ options: MountOptions, _ paths: MountPaths, thumbnails: MountThumbnails,
                           status: DaemonStatus, picks: PicksDatabase) throws(CLIError) -> AlbumFileSystem {
        do {
            return try AlbumFileSystem(library: library, sourceRoot: paths.source,
                                       owner: Owner(uid: options.uid ?? getuid(), gid: options.gid ?? getgid(), umask: options.umask,
                                                    fileUID: options.uid, fileGID: options.gid),
                                       services: FileSystemServices(thumbnails: thumbnails.service, desktopThumbnails: thumbnails.desktop, status: status),
                                       picks: PickSettings(storage: picks.storage, limit: options.maxPicks, mountpoint: paths.mountpoint),
                                       log: { Log.line($0) })
        } catch {
            throw CLIError(.failure, "albumfs: the picks in \(picks.path) cannot be read: \(error)")
        }
    }

    /// The options libfuse and the kernel get: the user's, and `fsname` (SOURCE's path, so `df`
    /// and `mount` show it) and `subtype` unless given.
    static func fuseOptions(_ options: MountOptions, source: String) -> [String] {
        var fuseOptions = options.fuseOptions
        if !fuseOptions.contains(where: { $0.hasPrefix("fsname=") }) {
            // (libfuse's option parser needs commas escaped.)
            fuseOptions.append("fsname=" + source.replacing("\\", with: "\\\\").replacing(",", with: "\\,"))
        }
        if !fuseOptions.contains(where: { $0.hasPrefix("subtype=") }) { fuseOptions.append("subtype=albumfs") }
        return fuseOptions
    }

    /// At unmount: the process ends with `exit`, so SQLite never closes the databases and leaves
    /// their latest pages in the WAL beside them, where a copy of picks.sqlite alone would have no
    /// picks. (Busy: another mount of the same database is using it, and will fold it.)
    static func foldDatabases(picks: PicksDatabase, index: LibraryIndex?) {
        do throws(Errno) { try picks.storage.foldWAL() } catch where error.rawValue != EBUSY {
            Log.line("albumfs: warning: the picks database \(picks.path) could not be folded into one file: \(error)")
        } catch {}
        try? index?.foldWAL()  // a cache: its WAL is recovered on the next open anyway
    }

    /// Hands a big value to a closure once, without the closure keeping it alive afterwards.
    final class TakeOnce<T>: Sendable {
        private let value: Locked<T?>
        init(_ value: sending T) { self.value = Locked(value) }
        func take() -> sending T { value.withLock { v -> sending T in v.take()! } }
    }

    static func rules(_ options: MountOptions) -> ScanRules {
        var rules = ScanRules(dates: CaptureDateRules(now: Timestamp.now),
                              screenshots: ScreenshotRules(namePrefixes: options.screenshotNames, folderNames: options.screenshotFolders),
                              formats: options.heif ? ScanRules.defaultFormats : ScanRules.defaultFormats.subtracting([.heif]))
        rules.favorites = FavoriteRules(threshold: options.favoriteRating)
        return rules
    }

    /// The library's index (`-o index=`, or one file per library under the cache folder).
    static func openIndex(_ options: MountOptions, source: String) throws(CLIError) -> LibraryIndex {
        let path = indexPathFollowingAMove(options, source: source)
        do throws(PrivateFolder.Refusal) { try PrivateFolder.make(path.folderBeforeLastSlash) } catch {
            throw CLIError(.failure, "albumfs: the index's folder \(error)")
        }
        do {
            return try LibraryIndex.openOrRebuild(path: path, warn: { Log.line($0) })
        } catch {
            throw CLIError(.failure, "albumfs: the index \(path) cannot be opened: \(error)")
        }
    }

    /// The mount's index, or nil with one warning: the index is a cache, and a folder it cannot
    /// be written in (a read-only home, a full disk) must not keep the library from mounting.
    static func openIndexIfPossible(_ options: MountOptions, source: String, checking: Bool = true) -> LibraryIndex? {
        let path = indexPathFollowingAMove(options, source: source)
        do throws(PrivateFolder.Refusal) { try PrivateFolder.make(path.folderBeforeLastSlash) } catch {
            Log.line("albumfs: warning: the index's folder \(error); mounting without an index: every mount reads every file")
            return nil
        }
        do throws(Errno) {
            return try LibraryIndex.openOrRebuild(path: path, checking: checking, warn: { Log.line($0) })
        } catch {
            Log.line("albumfs: warning: the index \(path) cannot be opened (\(error)); mounting without one: every mount reads every file")
            return nil
        }
    }

    /// The picks database, or with one warning `UnsavedPicks` when it cannot be opened or read (a
    /// read-only home, a service without write access, a damaged file): the library still mounts,
    /// `picked/` shows none and takes none (EROFS), and the database is left exactly as it is.
    static func openPicks(_ path: String, source: String) -> PickStorage {
        do throws(PrivateFolder.Refusal) { try PrivateFolder.make(path.folderBeforeLastSlash) } catch {
            Log.line("albumfs: warning: the picks database's folder \(error); picked/ shows no picks and takes none for this mount")
            return UnsavedPicks()
        }
        let store: PickStore
        do throws(PickStore.OpenFailure) {
            store = try PickStore(path: path, library: source)
        } catch {
            Log.line("albumfs: warning: the picks database \(path) cannot be used (\(error)); picked/ shows no picks and takes none for this mount")
            return UnsavedPicks()
        }
        do throws(Errno) {
            do {
                if let old = try store.takeOverPicksOfMovedLibrary() {
                    Log.line("albumfs: the picks of \(old) (no library there now) follow the library to \(source)")
                }
            } catch {
                Log.line("albumfs: warning: the picks of a library that moved here cannot be taken over (\(error))")
            }
            _ = try store.loadPicks()
            return store
        } catch {
            Log.line("albumfs: warning: the picks database \(path) cannot be used (\(error)); picked/ shows no picks and takes none for this mount")
            return UnsavedPicks()
        }
    }

    /// `-o index=`, or the library's own file under the cache folder.
    static func indexPath(_ options: MountOptions, source: String) -> String {
        options.indexPath ?? cacheHome() + "/albumfs/index/" + EntryNames.tag(for: source, hexDigits: 16) + ".sqlite"
    }

    /// `indexPath`, where a library's own index that does not exist yet is first made a copy of
    /// the index of the library, if it moved here (`MovedLibraryIndex`; never with `-o index=`).
    static func indexPathFollowingAMove(_ options: MountOptions, source: String) -> String {
        let path = indexPath(options, source: source)
        if options.indexPath == nil, let original = MovedLibraryIndex.copy(to: path, root: source) {
            Log.line("albumfs: the library's files are those of the index \(original) (a library that moved here, or its disk mounted at another path): starting from a copy of it")
        }
        return path
    }

    static func cacheHome() -> String { xdgFolder("XDG_CACHE_HOME", default: ".cache") }

    /// `$XDG_DATA_HOME`, or `~/.local/share`.
    static func dataHome() -> String { xdgFolder("XDG_DATA_HOME", default: ".local/share") }

    /// An XDG base folder: the variable when it is an absolute path (the spec ignores relative
    /// ones), else `<home>/<default>`.
    static func xdgFolder(_ variable: String, default relative: String) -> String {
        let env = ProcessInfo.processInfo.environment
        return env[variable].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? (homeFolder() + "/" + relative)
    }

    /// `$HOME`, else the user's home in the password database (a root mount at boot has no
    /// `HOME`; `/tmp`, which anyone can write in, is never one).
    static func homeFolder() -> String {
        if let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/") { return home }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 << 10)
        if getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil, let dir = entry.pw_dir {
            let home = String(cString: dir)
            if home.hasPrefix("/") && home != "/" { return home }
        }
        return geteuid() == 0 ? "/root" : "/nonexistent"
    }

    /// The thumbnail cache, or nil (with one warning) when its folder cannot be written.
    static func thumbnailCache(_ options: MountOptions) -> ThumbnailCache? {
        let dir = options.cacheDir ?? cacheHome() + "/albumfs/thumbnails"
        do throws(PrivateFolder.Refusal) {
            guard let cache = try ThumbnailCache(directory: dir, maxBytes: options.cacheSize) else {
                Log.line("albumfs: warning: thumbnail cache \(dir) cannot be written; thumbnails are rendered in memory")
                return nil
            }
            return cache
        } catch {
            Log.line("albumfs: warning: thumbnail cache \(error); thumbnails are rendered in memory")
            return nil
        }
    }

    /// The binary the render workers run: this one, or in a ThreadSanitizer build the ordinary
    /// build that `ALBUMFS_RENDER_WORKER` names (TSan's runtime makes system calls the workers'
    /// seccomp filter refuses; a worker is a process of its own, not what TSan checks).
    static var renderWorkerExecutable: String {
        #if ALBUMFS_TSAN
        if let ordinary = ProcessInfo.processInfo.environment["ALBUMFS_RENDER_WORKER"] { return ordinary }
        #endif
        return "/proc/self/exe"
    }
}
