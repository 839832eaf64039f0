import AlbumCore
import AlbumFUSE
import AlbumIndex
import AlbumMetadata
import AlbumThumbnails
import AlbumVFS
import Foundation
import Glibc

/// `albumfs SOURCE MOUNTPOINT`: check, (go to the background,) scan, mount, serve.
enum MountCommand {
    static func run(_ options: MountOptions, arguments: [String]) throws(CLIError) -> Int32 {
        if let fd = options.readyFD { Daemon.closeInheritedDescriptors(keeping: fd) }
        try Preflight.checkFuse()
        let source = try Preflight.checkSource(options.source)
        let mountpoint = try Preflight.checkMountpoint(options.mountpoint, source: source)
        if !options.foreground && options.readyFD == nil {
            return Daemon.launch(arguments: arguments)
        }

        let started = Date()
        let now = Timestamp(seconds: Int64(started.timeIntervalSince1970))
        let rules = ScanRules(dates: CaptureDateRules(now: now),
                              screenshots: ScreenshotRules(namePrefixes: options.screenshotNames,
                                                           folderNames: options.screenshotFolders))
        let report = LibraryScanner(root: source, rules: rules, excluding: mountpoint).scan()
        reportProblems(report.problems)
        let library = LibraryViews.build(photos: report.photos, thumbnailBoxes: options.thumbnailBoxes, withStatus: true,
                                         withPicks: true, emptyMtime: now)
        let picksPath = options.picksDB ?? dataHome() + "/albumfs/picks.sqlite"
        let picks: PickStore
        do {
            picks = try PickStore(path: picksPath, library: source)
        } catch {
            throw CLIError(.failure, "albumfs: the picks database \(picksPath) cannot be opened: \(error)")
        }
        let cache = thumbnailCache(options)
        let thumbnails = ThumbnailService(boxes: options.thumbnailBoxes, cache: cache,
                                          renderer: ThumbnailRenderer(maxPixels: options.thumbnailMaxPixels),
                                          debug: options.debug, log: { Log.line($0) })
        let fs: AlbumFileSystem
        do {
            fs = try AlbumFileSystem(library: library, sourceRoot: source, owner: Owner(uid: getuid(), gid: getgid()),
                                     thumbnails: thumbnails,
                                     status: DaemonStatus(report: report, scanSeconds: Date().timeIntervalSince(started),
                                                          thumbnails: thumbnails, cache: cache),
                                     picks: picks, maxPicks: options.maxPicks, mountpoint: mountpoint,
                                     log: { Log.line($0) })
        } catch {
            throw CLIError(.failure, "albumfs: the picks in \(picksPath) cannot be read: \(error)")
        }
        let context = FuseContext(fs: fs)
        var fuseOptions = options.fuseOptions
        if !fuseOptions.contains(where: { $0.hasPrefix("fsname=") }) {
            // `df` and `mount` show the library's path; libfuse's option parser needs commas escaped.
            fuseOptions.append("fsname=" + source.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ",", with: "\\,"))
        }
        if !fuseOptions.contains(where: { $0.hasPrefix("subtype=") }) { fuseOptions.append("subtype=albumfs") }
        let elapsed = Date().timeIntervalSince(started)
        let count = report.photos.count
        do {
            let session = try FuseSession(context: context, mountpoint: mountpoint, options: fuseOptions,
                                          debug: options.debug, threads: options.singleThreaded ? 1 : 32)
            let readyFD = options.readyFD
            let logFile = options.logFile
            try session.run {
                if let readyFD {
                    Daemon.signalReady(fd: readyFD, logFile: logFile)
                } else {
                    Log.line(String(format: "albumfs: ready: %d photos from %@ at %@ (scanned in %.2f s)", count, source, mountpoint, elapsed))
                }
                SystemdNotify.ready()
            }
        } catch {
            throw CLIError(.failure, "albumfs: \(error.description)")
        }
        return ExitCode.success.rawValue
    }

    /// `$XDG_DATA_HOME`, or `~/.local/share`.
    static func dataHome() -> String {
        let env = ProcessInfo.processInfo.environment
        return env["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((env["HOME"] ?? "/tmp") + "/.local/share")
    }

    /// The thumbnail cache, or nil (with one warning) when its folder cannot be written.
    static func thumbnailCache(_ options: MountOptions) -> ThumbnailCache? {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((env["HOME"] ?? "/tmp") + "/.cache")
        let dir = options.cacheDir ?? base + "/albumfs/thumbnails"
        guard let cache = ThumbnailCache(directory: dir, maxBytes: options.cacheSize) else {
            Log.line("albumfs: warning: thumbnail cache \(dir) cannot be written; thumbnails are rendered in memory")
            return nil
        }
        return cache
    }

    /// One line per problem file, at most 20, then a count: damaged photos stay listed.
    static func reportProblems(_ problems: [ScanProblem]) {
        for p in problems.prefix(20) { Log.line("albumfs: notice: \(p.relativePath): \(p.message)") }
        if problems.count > 20 { Log.line("albumfs: notice: and \(problems.count - 20) more files with problems") }
    }
}
