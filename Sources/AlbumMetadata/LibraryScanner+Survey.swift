import AlbumCore
import AlbumSystem
import Dispatch
import FoundationEssentials
import Glibc

/// The survey: the walk of the library and which files the index or the mount already knows, with
/// what a scan hands on (files to read, files found at new paths, files still being written).
extension LibraryScanner {
    /// A file known at another path, found here unchanged (its folder renamed or moved): its
    /// record and photo under the new path, and the path of the row that stands for it.
    public struct MovedFile: Sendable {
        public var from: String
        public var file: IndexedFile
        public var photo: Photo?
        public var move: FileMove { FileMove(from: from, to: file.relativePath, identity: file.identity) }
    }

    /// The first half of a scan: the walk, and which files the index already knows unchanged.
    public struct Survey: Sendable {
        public var reused: [IndexedFile]
        /// Files known at another path (`survey`'s move lookup), under their new path, unread:
        /// decided, and slim (their rows went to `MoveLookup.found`).
        public var moved: [MovedFile] = []
        public var toRead: [(path: String, identity: FileIdentity)]
        public var deferred: [String]
        public var folderProblems: [ScanProblem]
        /// Folders that are there but could not be listed ("" the library's own folder): what was
        /// known below them is not gone.
        public var unlisted: [String]
        /// What the walk passed over in the folders it listed (hidden files, links, system
        /// folders: `LibraryWalk.WalkTrouble.passedOver`), and the folders it took without listing them: what
        /// was passed over in those stays as the last listing found it.
        public var passedOver: [NotShownFile] = []
        public var unchangedFolders: [String] = []
        /// The folder times the walk noted (`SurveyRequest.folders`), handed back for the next
        /// walk; nil when it was given none.
        public var folderTimes: FolderTimes?
        public var filesSeen: Int { reused.count + moved.count + toRead.count + deferred.count }

        /// What a walk of the library would say when its folder is there but cannot be scanned
        /// now (`why`: its disk is not mounted): nothing found, and everything known kept.
        public static func unavailable(_ why: String) -> Survey {
            Survey(reused: [], toRead: [], deferred: [], folderProblems: [ScanProblem(relativePath: ".", message: why)], unlisted: [""])
        }
    }

    /// Whether the file `found` at a new path is the one `row` (another path's, of the same
    /// identity) was read from, unchanged since: its ctime is still the one it had when read. A
    /// folder renamed leaves its files' ctimes as they were, so its photos are taken; a file that
    /// was itself renamed or moved has a new ctime, as has one rewritten in place with its size and
    /// mtime kept (`exiftool -P -overwrite_original_in_place '-AllDates+=1' '-FileName<DateTimeOriginal'`
    /// does both in one go), and a new file given a deleted one's inode number, size and mtime
    /// (`rm a.jpg; cp -p b.jpg c.jpg`: ext4 hands freed numbers out again at once): those are read.
    /// A row without that ctime (not a photo, or from before index schema 7) holds only for a file
    /// of the same name, whose identity is all there is to go by, as at its own path.
    func isFile(read row: IndexedFile, found: LibraryWalk.Found) -> Bool {
        guard row.changedWhenRead != nil else { return row.relativePath.nameAfterLastSlash == found.path.nameAfterLastSlash }
        return row.unchangedSinceRead(changed: found.changed)
    }

    /// `photo` of a file now at `path`, same content and name (its folder renamed or moved): the
    /// same decisions, but for the folders' (`ScreenshotRules.decision(_:inFolders:)`).
    public func photo(_ photo: Photo, movedTo path: String) -> Photo {
        var moved = photo
        moved.relativePath = path
        moved.screenshot = rules.screenshots.decision(photo.screenshot, inFolders: moved.folders)
        return moved
    }

    /// Walks the request's folder (relative, "" for the whole library): files whose inode, size
    /// and mtime match `previous` are reused without any read. Files whose mtime or ctime is after
    /// `settledBefore` are deferred (they may still be being written); `complete` names files
    /// known to be written completely (closed after writing): taken at once.
    /// `moves` tells what is known of files new at their path by their identity, asked
    /// `lookupBatch` files at a time: such a file (its folder renamed, moved or renamed) is not
    /// read; its row goes to `moves.found` under the new path, and is kept decided and slim,
    /// a batch at a time, as reads are (held whole until the walk ends, the rows of a big folder
    /// renamed would raise the peak RSS).
    /// `folders` remembers the times of the folders listed, and may take those unchanged since
    /// the last walk as they were: their known files reused, unlooked at (`FolderTimes`).
    /// `batches`: the files to read, handed off `size` at a time as the walk finds them.
    public func survey(_ request: SurveyRequest = SurveyRequest(), previous: some KnownFiles,
                       batches: (size: Int, handOff: (ArraySlice<(path: String, identity: FileIdentity)>) -> Void)? = nil) -> Survey {
        let (folder, settledBefore, complete, moveLookup, folders) = (request.folder, request.settledBefore, request.complete,
                                                                      request.moves, request.folders)
        var trouble = LibraryWalk.WalkTrouble()
        var survey = Survey(reused: [], toRead: [], deferred: [], folderProblems: [], unlisted: [])
        var handedOff = 0
        func place(_ f: LibraryWalk.Found, known: IndexedFile?) {
            if let settledBefore, Self.mayBeBeingWritten(max(f.identity.mtime, f.changed), settledBefore: settledBefore),
               !complete.contains(f.path) {
                survey.deferred.append(f.path)
            } else if let known, known.identity == f.identity, known.unchangedSinceRead(changed: f.changed) {
                survey.reused.append(known)
            } else {
                survey.toRead.append((f.path, f.identity))
                // Reading can start while the walk goes on.
                if let batches, survey.toRead.count - handedOff >= batches.size {
                    batches.handOff(survey.toRead[handedOff...])
                    handedOff = survey.toRead.count
                }
            }
        }
        // Files new or changed at their path, waiting to be looked up as moves together.
        var unknown: [LibraryWalk.Found] = []
        func lookUpMoves() {
            guard let moveLookup, !unknown.isEmpty else { return }
            if let held = request.held, unknown.count >= held.minimumBatch { takeHeld(held) }
            guard !unknown.isEmpty else { return }
            var found: [IndexedFile] = [], from: [String] = []
            for (f, row) in zip(unknown, moveLookup.lookup(unknown.map { ($0.path, $0.identity) })) {
                if var row, isFile(read: row, found: f) {
                    // Read whole already under its old path, and unchanged since: nothing to wait
                    // for (a folder just renamed has files whose ctime is as recent as their copy).
                    from.append(row.relativePath)
                    row.relativePath = f.path
                    found.append(row)
                } else {
                    place(f, known: nil)
                }
            }
            unknown.removeAll(keepingCapacity: true)
            guard !found.isEmpty else { return }
            moveLookup.found(found)
            survey.moved += zip(from, found).map { MovedFile(from: $0, file: $1.slimmed, photo: photo(from: $1)) }
        }
        // Takes from `held` the unknown files it holds under another path and the same name,
        // unchanged since read (as `isFile` tells for a row); leaves the others in `unknown`.
        func takeHeld(_ held: KnownMoves) {
            var moves: [FileMove] = []
            unknown.removeAll { f in
                guard let (from, file, photo) = held.file(f.identity), from != f.path, file.identity == f.identity,
                      from.nameAfterLastSlash == f.path.nameAfterLastSlash, isFile(read: file, found: f) else { return false }
                var moved = file
                moved.relativePath = f.path
                let found = MovedFile(from: from, file: moved, photo: photo.map { self.photo($0, movedTo: f.path) })
                survey.moved.append(found)
                moves.append(found.move)
                return true
            }
            if !moves.isEmpty { held.moved(moves) }
        }
        // A file seen for the first time in a scan that does not wait for files to settle needs
        // no stat from the walk (reading it fstat()s the open file anyway), unless it may be known
        // at another path by its identity.
        let statNew = settledBefore != nil || moveLookup != nil
        var times = folders?.times
        times?.begin(skipping: folders?.skipping ?? false, mustList: folders?.mustList ?? [])
        // (The walk's copy alone from here: `times` let go, so noting a folder copies nothing.)
        let skipping = times.take().map { LibraryWalk.Skipping(times: $0, take: takingKnown(previous) { survey.reused += $0 }) }
        walker.walk(from: folder, &trouble, onFolder: request.onFolder, needsStat: { statNew || (!previous.isEmpty && previous.known($0) != nil) },
             skipping: skipping) { f in
            let known = previous.known(f.path)
            // New at its path, or another file there now (one of that name moved over it: `mv x/b.jpg b.jpg`).
            if moveLookup != nil, known?.identity != f.identity {
                unknown.append(f)
                if unknown.count >= Self.lookupBatch { lookUpMoves() }
            } else {
                place(f, known: known)
            }
        }
        lookUpMoves()
        readingAgainPhotosOfChangedSidecars(&survey, previous: previous, under: folder)
        if let batches, handedOff < survey.toRead.count { batches.handOff(survey.toRead[handedOff...]) }
        if var times = skipping?.times {
            skipping?.times = FolderTimes(racyMargin: times.racyMargin)
            // A folder with a file still being written is listed again, whatever its times.
            for path in survey.deferred { times.forget(path.folderBeforeLastSlash) }
            times.end(under: folder)
            survey.folderTimes = times
        }
        survey.folderProblems = trouble.problems
        survey.unlisted = trouble.unlisted
        survey.passedOver = trouble.passedOver
        survey.unchangedFolders = trouble.unchangedFolders
        return survey
    }

    /// What a walk takes of a folder unchanged since the last (`Skipping.take`): the files
    /// `previous` knows directly in it, handed to `reuse`; nil, and nothing handed, when one of
    /// them is to be read again (it could not be read: `known` has nothing for it).
    func takingKnown(_ previous: some KnownFiles, reuse: @escaping ([IndexedFile]) -> Void) -> (String) -> [IndexedFile]? {
        var byFolder: [Substring: [String]]?
        return { folder in
            if byFolder == nil { byFolder = previous.pathsByFolder() }
            var files: [IndexedFile] = []
            for path in byFolder?[Substring(folder)] ?? [] {
                guard let file = previous.known(path) else { return nil }
                files.append(file)
            }
            reuse(files)
            return files
        }
    }
}
