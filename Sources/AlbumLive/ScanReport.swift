import AlbumCore
import AlbumMetadata

/// What a scan found.
public struct ScanReport: Sendable {
    public var photos: [Photo]
    /// Regular files looked at (photos or not).
    public var filesSeen: Int
    public var problems: [ScanProblem]

    public init(photos: [Photo], filesSeen: Int, problems: [ScanProblem]) {
        self.photos = photos
        self.filesSeen = filesSeen
        self.problems = problems
    }

    /// The report of decided `photos` among `files`; problems sorted by path: the folders', the
    /// files that could not be understood, and the photos' own (from their decisions, so files
    /// slimmed of their evidence keep them).
    public init(photos: [Photo], files: some Collection<IndexedFile>, folderProblems: [ScanProblem] = []) {
        var fileProblems: [ScanProblem] = []
        for file in files {
            if case .problem(let message) = file.kind { fileProblems.append(ScanProblem(relativePath: file.relativePath, message: message)) }
        }
        self.init(photos: photos, filesSeen: files.count, fileProblems: fileProblems, folderProblems: folderProblems)
    }

    /// The same, from the problems of the files that are not photos, already gathered.
    public init(photos: [Photo], filesSeen: Int, fileProblems: [ScanProblem], folderProblems: [ScanProblem] = []) {
        var problems = folderProblems + fileProblems
        for i in photos.indices where !photos[i].problems.isEmpty {
            problems.append(ScanProblem(relativePath: photos[i].relativePath, message: photos[i].problems.joined(separator: "; ")))
        }
        problems.sort { $0.relativePath < $1.relativePath }
        self.init(photos: photos, filesSeen: filesSeen, problems: problems)
    }
}
