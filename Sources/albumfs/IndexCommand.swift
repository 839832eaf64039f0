import AlbumCore
import AlbumIndex
import AlbumLive
import AlbumMetadata
import FoundationEssentials
import Glibc

/// `albumfs index SOURCE [-o index=PATH]`: builds or refreshes the library's index without
/// mounting, with a progress bar on a terminal.
enum IndexCommand {
    static func run(_ options: MountOptions) throws(CLIError) -> Int32 {
        let source = try Preflight.checkSource(options.source)
        umask(0o077)
        let index = try MountCommand.openIndex(options, source: source)
        var scanner = LibraryScanner(root: source, rules: MountCommand.rules(options))
        scanner.batchedReads = options.batchedReads
        let started = Date()
        var previous: [String: IndexedFile] = [:]
        do {
            for f in try index.loadAll() where !f.lacksAccess { previous[f.relativePath] = f }
        } catch {
            Log.line("albumfs index: warning: the index cannot be read (\(error)); scanning everything")
        }
        // The empty folder a disk leaves when it is unmounted is no emptied library: as a mount
        // does, refuse it (scanned, it removed every row: the next mount read everything again).
        var availability = LibraryAvailability(root: source, index: index, log: { Log.line($0) })
        if let why = availability.diskNotMounted() {
            throw CLIError(.badSource, "albumfs index: \(source): \(why); the index is left as it is")
        }
        let bar = isatty(2) == 1 ? ProgressLine(label: "indexing", bar: true) : nil
        // As a mount's scan does: reading starts while the walk goes on, the rules are applied on
        // the reader threads, and each batch is written while the next ones are read, so no step
        // waits for the one before to finish.
        let writer = IndexWriter(index: index, log: { _ in })  // its failure is the command's, below
        var batches: [ReadStream.Batch] = []
        // A file known at another path by its identity (its folder renamed, moved or renamed) is
        // taken from there, unread.
        let survey = scanner.surveyReading(previous: previous,
                                           elsewhere: previous.isEmpty ? nil : LibraryScanner.Elsewhere(index: index, found: writer.save),
                                           onRead: { read in writer.save(read.lazy.map(\.file)) },
                                           progress: { done, total in bar?.update(done: done, total: total, finished: false) },
                                           handedOff: { batches.append($0) })
        let read = batches.flatMap { $0.take() }
        bar?.update(done: read.count, total: read.count, finished: true)
        let files = survey.reused + survey.moved.map(\.file) + read.map(\.file)
        let delta = ScanDelta(survey, read: read.map(\.file.relativePath), under: "", known: previous.keys) { previous[$0] != nil }
        if let failure = writer.finish(removing: delta.gone).failure {
            throw CLIError(.failure, "albumfs index: cannot write \(index.path): \(failure)")
        }
        // The library folder's device, for a mount that later finds it empty (its disk unmounted).
        if !survey.unlisted.contains("") { availability.note(listed: true, why: "") }
        try? index.foldWAL()  // the file alone then holds every row, whoever still holds the index
        let photos = survey.reused.compactMap(scanner.photo(from:)) + survey.moved.compactMap(\.photo) + read.compactMap(\.photo)
        let report = ScanReport(photos: photos, files: files, folderProblems: survey.folderProblems)
        print("\(report.photos.count) photos, \(files.count) files, \(read.count) read, \(delta.gone.count) removed, "
              + "\(report.problems.count) problems in \(Date().timeIntervalSince(started).fixed(2)) s "
              + "(\(delta.added.count) added, \(delta.changed.count) changed, \(delta.moved.count) moved); index: \(index.path)")
        return ExitCode.success.rawValue
    }
}
