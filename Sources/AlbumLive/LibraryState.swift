import AlbumCore
import AlbumMetadata

/// What the mount knows about the library's files: each file's identity (to notice changes),
/// each photo's decisions, each unreadable file's problem.
///
/// Evidence is not kept: it is needed once, to decide a photo, and the index has it on disk.
public struct LibraryState: Sendable {
    private(set) var files: [String: IndexedFile] = [:]
    private(set) var photos = PhotoStore()

    public init() {}

    public var photoCount: Int { photos.count }

    /// Takes a file just read or loaded from the index: decides its photo, drops its evidence.
    mutating func put(_ file: IndexedFile, scanner: LibraryScanner) {
        put(file, photo: scanner.photo(from: file))
    }

    /// Takes a file whose photo was decided already (on the reader threads).
    mutating func put(_ file: IndexedFile, photo: Photo?) {
        let path = file.relativePath
        files[path] = file.slimmed
        photos.set(path, photo)
    }

    /// Room for `count` more files, so a big scan does not rehash the maps as they grow.
    mutating func reserve(more count: Int) {
        // (Reserving makes the photo array unique: with nothing to add, that would be a copy.)
        guard count > 0 else { return }
        files.reserveCapacity(files.count + count)
        photos.reserveCapacity(photos.count + count)
    }

    mutating func drop(_ path: String) {
        files[path] = nil
        photos.set(path, nil)
    }

    /// The photos (the array the views share) and every problem, sorted by path.
    func report(folderProblems: [ScanProblem] = []) -> ScanReport {
        ScanReport(photos: photos.photos, files: files.values, folderProblems: folderProblems)
    }
}

/// The decided photos, by source path, kept as one dense array: the array the views are built
/// from and share (no copy per publish), with a path → position map beside it. A removal moves
/// the last photo into the hole, so the array never has gaps (views sort it anyway).
struct PhotoStore: Sendable {
    private(set) var photos: [Photo] = []
    private var positions: [String: Int] = [:]

    /// Sets or (with nil) removes the photo of a path.
    mutating func set(_ path: String, _ photo: Photo?) {
        switch (positions[path], photo) {
        case (let i?, let photo?): photos[i] = photo
        case (nil, let photo?):
            positions[path] = photos.count
            photos.append(photo)
        case (let i?, nil):
            positions[path] = nil
            let last = photos.removeLast()
            if i < photos.count {
                photos[i] = last
                positions[last.relativePath] = i
            }
        case (nil, nil): break
        }
    }

    var count: Int { photos.count }

    mutating func reserveCapacity(_ n: Int) {
        photos.reserveCapacity(n)
        positions.reserveCapacity(n)
    }
}
