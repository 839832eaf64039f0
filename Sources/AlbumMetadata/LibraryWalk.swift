import AlbumCore
import AlbumSystem
import Glibc

/// The walk of a library folder: which regular files it holds, found the way a survey
/// (`LibraryScanner.survey`) needs them: folders listed beneath the library's folder through no
/// link, names sorted, what is passed over said, each file reached once.
struct LibraryWalk {
    /// The library's folder.
    let root: String
    /// An absolute folder never to enter: the mount point, when it lies inside the library.
    let excluded: String?
    /// What each filesystem's inode numbers are worth.
    let inodes: InodeNumbers
    /// Where the folders holding files named like sidecars are noted as they are listed.
    let sidecarFolders: SidecarFolders

    /// Folder names that hold thumbnails, NAS metadata or trash, never photos of the library.
    static var skippedNames: Set<String> { LibraryScanner.skippedNames }

    struct Found {
        var path: String
        var identity: FileIdentity
        /// ctime: a copy that keeps the original mtime (`cp -p`) still shows when it was written.
        var changed: Timestamp
    }

    /// What a walk could not do.
    struct WalkTrouble {
        /// Folders that could not be listed and names skipped, for `.albumfs/errors`.
        var problems: [ScanProblem] = []
        /// Folders that are there but could not be listed (relative; "" is the library's own):
        /// what was known below them is kept, not taken for deleted. A folder on a failing disk
        /// or a share gone away (EIO), one made unreadable (EACCES), or the library's own folder
        /// gone (a disk not mounted, a folder renamed) has not lost its photos.
        var unlisted: [String] = []
        /// What the walk passed over in the folders it listed: hidden files and folders, system
        /// folders, links, hard links' second names, for `.albumfs/not-shown`.
        var passedOver: [NotShownFile] = []
        /// The folders taken as they were (`Skipping`): what was passed over in them is as it was.
        var unchangedFolders: [String] = []

        mutating func cannotList(_ folder: String, _ code: Int32) {
            problems.append(ScanProblem(relativePath: folder.isEmpty ? "." : folder,
                                        message: "cannot list folder: " + String(cString: strerror(code))))
            unlisted.append(folder)
        }
    }

    /// How a walk remembers folders' times, and takes the known files of a folder unchanged since.
    /// (A class: the walk's folders note their times in it as it goes down, on the walk's thread;
    /// the survey takes the times out once the walk is over.)
    final class Skipping {
        var times: FolderTimes
        /// The known files directly in a folder, taken as they were; nil when the folder is to be
        /// listed all the same (a file in it could not be read, and is read again).
        let take: (String) -> [IndexedFile]?

        init(times: FolderTimes, take: @escaping (String) -> [IndexedFile]?) {
            self.times = times
            self.take = take
        }
    }

    /// Depth-first from `start` (relative), names sorted, so the first path to a file (for links)
    /// is always the same. `onFolder` sees each folder's absolute path before it is listed.
    ///   - needsStat: whether a regular file (by relative path) must be stat'ed; when not, its
    ///     `Found` has the inode only (size -1), as `readdir` gives it.
    ///   - skipping: remembers each folder listed whole, and takes one unchanged since as it was
    ///     (its files are not visited: `take` has them).
    ///   - visit: each regular file, in walk order, as soon as it is found.
    func walk(from start: String = "", _ trouble: inout WalkTrouble, onFolder: (String) -> Void = { _ in },
              needsStat: (String) -> Bool = { _ in true }, skipping: Skipping? = nil, visit: (Found) -> Void) {
        var seenFolders = Set<FileKey>()
        var seenFiles = FilesSeen()
        var rootStat = stat()
        guard FileNameBytes.withCString(start.isEmpty ? root : root + "/" + start, { stat($0, &rootStat) }) == 0,
              (rootStat.st_mode & S_IFMT) == S_IFDIR else {
            // A subfolder gone (a live rescan of a folder just deleted) is simply gone; the
            // library's own folder gone is the library unavailable, not emptied.
            if start.isEmpty { trouble.cannotList("", errno == 0 ? ENOTDIR : errno) }
            return
        }
        // (The library's own folder may be reached through links: SOURCE is what the user named.
        // Every folder in it is opened beneath it, through no link: one put in place of a folder
        // during the walk is not entered.)
        let rootFD: Int32
        do { rootFD = try SourceOpening.root(root) } catch {
            if start.isEmpty { trouble.cannotList("", error.rawValue) }
            return
        }
        defer { close(rootFD) }
        var pending: [String] = [start]
        while let folder = pending.popLast() {
            let folderPath = folder.isEmpty ? root : root + "/" + folder
            if let skipping, let subfolders = takeUnchanged(folder, skipping, rootFD: rootFD, &seenFolders, &seenFiles) {
                trouble.unchangedFolders.append(folder)
                onFolder(folderPath)
                pending.append(contentsOf: subfolders.reversed())
                continue
            }
            let listedAt = Timestamp.now
            let problemsBefore = trouble.problems.count
            let dir: OpaquePointer
            switch Self.openFolder(folder, beneath: rootFD) {
            case .success(let opened): dir = opened
            case .failure(let error):
                // Deleted since its parent was listed, or replaced by a link: gone, nothing to
                // say. (The library's own folder, gone since the check above, is unavailable.)
                if folder.isEmpty || ![ENOENT, ENOTDIR, ELOOP].contains(error.rawValue) { trouble.cannotList(folder, error.rawValue) }
                continue
            }
            defer { closedir(dir) }
            var folderStat = stat()
            guard fstat(dirfd(dir), &folderStat) == 0 else {
                trouble.cannotList(folder, errno)
                continue
            }
            // A folder reached before by another path (a bind mount) is listed once, under the
            // first path. Told here, by the open folder, not by a stat of every subfolder while
            // its parent is listed: a cold scan then waits for no folder's inode before it hands
            // the first folder's files to the readers.
            guard seenFolders.insert(FileKey(folderStat)).inserted else { continue }
            // Only real inode numbers tell hard links (sshfs lists every entry as 4294967295).
            let realInodes = inodes.learn(folder: dirfd(dir), device: UInt64(folderStat.st_dev))
            onFolder(folderPath)
            let entries: [FolderEntry]
            switch listEntries(dir) {
            case .success(let listed): entries = listed
            case .failure(let error):
                trouble.cannotList(folder, error.rawValue)
                continue
            }
            let (distinct, shadowed) = Self.distinctNames(entries.sorted(by: { $0.name < $1.name }))
            sidecarFolders.listed(folder, names: distinct.lazy.map(\.name))
            for (name, kept) in shadowed {
                let rel = folder.isEmpty ? name : folder + "/" + name
                trouble.problems.append(ScanProblem(relativePath: rel,
                                                    message: "the name differs from \u{201C}\(kept)\u{201D} only in its Unicode form; skipped (rename one to show both)"))
                trouble.passedOver.append(NotShownFile(path: rel, reason: .unicodeTwin))
            }
            var subfolders: [String] = []
            let onlyOriginals = Self.isApplePhotoLibrary(folder)
            func enter(_ name: String, _ rel: String) {
                if !onlyOriginals || Self.appleOriginalsFolders.contains(name) {
                    subfolders.append(rel)
                } else {
                    trouble.passedOver.append(NotShownFile(path: rel, reason: .applePhotoLibraryFolder))
                }
            }
            func passOver(_ name: String, _ reason: NotShownReason) {
                trouble.passedOver.append(NotShownFile(path: folder.isEmpty ? name : Self.path(folder, name), reason: reason))
            }
            var saidUnlisted = false
            for entry in distinct {
                let (name, type, inode) = (entry.name, entry.type, entry.inode)
                // (Hidden: a byte test, not `hasPrefix`, which compares Characters; the skipped
                // names are folders', so a regular file is not hashed to look for it.)
                if name.utf8.first == UInt8(ascii: ".") || type == DT_LNK || (type != DT_REG && Self.skippedNames.contains(name)) {
                    // (The folders' own files are not counted: looking into them is what is spared.)
                    passOver(name, name.utf8.first == UInt8(ascii: ".") ? (type == DT_DIR ? .hiddenFolder : .hiddenFile)
                        : type == DT_LNK ? .link : .systemFolder)
                    continue
                }
                let rel = folder.isEmpty ? name : Self.path(folder, name)
                if let excluded, root + "/" + rel == excluded { continue }
                if type == DT_DIR {
                    enter(name, rel)
                    continue
                }
                if type == DT_REG && !needsStat(rel) {
                    let key = FileKey(device: UInt64(folderStat.st_dev), inode: inode)
                    if !realInodes || seenFiles.firstSight(key) {
                        visit(Found(path: rel, identity: FileIdentity(inode: realInodes ? inode : 0, size: -1, mtime: Timestamp(seconds: 0)),
                                           changed: Timestamp(seconds: 0)))
                    } else {
                        passOver(name, .hardLink)
                    }
                    continue
                }
                var st = stat()
                // Relative to the open folder: no path walk from `/` for every file.
                guard FileNameBytes.withCString(name, { fstatat(dirfd(dir), $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 else {
                    // Vanished while walking: gone. Any other failure (a folder that can be read
                    // but not searched, an I/O error) leaves its entries unknown, not gone.
                    if errno != ENOENT && !saidUnlisted {
                        trouble.cannotList(folder, errno)
                        saidUnlisted = true
                    }
                    continue
                }
                // Links are never followed: one out of SOURCE would leave the library, one inside it
                // would show the same photos twice (or loop), and a rescan of one folder could not
                // tell which path came first.
                if (st.st_mode & S_IFMT) == S_IFLNK {
                    passOver(name, .link)
                    continue
                }
                switch st.st_mode & S_IFMT {
                case S_IFDIR:
                    enter(name, rel)  // (a filesystem without d_type)
                case S_IFREG:
                    if !inodes.areReal(on: UInt64(st.st_dev)) || seenFiles.firstSight(FileKey(st)) {
                        visit(Found(path: rel, identity: inodes.identity(st),
                                           changed: Timestamp(seconds: Int64(st.st_ctim.tv_sec), nanoseconds: Int(st.st_ctim.tv_nsec))))
                    } else {
                        passOver(name, .hardLink)
                    }
                default:
                    passOver(name, .notRegular)  // FIFOs, sockets, devices: never photos, never opened
                }
            }
            if let skipping, !saidUnlisted, trouble.problems.count == problemsBefore {
                skipping.times.listed(folder, fd: dirfd(dir), folderStat, subfolders: subfolders, listedAt: listedAt)
            }
            pending.append(contentsOf: subfolders.reversed())
        }
    }

    /// The subfolders of a folder the walk takes as it was (`FolderTimes.unchanged`, by a `stat`
    /// beneath the library's folder: every folder above it was listed or is unchanged, so the
    /// path leads where it led), its known files taken (`skipping.take`) and marked seen for
    /// hard links; nil when it is to be listed.
    private func takeUnchanged(_ folder: String, _ skipping: Skipping, rootFD: Int32,
                               _ seenFolders: inout Set<FileKey>, _ seenFiles: inout FilesSeen) -> [String]? {
        guard skipping.times.skipping else { return nil }
        var st = stat()
        guard FileNameBytes.withCString(folder.isEmpty ? "." : folder, { fstatat(rootFD, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0,
              st.st_mode & S_IFMT == S_IFDIR, let subfolders = skipping.times.unchanged(folder, st) else { return nil }
        // (A folder reached before by another path, a bind mount: nothing more, as when listed.)
        guard seenFolders.insert(FileKey(st)).inserted else { return [] }
        guard let files = skipping.take(folder) else {
            skipping.times.list(folder)
            seenFolders.remove(FileKey(st))
            return nil
        }
        if inodes.areReal(on: UInt64(st.st_dev)) {
            for file in files where file.identity.inode != 0 {
                _ = seenFiles.firstSight(FileKey(device: UInt64(st.st_dev), inode: file.identity.inode))
            }
        }
        return subfolders
    }

    /// `folder/name`, built in one allocation (`folder + "/" + name` made two: a path per file).
    static func path(_ folder: String, _ name: String) -> String {
        var path = ""
        path.reserveCapacity(folder.utf8.count + 1 + name.utf8.count)
        path += folder
        path += "/"
        path += name
        return path
    }

    /// Whether `folder` is an Apple photo library package (Photos, iPhoto, Aperture: a folder on
    /// any disk a Mac wrote): beside the originals it holds a JPEG preview or thumbnail of every
    /// photo (`resources/derivatives`, `Previews`, `Thumbnails`), which are no photos of the library.
    static func isApplePhotoLibrary(_ folder: String) -> Bool {
        let name = folder.nameAfterLastSlash.lowercased()
        return [".photoslibrary", ".photolibrary", ".aplibrary"].contains { name.hasSuffix($0) }
    }

    /// The folders of an Apple photo library that hold its originals (Photos since macOS 10.15;
    /// older Photos, iPhoto and Aperture).
    static let appleOriginalsFolders: Set<String> = ["originals", "Masters"]

    /// `sorted` (by name) without the names equal as text to another while their bytes differ: a
    /// name written composed (NFC, as Linux tools do) beside the same name decomposed (NFD, as
    /// macOS wrote it). Swift compares strings by their Unicode form, so every path, name and key
    /// here would take the two for one: one of them would vanish without a word. The first in
    /// byte order is kept; each other is returned with the name it lost to.
    static func distinctNames(_ sorted: [FolderEntry]) -> (distinct: [FolderEntry], shadowed: [(name: String, kept: String)]) {
        var distinct: [FolderEntry] = []
        distinct.reserveCapacity(sorted.count)
        var shadowed: [(name: String, kept: String)] = []
        var start = 0
        while start < sorted.count {
            var end = start + 1
            while end < sorted.count && sorted[end].name == sorted[start].name { end += 1 }
            if end - start == 1 {
                distinct.append(sorted[start])
            } else {
                let run = sorted[start..<end].sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
                distinct.append(run[0])
                shadowed += run.dropFirst().map { ($0.name, run[0].name) }
            }
            start = end
        }
        return (distinct, shadowed)
    }

    /// A folder of the library open for listing (`SourceOpening.folder`: beneath the library's
    /// folder `rootFD`, through no link, which fails with ENOTDIR or ELOOP; "" is that folder
    /// itself), or why not.
    static func openFolder(_ relativePath: String, beneath rootFD: Int32) -> Result<OpaquePointer, Errno> {
        let fd: Int32
        do throws(Errno) {
            fd = try SourceOpening.folder(relativePath.isEmpty ? "." : relativePath, relativeTo: rootFD)
        } catch {
            return .failure(error)
        }
        guard let dir = fdopendir(fd) else {
            let failure = Errno.current
            close(fd)
            return .failure(failure)
        }
        return .success(dir)
    }

    /// One entry of a folder as `readdir` gives it: its name, `d_type` and `d_ino`.
    struct FolderEntry {
        let name: String
        let type: UInt8
        let inode: UInt64
    }

    /// The files a walk has seen, by device and inode: a hard link's second name is not a file of
    /// its own. Inode 0 is no file's number (a filesystem that has none): never taken as seen.
    struct FilesSeen {
        private var keys = Set<FileKey>()
        /// Whether this is the first time the walk meets `key`'s file.
        mutating func firstSight(_ key: FileKey) -> Bool { key.inode == 0 || keys.insert(key).inserted }
    }

    struct FileKey: Hashable {
        let device: UInt64
        let inode: UInt64
        init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    /// The entries of an open folder, or why they cannot all be listed. A name that is not valid
    /// UTF-8 keeps its bytes (`FileNameBytes`).
    func listEntries(_ dir: OpaquePointer) -> Result<[FolderEntry], Errno> {
        var names: [FolderEntry] = []
        errno = 0
        while let entry = readdir(dir) {
            let name = direntName(entry)
            if name == "." || name == ".." { continue }
            let (type, inode) = direntTypeAndInode(entry)
            names.append(FolderEntry(name: name, type: type, inode: inode))
        }
        // readdir answers NULL at the end and on an error; only an error sets errno.
        return errno == 0 ? .success(names) : .failure(.current)
    }
}
