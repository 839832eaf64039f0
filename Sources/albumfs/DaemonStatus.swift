import AlbumCore
import AlbumFUSE
import AlbumIndex
import AlbumLive
import AlbumMetadata
import AlbumThumbnails
import AlbumVFS
import FoundationEssentials
import Glibc
import AlbumSystem

/// What `.albumfs/status` and `.albumfs/errors` say (docs/status.md).
final class DaemonStatus: StatusReporter, Sendable {
    let thumbnails: ThumbnailService
    /// The sandboxed processes that decode.
    let workers: RenderWorkers
    let cache: ThumbnailCache?
    let index: LibraryIndex?
    let headerReads: LibraryScanner.ReadMethod
    /// The picks database, or `none` when it cannot be used (`picked/` then takes no picks).
    let picksDatabase: String
    /// Where the tree shown when the mount answered came from (`views snapshot`, `index`, `none`).
    let firstTree: String
    private let parts = Locked<(coordinator: LibraryCoordinator?, fileSystem: AlbumFileSystem?, context: FuseContext?)>((nil, nil, nil))

    /// Set once the coordinator exists (it needs the filesystem, which needs this reporter).
    var coordinator: LibraryCoordinator? {
        get { parts.withLock { $0.coordinator } }
        set { parts.withLock { $0.coordinator = newValue } }
    }

    /// Set once the filesystem exists: which photos it shows now.
    var fileSystem: AlbumFileSystem? {
        get { parts.withLock { $0.fileSystem } }
        set { parts.withLock { $0.fileSystem = newValue } }
    }

    /// Set once the session's context exists: whether the library's storage is stalled (its
    /// deadlines own that state).
    var context: FuseContext? {
        get { parts.withLock { $0.context } }
        set { parts.withLock { $0.context = newValue } }
    }

    /// `-o desktop_thumbnails`' writer, when on.
    let desktopThumbnails: DesktopThumbnails?

    init(thumbnails parts: MountThumbnails, index: LibraryIndex?, headerReads: LibraryScanner.ReadMethod, firstTree: String,
         picksDatabase: String) {
        self.firstTree = firstTree
        self.picksDatabase = picksDatabase
        self.desktopThumbnails = parts.desktop
        self.thumbnails = parts.service
        self.workers = parts.workers
        self.cache = parts.cache
        self.index = index
        self.headerReads = headerReads
    }

    /// What `.albumfs/errors` lists, one line per file, by path: the scan's problems, and the photos
    /// still shown as they were whose thumbnail could not be made (a JPEG cut inside its image
    /// data reads as a whole header: only decoding finds it). A file the scan already names keeps
    /// the scan's line.
    private func problems(_ s: LibraryStatus) -> (all: [ScanProblem], thumbnailFailures: Int) {
        guard let fileSystem else { return (s.problems, 0) }
        let failed = thumbnails.failures().filter { $0.photo.isStill(fileSystem.shownPhoto($0.photo.relativePath)) }
        let named = Set(s.problems.map(\.relativePath))
        let added = failed.filter { !named.contains($0.photo.relativePath) }
            .map { ScanProblem(relativePath: $0.photo.relativePath, message: "cannot make a thumbnail: \($0.error)") }
        guard !added.isEmpty else { return (s.problems, failed.count) }
        return ((s.problems + added).sorted { $0.relativePath < $1.relativePath }, failed.count)
    }

    func statusText() -> String {
        let s = coordinator?.status ?? LibraryStatus()
        let problems = problems(s)
        var lines: [(String, String)] = []
        lines.append(("scan_state", s.state))
        let stalled = context?.isSourceStalled ?? false
        lines.append(("library_state", !s.libraryAvailable ? "unavailable" : stalled ? "stalled" : "available"))
        // What the views show now: before the first scan has reported (`loading`, a remount's
        // check of its snapshot), the photos the first tree shows.
        lines.append(("photos", String(fileSystem?.library.filePhotoCount ?? s.photos)))
        lines.append(("files_seen", String(s.filesSeen)))
        lines.append(("images_not_shown", String(s.imagesNotShown)))
        lines.append(("not_shown", String(s.notShown.count)))
        lines.append(("not_shown_by_reason", NotShownFile.countsByReason(s.notShown)))
        lines.append(("errors", String(problems.all.count + (fileSystem?.filterErrors.count ?? 0))))
        lines.append(("changes_pending", String(coordinator?.pending.count ?? 0)))
        lines.append(("scan_progress", "\(s.progressDone)/\(s.progressTotal)"))
        lines.append(("scans", String(s.scans)))
        lines.append(("header_reads", String(s.headerReads)))
        lines.append(("header_reads_via", headerReads.rawValue))
        lines.append(("last_scan_seconds", s.lastScanSeconds.fixed(3)))
        lines.append(("last_scan_changes", s.lastScanChanges))
        lines.append(("last_scan_folders", "\(s.lastScanFolders.listed) listed, \(s.lastScanFolders.unchanged) unchanged"))
        lines.append(("watched_folders", String(s.watchedFolders)))
        lines.append(("watch_limit_reached", s.watchLimitReached ? "yes" : "no"))
        lines.append(("index", index?.path ?? "none"))
        lines.append(("first_tree", firstTree))
        if index != nil {
            lines.append(("index_writes", s.indexWriteFailure.map { "failing (\($0)): changes are read again by the next mount" } ?? "ok"))
            lines.append(("index_pending", String(s.indexPending)))
        }
        lines.append(("duplicates", s.duplicates))
        lines.append(("duplicate_groups", String(s.duplicateGroups)))
        lines.append(("duplicate_files_hashed", String(s.duplicateFilesHashed)))
        lines.append(("similar", s.similar))
        lines.append(("similar_hashed", String(s.similarHashed)))
        lines.append(("similar_pending", String(s.similarPending)))
        lines.append(("similar_groups", String(s.similarGroups)))
        lines.append(("similar_plain", "\(s.similarPlain.stills) stills, \(s.similarPlain.hashes.count) hashes"))
        lines.append(("picks", String(fileSystem?.pickCount ?? 0)))
        lines.append(("picks_db", picksDatabase))
        lines.append(("thumbnail_sizes", thumbnails.boxes.map(\.description).joined(separator: ",")))
        lines.append(("thumbnails_rendered", String(thumbnails.renderCount)))
        lines.append(("thumbnails_rendered_ahead", String(thumbnails.renderAheadCount)))
        lines.append(("thumbnail_failures", String(problems.thumbnailFailures)))
        lines.append(("render_workers", "\(workers.running) of \(workers.size)"))
        lines.append(("render_worker_restarts", String(workers.restarts)))
        lines.append(("desktop_thumbnails", desktopThumbnails.map {
            "\($0.written.load(ordering: .relaxed)) written, \($0.failed.load(ordering: .relaxed)) failed, "
                + "\($0.folders.bytesUsed) of \($0.folders.limit) bytes, "
                + "\($0.answeredEarly.load(ordering: .relaxed)) listings answered at the wait bound"
        } ?? "off"))
        lines.append(("desktop_thumbnails_ahead", desktopThumbnails?.fillAheadState ?? "off"))
        lines.append(("original_bytes_read", String(fileSystem?.sources.originalBytesRead.load(ordering: .relaxed) ?? 0)))
        lines.append(("original_opens", String(fileSystem?.sources.originalOpens.load(ordering: .relaxed) ?? 0)))
        if let cache {
            lines += [("thumbnail_cache_dir", cache.directory), ("thumbnail_cache_bytes", String(cache.bytesUsed)),
                      ("thumbnail_cache_limit", String(cache.maxBytes)),
                      ("thumbnail_cache_writes", thumbnails.cacheWriteFailure.map { "failing (\($0)): kept in memory" } ?? "ok")]
        } else {
            lines += [("thumbnail_cache_dir", "none (in memory)")]
        }
        return lines.map { "\($0.0): \($0.1)\n" }.joined()
    }

    /// One `path: why` line per file or folder no view shows (`NotShownReason`), sorted by path,
    /// escaped as `errorsText`'s lines are.
    func notShownText() -> String {
        let files = (coordinator?.status ?? LibraryStatus()).notShown
        return files.sorted { $0.path < $1.path }.map(\.line).joined()
    }

    /// One `path: why` line per problem, escaped as `ls -b` escapes names (`OneLine`), so
    /// that a line is always one problem whatever the path or the message holds.
    func errorsText() -> String {
        let files = problems(coordinator?.status ?? LibraryStatus()).all.map {
            OneLine.problem(path: $0.relativePath, message: $0.message)
        }
        // Then names below filter/ that were no expression, by their path in the mount.
        let filters = (fileSystem?.filterErrors ?? []).map { OneLine.problem(path: $0.path, message: $0.message) }
        return (files + filters).joined()
    }
}
