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
        // The empty folder a disk leaves when it is unmounted is no emptied library: as a mount
        // does, refuse it (scanned, it removed every row: the next mount read everything again).
        var availability = LibraryAvailability(root: source, index: index, log: { Log.line($0) })
        if let why = availability.diskNotMounted() {
            throw CLIError(.badSource, "albumfs index: \(source): \(why); the index is left as it is")
        }
        // The mount's scan, to the index alone: what the index knows, then the pipeline's
        // survey, reads (written a batch at a time while the next are read) and merge.
        let pipeline = ScanPipeline(scanner: scanner, index: index,
                                    known: ScanPipeline.known(from: index, scanner: scanner) { Log.line("albumfs index: " + $0) })
        let writer = IndexWriter(index: index, log: { _ in })  // its failure is the command's, below
        let bar = isatty(2) == 1 ? ProgressLine(label: "indexing", bar: true) : nil
        var request = ScanRequest(folder: "", writer: writer, moveLookup: pipeline.moveLookup(saving: writer))
        request.progress = { done, total in bar?.update(done: done, total: total, finished: false) }
        let found = pipeline.scan(request)
        let reads = found.survey.toRead.count
        bar?.update(done: reads, total: reads, finished: true)
        writer.save(moves: found.heldMoves)
        if let failure = writer.finish(removing: found.delta.gone).failure {
            throw CLIError(.failure, "albumfs index: cannot write \(index.path): \(failure)")
        }
        // The library folder's device, for a mount that later finds it empty (its disk unmounted).
        if !found.survey.unlisted.contains("") { availability.note(listed: true, why: "") }
        try? index.foldWAL()  // the file alone then holds every row, whoever still holds the index
        let report = pipeline.known.report(folderProblems: found.survey.folderProblems)
        let delta = found.delta
        print("\(report.photos.count) photos, \(report.filesSeen) files, \(reads) read, \(delta.gone.count) removed, "
              + "\(report.problems.count) problems in \(Date().timeIntervalSince(started).fixed(2)) s "
              + "(\(delta.added.count) added, \(delta.changed.count) changed, \(delta.moved.count) moved); index: \(index.path)")
        return ExitCode.success.rawValue
    }
}
