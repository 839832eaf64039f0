import AlbumCore
import AlbumSystem
import Synchronization

/// The folders of the library that hold files named like sidecars, as their last listing found
/// them: a photo read looks its sidecar up here, not on disk (most folders hold none, and their
/// photos cost no lookup at all).
final class SidecarFolders: Sendable {
    /// Protects the folders' names (relative path, "" the library's own); taken alone.
    private let folders = Locked<[String: FolderSidecars]>([:])
    /// How many folders `folders` holds: a library without sidecars asks no lock, per photo read.
    private let count = Atomic<Int>(0)

    /// A folder just listed, with its entries' names.
    func listed(_ folder: String, names: some Sequence<String>) {
        let found = FolderSidecars(names: names)
        guard !found.isEmpty || count.load(ordering: .relaxed) > 0 else { return }
        let held = folders.withLock {
            $0[folder] = found.isEmpty ? nil : found
            return $0.count
        }
        count.store(held, ordering: .relaxed)
    }

    /// The sidecar of the photo at `relativePath`, if its folder's last listing held one.
    func sidecar(of relativePath: String) -> (path: String, kind: SidecarEvidence.Kind)? {
        guard count.load(ordering: .relaxed) > 0 else { return nil }
        let folder = relativePath.folderBeforeLastSlash
        guard let found = folders.withLock({ $0[folder] })?.sidecar(of: String(relativePath.nameAfterLastSlash)) else { return nil }
        return (folder.isEmpty ? found.name : folder + "/" + found.name, found.kind)
    }
}
