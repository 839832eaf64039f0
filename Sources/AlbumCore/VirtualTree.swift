/// What a virtual file holds.
public enum FileContent: Sendable, Hashable {
    /// The original photo, byte for byte: an index into `Library.photos`.
    case original(photo: Int)
    /// A thumbnail of the photo, exactly `box` in size, rendered on first read.
    case thumbnail(photo: Int, box: ThumbnailBox)
    /// `.albumfs/status`: the daemon's state, made when opened.
    case status
    /// `.albumfs/errors`: files that could not be read, made when opened.
    case errors
    /// `.albumfs/not-shown`: what under the library's folder no view shows, and why, made when opened.
    case notShown
    /// `filter/README.txt`: how filter folders are named (`FilterReadme`).
    case filterReadme

    /// Whether this is a file of `.albumfs/`, whose text is made when it is opened.
    public var isControl: Bool {
        switch self {
        case .status, .errors, .notShown: return true
        case .original, .thumbnail, .filterReadme: return false
        }
    }

    /// The photo this file shows, if any.
    public var photo: Int? {
        switch self {
        case .original(let i), .thumbnail(let i, _): return i
        case .status, .errors, .notShown, .filterReadme: return nil
        }
    }
}

/// One entry of a virtual folder, as a value (made on demand; folders do not store these).
public enum VirtualNode: Sendable {
    case folder(VirtualFolder)
    case file(name: String, content: FileContent, mtime: Timestamp)

    public var name: String {
        switch self {
        case .folder(let f): return f.name
        case .file(let name, _, _): return name
        }
    }

    public var mtime: Timestamp {
        switch self {
        case .folder(let f): return f.mtime
        case .file(_, _, let t): return t
        }
    }
}

/// Which of a photo's places a photo folder holds. Every photo has one entry per slot (its day
/// folder, its flat view, its camera's folder, one per thumbnail size), which is what lets the
/// filesystem number the entries from the photo alone instead of keeping a node per entry.
public enum PhotoSlot {
    public static let byDate = 0
    public static let flat = 1
    public static let byCamera = 2
    public static let favorites = 3
    public static let duplicates = 4
    public static let places = 5
    /// A kind's folder in `media-types/` (a photo may be of several kinds: a slot each).
    public static func mediaType(_ kind: MediaKind) -> Int { 6 + kind.rawValue }
    public static let mediaTypes = MediaKind.allCases.map(mediaType)
    public static func thumbnail(_ k: Int) -> Int { 6 + MediaKind.allCases.count + k }
    /// Its folder in `duplicates/similar/` (after the thumbnails: the slots before it keep their numbers).
    public static let similar = 6 + MediaKind.allCases.count + ThumbnailBox.maxFolders
    /// Slots a photo can have: by-date, flat, by-camera, favorites, duplicates, places, a media
    /// type each, up to `ThumbnailBox.maxFolders` thumbnails, and similar.
    public static let count = similar + 1
    /// The slots whose entries are the photo's original (one inode between them).
    public static let originals = [byDate, flat, byCamera, favorites, duplicates, places] + MediaKind.allCases.map(mediaType) + [similar]
    /// The slots counted in an original's `st_nlink`: not `similar`, whose entries a background
    /// pass adds after the photos were looked up (the kernel keeps the count it was told).
    public static let linkCounted = originals.filter { $0 != similar }
    /// The slots few photos have an entry in: their folders are kept by photo in a sparse table.
    public static func isSparse(_ slot: Int) -> Bool { mediaTypes.contains(slot) || slot == similar }

    /// The slot whose inode an entry in `slot` has: a photo's original is one file, the same
    /// inode in `by-date/`, in its flat view and in `by-camera/` (hard links: `du` counts it
    /// once, `cp -a`, `rsync -H` and `tar` keep it one file); each thumbnail is a file of its own.
    public static func inodeSlot(_ slot: Int) -> Int { originals.contains(slot) ? byDate : slot }
}

/// Where an entry of a folder of photos is: its readdir position, and its rank by name (byte order).
public struct EntryPlace: Sendable, Equatable {
    public var position: Int
    public var rank: Int
    public init(position: Int, rank: Int) {
        self.position = position
        self.rank = rank
    }
}

/// The entries of a folder of photos: which photos, newest first, under which names.
///
/// Built for 100,000-entry folders: the folder stores photo indices (4 bytes an entry), the
/// same indices ordered by name for lookups, and only the names that differ from the photo's own
/// (collisions, unsafe characters). Names are computed when asked for.
public struct PhotoEntries: Sendable {
    /// The library's photo array (shared, not copied).
    public let photos: [Photo]
    /// Photo indices in readdir order.
    public let members: ContiguousArray<Int32>
    /// Positions in `members`, ordered by entry name, for binary-search lookups.
    public let byName: ContiguousArray<Int32>
    /// Photo index → entry name, only where it is not the default name.
    public let renamed: [Int32: String]
    /// nil: originals; else thumbnails of this size.
    public let thumbnailBox: ThumbnailBox?
    /// Which of the photo's places this folder is (`PhotoSlot`).
    public let slot: Int

    /// - Parameter members: photo indices in readdir order.
    public init(photos: [Photo], members: [Int], thumbnailBox: ThumbnailBox?, slot: Int) {
        self.photos = photos
        self.members = ContiguousArray(members.lazy.map { Int32($0) })
        self.thumbnailBox = thumbnailBox
        self.slot = slot
        let defaults = members.map { Self.defaultName(photos, $0, thumbnail: thumbnailBox != nil) }
        let (names, byName) = EntryNames.assignAndOrder(defaults, nearlyByName: Self.inPhotoOrder(members, of: photos.count)) {
            Self.collisionKey(photos, members[$0])
        }
        var renamed: [Int32: String] = [:]
        for (k, name) in names.enumerated() where name != defaults[k] { renamed[Int32(members[k])] = name }
        self.renamed = renamed
        self.byName = ContiguousArray(byName.lazy.map { Int32($0) })
    }

    /// What orders photos wanting one name (the first keeps it) and tags the others: the source
    /// path, after every real one for a motion photo's video, so that a file of SOURCE keeps its
    /// own name beside a video made from a still.
    static func collisionKey(_ photos: [Photo], _ i: Int) -> String {
        photos[i].isEmbeddedVideo ? "\u{10FFFF}" + photos[i].relativePath : photos[i].relativePath
    }

    /// Positions of `members` ordered by photo index. The photo array is mostly in walk order
    /// (sorted by path), so in this order a folder's names come in sorted runs, one per source
    /// folder, and sorting them by name has little left to do.
    static func inPhotoOrder(_ members: [Int], of photoCount: Int) -> [Int] {
        // A big folder: one pass over a photo-indexed table, not a sort.
        guard members.count * 8 >= photoCount else { return members.indices.sorted { members[$0] < members[$1] } }
        var position = [Int32](repeating: -1, count: photoCount)
        for (k, photo) in members.enumerated() { position[photo] = Int32(k) }
        return position.lazy.filter { $0 >= 0 }.map(Int.init)
    }

    /// Entries as `init(photos:members:thumbnailBox:slot:)` made them before, its results given
    /// back (a views snapshot): nil unless every position and photo index is in range.
    public init?(photos: [Photo], members: ContiguousArray<Int32>, byName: ContiguousArray<Int32>, renamed: [Int32: String],
                 thumbnailBox: ThumbnailBox?, slot: Int) {
        guard members.count == byName.count, (0..<PhotoSlot.count).contains(slot),
              !members.contains(where: { $0 < 0 || Int($0) >= photos.count }),
              !byName.contains(where: { $0 < 0 || Int($0) >= members.count }) else { return nil }
        self.photos = photos
        self.members = members
        self.byName = byName
        self.renamed = renamed
        self.thumbnailBox = thumbnailBox
        self.slot = slot
    }

    private init(_ other: PhotoEntries, box: ThumbnailBox, slot: Int) {
        photos = other.photos
        members = other.members
        byName = other.byName
        renamed = other.renamed
        thumbnailBox = box
        self.slot = slot
    }

    /// The same entries as thumbnails of another size: names and order are shared.
    public func withThumbnailBox(_ box: ThumbnailBox, slot: Int) -> PhotoEntries { PhotoEntries(self, box: box, slot: slot) }

    /// (Given the file name, not the `Photo`: passing a photo retains each of its strings, and
    /// views built side by side then fight over those reference counts.)
    /// (The fields read where they lie: `photos[i]` handed on is a copy of the whole photo, and
    /// a folder names every photo it holds.)
    static func defaultName(_ photos: [Photo], _ i: Int, thumbnail: Bool) -> String {
        defaultName(fileName: Photo.lastComponent(photos[i].relativePath), format: photos[i].format, thumbnail: thumbnail)
    }

    static func defaultName(fileName: String, format: ImageFormat, thumbnail: Bool) -> String {
        thumbnail ? EntryNames.replacingExtension(of: fileName, with: ".jpg") : EntryNames.viewName(of: fileName, format: format)
    }

    public var count: Int { members.count }

    /// The photo index at a readdir position.
    public func photo(at position: Int) -> Int { Int(members[position]) }

    /// The entry name of a photo of this folder.
    public func name(ofPhoto i: Int) -> String {
        if let name = renamed[Int32(i)] { return name }
        return Self.defaultName(photos, i, thumbnail: thumbnailBox != nil)
    }

    public func content(ofPhoto i: Int) -> FileContent {
        thumbnailBox.map { .thumbnail(photo: i, box: $0) } ?? .original(photo: i)
    }

    /// The readdir position of the entry called `name`.
    public func position(named name: String) -> Int? { place(named: name)?.position }

    /// Where the entry called `name` is in readdir order and in name order.
    public func place(named name: String) -> EntryPlace? {
        var low = 0, high = byName.count
        while low < high {
            let mid = (low + high) / 2
            let position = Int(byName[mid])
            let candidate = self.name(ofPhoto: Int(members[position]))
            if candidate == name { return EntryPlace(position: position, rank: mid) }
            if candidate < name { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    /// The photo index of the entry `rank`th in name order.
    public func photo(atRank rank: Int) -> Int { Int(members[Int(byName[rank])]) }

    /// The newest capture time among the entries.
    var newest: Timestamp? { members.lazy.map { photos[Int($0)].captureInstant }.max() }
}

/// An immutable folder: its entries in readdir order (newest first), looked up by name.
public final class VirtualFolder: Sendable {
    public enum Entries: Sendable {
        /// Subfolders (the root, `by-date/` years and months, `thumbnails/`).
        case folders([VirtualFolder])
        /// A few files that are not photos (`.albumfs/`).
        case files([ControlFile])
        /// Photos (day folders, flat views, thumbnail folders).
        case photos(PhotoEntries)
    }

    public struct ControlFile: Sendable {
        public let name: String
        public let content: FileContent
        public init(name: String, content: FileContent) {
            self.name = name
            self.content = content
        }
    }

    public let name: String
    public let entries: Entries
    /// The newest entry's time, so `ls -t` of a parent agrees with its readdir order.
    public let mtime: Timestamp
    /// Name → position, for the small kinds (a photo folder searches its name order instead).
    private let indexByName: [String: Int]

    /// A folder shown with the time it was shown with before (a views snapshot's).
    public convenience init(name: String, entries: Entries, mtime: Timestamp) {
        self.init(name: name, entries: entries, emptyMtime: mtime, exactly: true)
    }

    /// - Parameter ignoringEmpty: a folder of folders takes the newest time of those not empty (a
    ///   folder listed empty, such as a kind with no photo, shows `emptyMtime`, not a capture).
    /// - Parameter exactly: `emptyMtime` is the folder's time, whatever it holds.
    public init(name: String, entries: Entries, emptyMtime: Timestamp, ignoringEmpty: Bool = false, exactly: Bool = false) {
        self.name = name
        self.entries = entries
        switch entries {
        case .folders(let folders):
            mtime = exactly ? emptyMtime : folders.lazy.filter { !ignoringEmpty || $0.count > 0 }.map(\.mtime).max() ?? emptyMtime
            indexByName = Dictionary(folders.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        case .files(let files):
            mtime = emptyMtime
            indexByName = Dictionary(files.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        case .photos(let photos):
            mtime = photos.newest ?? emptyMtime
            indexByName = [:]
        }
    }

    public var count: Int {
        switch entries {
        case .folders(let f): return f.count
        case .files(let f): return f.count
        case .photos(let p): return p.count
        }
    }

    /// The position of the entry called `name`.
    public func index(named name: String) -> Int? {
        if case .photos(let photos) = entries { return photos.position(named: name) }
        return indexByName[name]
    }

    /// The entry at a readdir position.
    public func child(at position: Int) -> VirtualNode {
        switch entries {
        case .folders(let f): return .folder(f[position])
        case .files(let f): return .file(name: f[position].name, content: f[position].content, mtime: mtime)
        case .photos(let p):
            let i = p.photo(at: position)
            return .file(name: p.name(ofPhoto: i), content: p.content(ofPhoto: i), mtime: p.photos[i].captureInstant)
        }
    }

    public func child(named name: String) -> VirtualNode? { index(named: name).map(child(at:)) }

    /// Every entry, made on demand (for small folders and tests; a photo folder's readdir walks
    /// positions instead).
    public var children: [VirtualNode] { (0..<count).map(child(at:)) }

    public var subfolders: [VirtualFolder] {
        if case .folders(let f) = entries { return f }
        return []
    }
}

/// The library as albumfs shows it: the photos and the tree of views over them.
public struct Library: Sendable {
    public let photos: [Photo]
    public let root: VirtualFolder
    /// Live Photos: photo index → its partner's (`LivePhotos.partners`).
    public let livePartners: [Int32: Int32]
    /// RAW+JPEG pairs: photo index → its partner's (`RawPairs.partners`).
    public let rawPartners: [Int32: Int32]

    /// How many of `photos` are files of the library: all but motion photos' videos, which
    /// `MotionPhotos.adding` puts last.
    public var filePhotoCount: Int { MotionPhotos.fileCount(photos) }

    /// - Parameter rawPartners: the pairs `root` was built with (nil: found again from
    ///   `photos`, as a views snapshot, which does not keep them, is loaded).
    public init(photos: [Photo], root: VirtualFolder, livePartners: [Int32: Int32] = [:], rawPartners: [Int32: Int32]? = nil) {
        self.photos = photos
        self.root = root
        self.livePartners = livePartners
        self.rawPartners = rawPartners ?? RawPairs.partners(photos)
    }
}
