import AlbumCore
import AlbumIndex
import AlbumMetadata
import FoundationEssentials
import Glibc

/// `albumfs index SOURCE [-o index=PATH]`: builds or refreshes the library's index without
/// mounting, with a progress bar on a terminal.
enum IndexCommand {
    static func run(_ options: MountOptions) throws(CLIError) -> Int32 {
        let source = try Preflight.checkSource(options.source)
        let index = try MountCommand.openIndex(options, source: source)
        var scanner = LibraryScanner(root: source, rules: MountCommand.rules(options))
        scanner.batchedReads = options.batchedReads
        let started = Date()
        var previous: [String: IndexedFile] = [:]
        do {
            for f in try index.loadAll() { previous[f.relativePath] = f }
        } catch {
            Log.line("albumfs index: warning: the index cannot be read (\(error)); scanning everything")
        }
        let bar = isatty(2) == 1 ? ProgressLine(label: "indexing", bar: true) : nil
        let outcome = scanner.scan(previous: previous, progress: { done, total in bar?.update(done: done, total: total, finished: done == total) })
        let seen = Set(outcome.files.map(\.relativePath))
        // (Not the files below a folder that could not be listed: unknown, not gone.)
        let removals = previous.keys.filter { path in
            !seen.contains(path) && !outcome.unlisted.contains { path.isWithin(folder: $0) }
        }
        let changed = outcome.files.filter { previous[$0.relativePath] != $0 }
        do {
            try index.save(upserts: changed, removals: removals)
        } catch {
            throw CLIError(.failure, "albumfs index: cannot write \(index.path): \(error)")
        }
        // The library folder's device, for a mount that later finds it empty (its disk unmounted).
        var st = stat()
        if !outcome.unlisted.contains(""), stat(source, &st) == 0 { try? index.saveLibraryDevice(UInt64(st.st_dev)) }
        let report = scanner.report(outcome.files, folderProblems: outcome.folderProblems)
        print("\(report.photos.count) photos, \(outcome.files.count) files, \(outcome.reads) read, \(removals.count) removed, "
              + "\(report.problems.count) problems in \(Date().timeIntervalSince(started).fixed(2)) s; index: \(index.path)")
        return ExitCode.success.rawValue
    }
}
