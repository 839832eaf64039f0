import AlbumCore
import AlbumSystem
import Glibc

/// Reads the header of each file a scan reads (opened beneath the library's folder through no
/// link), a chunk at a time through io_uring or one by one, and says what the file is: a photo
/// with its evidence (its sidecar's read beside it), a file ignored, or a problem; and, where
/// `duplicates/` wants them, the content hashes of a file its first read held whole.
struct HeaderReader {
    /// The library's folder.
    let root: String
    /// The formats shown (`ScanRules.formats`): a file named as one of them that cannot be read
    /// is a damaged photo.
    let formats: Set<ImageFormat>
    let inodes: InodeNumbers
    let sidecarFolders: SidecarFolders
    let hashesWhileReading: HashesWhileReading?

    /// Reads one file's header: a photo with its evidence, an ignored file, or a problem.
    /// - Parameter rootFD: the library folder, open: files are opened relative to it (no path
    ///   walk from `/` per file); -1 opens by absolute path.
    /// - Returns: nil when the file is no longer there (deleted, or replaced by a link, since the
    ///   walk): it is not part of the library, as the next walk will agree.
    /// - Parameter digests: gets the file's content hashes where `hashesWhileReading` wants them.
    func examine(_ relativePath: String, identity walked: FileIdentity, rootFD: Int32 = -1,
                 digests: inout [HashesWhileReading.Digest]) -> IndexedFile? {
        switch open(relativePath, identity: walked, rootFD: rootFD) {
        case .settled(let file):
            return file
        case .open(let open):
            let size = Int64(open.status.st_size)
            let read = Result { () throws(Errno) in try open.file.read(at: 0, count: MetadataReader.firstReadLength(size: size, name: relativePath)) }
            let examined = read.flatMap { first in
                first.withUnsafeBytes { bytes in
                    Result { () throws(Errno) -> IndexedFile in
                        var evidence = PhotoEvidence()
                        let format = try MetadataReader.read(open.file, first: bytes, size: size, into: &evidence)
                        let file = understood(format, consume evidence, open, walked: walked, rootFD: rootFD)
                        if let digest = digestWhileReading(bytes, size: size, of: file) { digests.append(digest) }
                        return file
                    }
                }
            }
            switch examined {
            case .success(let file): return file
            case .failure(let error): return failed(error, relativePath, walked: walked)
            }
        }
    }

    /// `duplicates/`'s hashes of `file` from `first`, its first read, where that read it whole
    /// and its size was seen before (`HashesWhileReading`); nil otherwise.
    private func digestWhileReading(_ first: UnsafeRawBufferPointer, size: Int64, of file: IndexedFile) -> HashesWhileReading.Digest? {
        guard let hashes = hashesWhileReading, case .photo = file.kind, size > 0, first.count == size, hashes.sizeSeenBefore(size) else { return nil }
        return HashesWhileReading.digest(first, of: file)
    }

    /// `examine` for several files at once: all opened, their first blocks read together through
    /// `ring` (at most `ring.capacity` files), then each understood. Results in `items`' order.
    func examine(_ items: some Collection<(path: String, identity: FileIdentity)>, rootFD: Int32, ring: ReadRing,
                 digests: inout [HashesWhileReading.Digest]) -> [IndexedFile?]? {
        var results: [IndexedFile?] = []
        results.reserveCapacity(items.count)
        var opened: [Opened] = []
        var fds: [Int32] = [], lengths: [Int] = []
        opened.reserveCapacity(items.count)
        fds.reserveCapacity(items.count)
        lengths.reserveCapacity(items.count)
        for (position, item) in items.enumerated() {
            switch open(item.path, identity: item.identity, rootFD: rootFD) {
            case .settled(let file):
                results.append(file)
            case .open(let open):
                results.append(nil)
                fds.append(open.file.fd)
                lengths.append(MetadataReader.firstReadLength(size: Int64(open.status.st_size), name: open.relativePath))
                opened.append(Opened(position: position, open: open, walked: item.identity))
            }
        }
        let read = ring.readStarts(fds: fds, lengths: lengths) { i, first in
            let position = opened[i].position
            do throws(Errno) {
                var evidence = PhotoEvidence()
                let bytes = try first.get(), size = Int64(opened[i].open.status.st_size)
                let format = try MetadataReader.read(opened[i].open.file, first: bytes, size: size, into: &evidence)
                let file = understood(format, consume evidence, opened[i].open, walked: opened[i].walked, rootFD: rootFD)
                if let digest = digestWhileReading(bytes, size: size, of: file) { digests.append(digest) }
                results[position] = file
            } catch {
                results[position] = failed(error, opened[i].open.relativePath, walked: opened[i].walked)
            }
        }
        return read ? results : nil
    }

    /// A file of a chunk open for its header read, and where it is in the chunk. (A struct read in
    /// place, not a tuple: arrays of tuples are copied element by element through the runtime's
    /// generic tuple code.)
    private struct Opened {
        let position: Int
        let open: OpenFile
        let walked: FileIdentity
    }

    /// A file open for its header read, with what `fstat` said of it.
    struct OpenFile {
        let relativePath: String
        let file: SourceFile
        let status: stat
    }

    enum Opening {
        /// Known without reading: not a regular file, unreadable, or gone (nil).
        case settled(IndexedFile?)
        case open(OpenFile)
    }

    /// Opens a file for its header read, or says what it is without one.
    func open(_ relativePath: String, identity walked: FileIdentity, rootFD: Int32) -> Opening {
        do {
            let file = try rootFD >= 0 ? SourceFile(path: relativePath, in: rootFD) : SourceOpening.withRoot(root) { fd throws(Errno) in try SourceFile(path: relativePath, in: fd) }
            let st = try file.status()
            guard (st.st_mode & S_IFMT) == S_IFREG else {
                return .settled(IndexedFile(relativePath: relativePath, identity: inodes.identity(st), kind: .ignored))
            }
            // Longer than the first read: the kernel's readahead would read past what is asked.
            if Int64(st.st_size) > Int64(MetadataReader.firstBlock) { file.readsOnlyWhatIsAsked() }
            return .open(OpenFile(relativePath: relativePath, file: file, status: st))
        } catch {
            return .settled(failed(error, relativePath, walked: walked))
        }
    }

    /// What a read header makes of a file: from the format read (nil: the content is no image
    /// the scan knows) and its evidence, moved into the record.
    private func understood(_ format: ImageFormat?, _ evidence: consuming PhotoEvidence, _ open: OpenFile, walked: FileIdentity,
                            rootFD: Int32) -> IndexedFile {
        let relativePath = open.relativePath
        let identity = inodes.identity(open.status)
        var evidence = evidence
        evidence.access = FileAccess(open.status)
        if let format {
            withSidecar(&evidence, of: relativePath, rootFD: rootFD)
            // (Only a photo its content made has it: `FileRows.holds` takes that for the sign
            // of one, which may stand for a file of another name.)
            let changed = Timestamp(seconds: Int64(open.status.st_ctim.tv_sec), nanoseconds: Int(open.status.st_ctim.tv_nsec))
            return IndexedFile(relativePath: relativePath, identity: identity, kind: .photo(format, evidence), changedWhenRead: changed)
        }
        let hint = NameHint(relativePath, formats: formats)
        // Too short to hold a signature: a damaged photo if its name says so.
        if hint.likelyPhoto && open.status.st_size < FormatSniffer.headerLength {
            var e = PhotoEvidence()
            e.access = FileAccess(open.status)
            e.problems.append(open.status.st_size == 0 ? Unrenderable.empty : Unrenderable.tooShort)
            return IndexedFile(relativePath: relativePath, identity: identity, kind: .photo(hint.guessed, e))
        }
        // (A video's extension on a file of sound alone, an `.mp4` of music, is no damage.)
        return IndexedFile(relativePath: relativePath, identity: identity,
                           kind: hint.likelyPhoto && hint.guessed != .video ? .problem("not a JPEG, PNG or HEIF image") : .ignored)
    }

    /// What a file that could not be opened or read is: nil when it is gone.
    private func failed(_ error: Errno, _ relativePath: String, walked: FileIdentity) -> IndexedFile? {
        if error == .notFound || error == .notDirectory || error.rawValue == ELOOP { return nil }
        // A walk that did not stat the file has no size or mtime for it: ask now.
        var identity = walked
        var st = stat()
        if identity.size < 0 {
            guard FileNameBytes.withCString(root + "/" + relativePath, { lstat($0, &st) }) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
            identity = inodes.identity(st)
        }
        let hint = NameHint(relativePath, formats: formats)
        // Unreadable: a photo by its name stays listed (dated by mtime) so the damage shows.
        guard hint.likelyPhoto else { return IndexedFile(relativePath: relativePath, identity: identity, kind: .problem(ReadFailure.message(error))) }
        var e = PhotoEvidence()
        e.problems.append(ReadFailure.message(error))
        return IndexedFile(relativePath: relativePath, identity: identity, kind: .photo(hint.guessed, e))
    }

    /// The photo's evidence with its sidecar's (`evidence.sidecar`), read beneath `rootFD` (-1:
    /// the library's folder opened here) within the kind's cap. A sidecar that cannot be read
    /// or says nothing is a problem of the photo, said with its name; the photo keeps its date.
    func withSidecar(_ evidence: inout PhotoEvidence, of relativePath: String, rootFD: Int32) {
        guard let (path, kind) = sidecarFolders.sidecar(of: relativePath) else { return }
        let limit = SidecarReading.sizeLimit(kind)
        let bytes: [UInt8]
        do throws(Errno) {
            let file = try rootFD >= 0 ? SourceFile(path: path, in: rootFD)
                : SourceOpening.withRoot(root) { fd throws(Errno) in try SourceFile(path: path, in: fd) }
            bytes = try file.read(at: 0, count: limit + 1)
        } catch {
            // Gone since the listing: no sidecar (its folder is listed again, and the photo read).
            if error != .notFound { evidence.problems.append("sidecar \(path.nameAfterLastSlash): " + ReadFailure.message(error)) }
            return
        }
        switch SidecarReading.evidence(bytes, kind: kind, relativePath: path) {
        case .success(let sidecar): evidence.sidecar = sidecar
        case .failure(let failure): evidence.problems.append("sidecar \(path.nameAfterLastSlash): \(failure)")
        }
    }
}
