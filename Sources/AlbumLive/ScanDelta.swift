import AlbumCore
import AlbumMetadata

/// What a scan of a folder (and everything below it; "" the library) found changed against what
/// was known there before it began (`ScanRun.finish`): what `albumfs index` writes and says
/// it did, and what a mount's rescan applies to the index and shows in its status.
public struct ScanDelta: Sendable, Equatable {
    /// Read, and not known before at their path: new files.
    public var added: [String]
    /// Read, and known before at their path: changed since.
    public var changed: [String]
    /// Found by their identity at a new path, unread (their folder renamed or moved).
    public var moved: [FileMove]
    /// Known before, found nowhere now: deleted, or moved (a moved file's old path is gone too,
    /// unless a file is there now).
    public var gone: [String]

    public var isEmpty: Bool { added.isEmpty && changed.isEmpty && moved.isEmpty && gone.isEmpty }

    /// `3 added, 1 changed, 0 moved, 2 removed` (`.albumfs/status`' `last_scan_changes`).
    public var summary: String { "\(added.count) added, \(changed.count) changed, \(moved.count) moved, \(gone.count) removed" }

    public init(added: [String] = [], changed: [String] = [], moved: [FileMove] = [], gone: [String] = []) {
        self.added = added
        self.changed = changed
        self.moved = moved
        self.gone = gone
    }

    /// The paths a scan found files at: taken as they were, found moved there, read, or still
    /// being written (kept as last seen until they settle).
    public static func kept(_ survey: LibraryScanner.Survey, read: some Sequence<String>) -> Set<String> {
        Set(survey.reused.lazy.map(\.relativePath) + survey.moved.lazy.map(\.file.relativePath) + survey.deferred).union(read)
    }

    /// The `known` paths below `folder` that the scan did not keep, but for those below a folder
    /// it could not list (`unlisted`: unknown, not gone).
    public static func gone(_ known: some Sequence<String>, under folder: String, kept: Set<String>, unlisted: [String]) -> [String] {
        known.filter { path in
            path.isWithin(folder: folder) && !kept.contains(path) && !unlisted.contains { path.isWithin(folder: $0) }
        }
    }
}
