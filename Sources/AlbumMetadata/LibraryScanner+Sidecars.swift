import AlbumCore
import AlbumSystem
import Glibc
import Synchronization

extension LibraryScanner {
    /// Whether a path's last byte is that of `.xmp` (any case) or `.json`: a library's paths are
    /// mostly photos', told apart by one byte before any string is made of them.
    static func endsLikeSidecar(_ path: String) -> Bool {
        guard let last = path.utf8.last else { return false }
        return last | 0x20 == UInt8(ascii: "p") || last == UInt8(ascii: "n")
    }

    /// Moves to `survey.toRead` the photos reused unchanged whose sidecar is new, changed or gone
    /// at its path: a sidecar's change is a change of its photo, whose own identity stays as it
    /// was. The sidecar's own identity is its row's (it is a file of the library, not shown), so
    /// a change made while unmounted shows at the next mount as one made while mounted does.
    func readingAgainPhotosOfChangedSidecars(_ survey: inout Survey, previous: some KnownFiles, under folder: String) {
        let touched = changedSidecars(survey, previous: previous, under: folder)
        guard !touched.isEmpty else { return }
        func owns(_ path: String) -> Bool {
            guard let names = touched[path.folderBeforeLastSlash] else { return false }
            let photo = String(path.nameAfterLastSlash)
            return names.contains { FolderSidecars.mayBelong($0, to: photo) }
        }
        survey.reused.removeAll { file in
            guard case .photo = file.kind, owns(file.relativePath) else { return false }
            survey.toRead.append((file.relativePath, file.identity))
            return true
        }
        // A photo still settling is read now all the same: once settled, its identity is the one
        // read and it would not be read again, its sidecar's change lost. (Read while still being
        // written, its identity changes, and it is read again when it settles.)
        survey.deferred.removeAll { path in
            guard owns(path) else { return false }
            survey.toRead.append((path, FileIdentity(inode: 0, size: -1, mtime: Timestamp(seconds: 0))))
            return true
        }
    }

    /// The names of the files named like sidecars that are new or changed (to be read) or gone
    /// (known, and found nowhere by the survey) under `folder`, by their folder.
    private func changedSidecars(_ survey: Survey, previous: some KnownFiles, under folder: String) -> [String: [String]] {
        var touched: [String: [String]] = [:]
        func touch(_ path: String) { touched[path.folderBeforeLastSlash, default: []].append(String(path.nameAfterLastSlash)) }
        for item in survey.toRead where Self.endsLikeSidecar(item.path) && FolderSidecars.maySidecar(String(item.path.nameAfterLastSlash)) {
            touch(item.path)
        }
        var known: [String] = []
        if !previous.isEmpty {
            previous.forEachPath { path in
                guard Self.endsLikeSidecar(path) else { return }
                if FolderSidecars.maySidecar(String(path.nameAfterLastSlash)), path.isWithin(folder: folder) { known.append(path) }
            }
        }
        guard !known.isEmpty else { return touched }
        var present = Set(survey.deferred)
        for file in survey.reused { present.insert(file.relativePath) }
        for item in survey.toRead { present.insert(item.path) }
        for moved in survey.moved { present.insert(moved.file.relativePath) }
        for path in known where !present.contains(path) { touch(path) }
        return touched
    }
}
