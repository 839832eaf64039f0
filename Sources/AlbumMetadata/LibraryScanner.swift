import AlbumCore
import Dispatch
import Foundation
import Glibc

/// How the scanner decides dates and screenshots.
public struct ScanRules: Sendable {
    public var dates: CaptureDateRules
    public var screenshots: ScreenshotRules
    /// The zone a capture time without an offset is read in (the daemon's local zone).
    public var zone: TimeZone

    public init(dates: CaptureDateRules, screenshots: ScreenshotRules = ScreenshotRules(), zone: TimeZone = .current) {
        self.dates = dates
        self.screenshots = screenshots
        self.zone = zone
    }
}

/// A file that could not be read or understood, and why.
public struct ScanProblem: Sendable, Equatable {
    public var relativePath: String
    public var message: String
}

/// What a scan found.
public struct ScanReport: Sendable {
    public var photos: [Photo]
    /// Regular files looked at (photos or not).
    public var filesSeen: Int
    public var problems: [ScanProblem]
}

/// Walks a library folder and reads every photo's header, on every core.
///
/// Hidden entries and thumbnail/system folders are skipped. Symlinks are followed only when they
/// resolve inside the library; every folder and file is visited once by (device, inode), so link
/// loops and links to folders already seen cost nothing.
public struct LibraryScanner: Sendable {
    public let root: String
    public let rules: ScanRules

    /// Folder names that hold thumbnails, NAS metadata or trash, never photos of the library.
    public static let skippedNames: Set<String> = [
        "@eaDir", "@__thumb", "#recycle", "#snapshot", "$RECYCLE.BIN", "System Volume Information",
        "lost+found",
    ]
    /// Extensions of files that are photos even when their content cannot be read to prove it.
    public static let photoExtensions: Set<String> = ["jpg", "jpeg", "jpe", "png"]

    /// An absolute folder never to enter: the mount point, when it lies inside the library.
    public let excluded: String?

    public init(root: String, rules: ScanRules, excluding excluded: String? = nil) {
        self.root = root
        self.rules = rules
        self.excluded = excluded
    }

    public func scan() -> ScanReport {
        var problems: [ScanProblem] = []
        let files = walk(&problems)
        var results = [FileResult?](repeating: nil, count: files.count)
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let chunk = max(64, (files.count + workers * 8 - 1) / max(1, workers * 8))
        let chunks = (files.count + chunk - 1) / chunk
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: chunks) { c in
                for i in (c * chunk)..<min(files.count, (c + 1) * chunk) {
                    out[i] = examine(files[i])
                }
            }
        }
        var photos: [Photo] = []
        photos.reserveCapacity(files.count)
        for result in results {
            switch result {
            case .photo(let p)?:
                photos.append(p)
                if !p.problems.isEmpty {
                    problems.append(ScanProblem(relativePath: p.relativePath, message: p.problems.joined(separator: "; ")))
                }
            case .problem(let p)?: problems.append(p)
            case .ignored?, nil: break
            }
        }
        return ScanReport(photos: photos, filesSeen: files.count, problems: problems)
    }

    enum FileResult {
        case photo(Photo)
        case problem(ScanProblem)
        case ignored
    }

    /// Reads one file's header and applies the rules.
    func examine(_ relativePath: String) -> FileResult {
        let path = root + "/" + relativePath
        let name = relativePath.split(separator: "/").last.map(String.init) ?? relativePath
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        let likelyPhoto = name.contains(".") && Self.photoExtensions.contains(ext)
        var st = stat()
        do {
            let file = try SourceFile(path: path)
            st = try file.status()
            guard (st.st_mode & S_IFMT) == S_IFREG else { return .ignored }
            if let meta = try MetadataReader.read(file) {
                return .photo(photo(relativePath, meta.format, meta.evidence, st))
            }
            // Too short to hold a signature: a damaged photo if its name says so.
            if likelyPhoto && st.st_size < FormatSniffer.headerLength {
                var e = PhotoEvidence()
                e.problems.append(st.st_size == 0 ? "empty file" : "too short to be an image")
                return .photo(photo(relativePath, ext == "png" ? .png : .jpeg, e, st))
            }
            return likelyPhoto ? .problem(ScanProblem(relativePath: relativePath, message: "not a JPEG or PNG")) : .ignored
        } catch {
            guard likelyPhoto, lstat(path, &st) == 0 else {
                return .problem(ScanProblem(relativePath: relativePath, message: String(cString: strerror(error.rawValue))))
            }
            var e = PhotoEvidence()
            e.problems.append("unreadable: " + String(cString: strerror(error.rawValue)))
            return .photo(photo(relativePath, ext == "png" ? .png : .jpeg, e, st))
        }
    }

    func photo(_ relativePath: String, _ format: ImageFormat, _ e: PhotoEvidence, _ st: stat) -> Photo {
        let mtime = Timestamp(seconds: Int64(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec))
        let identity = FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size), mtime: mtime)
        let parts = relativePath.split(separator: "/").map(String.init)
        let capture = rules.dates.decide(e, fileName: parts.last ?? relativePath, fileMtime: mtime)
        let shot = rules.screenshots.decide(e, fileName: parts.last ?? relativePath, folders: Array(parts.dropLast()))
        let orientation = e.orientation.flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
        return Photo(relativePath: relativePath, format: format, identity: identity, capture: capture,
                     captureInstant: capture.time.instant(in: rules.zone), screenshot: shot,
                     orientation: orientation, problems: e.problems)
    }

    /// Depth-first, names sorted, so the first path to a file (for links) is always the same.
    func walk(_ problems: inout [ScanProblem]) -> [String] {
        var files: [String] = []
        let rootReal = realPath(root) ?? root
        var seenFolders = Set<FileKey>()
        var seenFiles = Set<FileKey>()
        var rootStat = stat()
        guard stat(root, &rootStat) == 0 else { return [] }
        seenFolders.insert(FileKey(rootStat))
        var pending: [String] = [""]
        while let folder = pending.popLast() {
            let folderPath = folder.isEmpty ? root : root + "/" + folder
            guard let names = listNames(folderPath) else {
                problems.append(ScanProblem(relativePath: folder.isEmpty ? "." : folder,
                                            message: "cannot list folder: " + String(cString: strerror(errno))))
                continue
            }
            var subfolders: [String] = []
            for name in names.sorted() {
                if name.hasPrefix(".") || Self.skippedNames.contains(name) { continue }
                let rel = folder.isEmpty ? name : folder + "/" + name
                let path = root + "/" + rel
                if path == excluded { continue }
                var st = stat()
                guard lstat(path, &st) == 0 else { continue }  // vanished while walking
                if (st.st_mode & S_IFMT) == S_IFLNK {
                    // Follow only links that stay inside the library.
                    guard let target = realPath(path), target == rootReal || target.hasPrefix(rootReal + "/"),
                          stat(path, &st) == 0 else { continue }
                }
                switch st.st_mode & S_IFMT {
                case S_IFDIR:
                    if seenFolders.insert(FileKey(st)).inserted { subfolders.append(rel) }
                case S_IFREG:
                    if seenFiles.insert(FileKey(st)).inserted { files.append(rel) }
                default:
                    break  // FIFOs, sockets, devices: never photos, never opened
                }
            }
            pending.append(contentsOf: subfolders.reversed())
        }
        return files
    }

    struct FileKey: Hashable {
        let device: UInt64
        let inode: UInt64
        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    /// The entry names of a folder (`opendir`/`readdir`), or nil with errno set.
    func listNames(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
