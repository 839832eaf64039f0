import Glibc

/// Which file on disk a photo is, for noticing changes (inode, size, mtime) and for cache keys.
///
/// Not the device number: the same disk plugged into another port, or a share or an image mounted
/// again, comes back with another one for the very same files (sdb1 then sdc1, an anonymous
/// 0:53 then 0:61), and a remount would read the whole library again.
public struct FileIdentity: Hashable, Sendable {
    public var inode: UInt64
    public var size: Int64
    /// `mtime` as nanoseconds since the epoch: every `Timestamp` is one such count, exactly, and
    /// a million identities kept take 8 bytes less each.
    private var mtimeNanoseconds: Int64

    public var mtime: Timestamp {
        get { Timestamp(nanosecondsSinceEpoch: mtimeNanoseconds) }
        set { mtimeNanoseconds = newValue.nanosecondsSinceEpoch }
    }

    public init(inode: UInt64, size: Int64, mtime: Timestamp) {
        self.inode = inode
        self.size = size
        mtimeNanoseconds = mtime.nanosecondsSinceEpoch
    }
}

/// Who owns a source file and what its permission bits are (`st_uid`, `st_gid`, `st_mode & 0o7777`):
/// the mount shows them, as sshfs and bindfs do, so that `default_permissions` enforces SOURCE's
/// own permissions and a copy out of the mount is the user's as the original is (docs/security.md).
public struct FileAccess: Hashable, Sendable {
    public var uid: UInt32
    public var gid: UInt32
    public var mode: UInt32

    /// No owner known: a mode no file has (`init` keeps only the permission bits).
    static let unknown = FileAccess(uid: .max, gid: .max, rawMode: .max)
    private init(uid: UInt32, gid: UInt32, rawMode: UInt32) {
        self.uid = uid
        self.gid = gid
        mode = rawMode
    }

    public init(uid: UInt32, gid: UInt32, mode: UInt32) {
        self.uid = uid
        self.gid = gid
        self.mode = mode & 0o7777
    }

    public init(_ st: stat) { self.init(uid: st.st_uid, gid: st.st_gid, mode: st.st_mode) }
}

/// One photo of the library with every decision made about it.
///
/// A mount keeps one per photo (a million at the scale docs/scaling.md aims at), so its stored
/// fields are laid out for size (`PhotoSizeTests`): the eight-byte ones first, then the owner and
/// the decisions with their small fields in what would be padding; the file name and an absent
/// owner are not stored apart.
public struct Photo: Sendable {
    /// Path below the library root, `/`-separated, never starting with `/`.
    public var relativePath: String
    public var identity: FileIdentity
    /// `captureInstant` as nanoseconds since the epoch (in the order of the instants, so the sort
    /// compares it as it is).
    fileprivate var captureNanoseconds: Int64
    /// `problems`, then `sidecarAttributes`, in one array: a second would take 8 bytes of every
    /// photo, and most have neither.
    private var texts: [String]
    /// `liveIdentifier`, or `motionVideo` packed (`MotionVideoBits`): a still is a Live Photo's or
    /// a motion photo, never both (`LivePhotos` leaves motion photos out), so one field of 8
    /// bytes holds either.
    private var pairing: UInt64 = 0
    private var changedWhenReadPacked: PackedTimestamp
    public var screenshot: ScreenshotDecision
    /// `camera`'s code in `CameraTable.shared` (in the padding between the decision's flag and `accessPacked`).
    public var cameraCode: UInt16 = 0
    /// `access`, with `FileAccess.unknown` for none (an optional takes a byte more, and its padding).
    private var accessPacked: FileAccess
    public var capture: CaptureDecision
    /// `orientation` (1–8) in the low bits, `isFavorite` in the top one: the small fields after
    /// `capture` fill its 7 bytes of padding exactly.
    private var orientationStored: UInt8
    /// The rows of `MediaKindRules.table` that held for it, a bit each.
    public var kindSignals: UInt16 = 0
    /// How many of `texts` are problems (at most 255 are kept).
    private var problemCount: UInt8
    public var format: ImageFormat
    /// Its rating, -1 to 5 (0: none), and where it came from (`FavoriteRules.rating`).
    private var ratingStored: Int8 = 0
    public var ratingSource: RatingSource = .none

    /// Whether it is in `favorites/` (`FavoriteRules.isFavorite`).
    /// `st_mtime` and the sort key: the capture time as an instant.
    public var captureInstant: Timestamp {
        get { Timestamp(nanosecondsSinceEpoch: captureNanoseconds) }
        set { captureNanoseconds = newValue.nanosecondsSinceEpoch }
    }

    public var isFavorite: Bool {
        get { orientationStored & Self.favoriteBit != 0 }
        set { orientationStored = orientationStored & ~Self.favoriteBit | (newValue ? Self.favoriteBit : 0) }
    }
    private static let favoriteBit: UInt8 = 0x80
    /// Its `by-camera/` folder's name (`CameraNames.folderName`): kept decided, since the make
    /// and model it comes from are dropped with the rest of the evidence.
    public var camera: String {
        get { CameraTable.shared.name(cameraCode) }
        set { cameraCode = CameraTable.shared.code(newValue) }
    }

    /// Its kinds (`media-types/`), but Live Photos, which are pairs (`LivePhotos`).
    public var kinds: MediaKinds {
        MediaKindRules.kinds(signals: UInt32(kindSignals), format: format, isScreenRecording: screenshot.isScreenshot)
    }

    /// The burst it was shot in (Apple's `BurstUUID`, Google's `GCamera:BurstID`), kept among the
    /// attribute pairs as `burst` (`user.albumfs.burst`): only a burst's photos pay for it.
    public var burstIdentifier: String? {
        let pairs = sidecarAttributes
        return stride(from: 0, to: pairs.count - 1, by: 2).first { pairs[$0] == Self.burstAttribute }.map { pairs[$0 + 1] }
    }
    public static let burstAttribute = "burst"
    /// Its GPS position in millionths of a degree (`Int32.min`: none): 8 bytes of every photo,
    /// not a `PlacePosition?`'s 17 and padding.
    private var latitudeMicro = Int32.min
    private var longitudeMicro = Int32.min
    /// Its city in `Gazetteer.system`, plus one (0: none): 16 bits (GeoNames has 24,361 cities)
    /// after the position.
    private var placeStored: UInt16 = 0

    /// Its city's number in `Gazetteer.system` (`places/`, `user.albumfs.place`), or nil.
    public var place: Int? {
        get { placeStored == 0 ? nil : Int(placeStored) - 1 }
        set { placeStored = newValue.flatMap { $0 >= 0 && $0 < Int(UInt16.max) ? UInt16($0 + 1) : nil } ?? 0 }
    }

    /// Its GPS position (`PhotoPlace.position`), to a millionth of a degree (about 10 cm), or nil.
    public var position: PlacePosition? {
        get {
            guard latitudeMicro != .min else { return nil }
            return PlacePosition(latitude: Double(latitudeMicro) / 1_000_000, longitude: Double(longitudeMicro) / 1_000_000)
        }
        set {
            latitudeMicro = newValue.map { Int32(($0.latitude * 1_000_000).rounded()) } ?? .min
            longitudeMicro = newValue.map { Int32(($0.longitude * 1_000_000).rounded()) } ?? .min
        }
    }

    /// Its rating, -1 (rejected) to 5, or nil when it has none.
    public var rating: Int? {
        get { ratingSource == .none ? nil : Int(ratingStored) }
        set { ratingStored = Int8(clamping: newValue ?? 0) }
    }

    /// What went wrong reading it (`user.albumfs.problems`).
    public var problems: [String] {
        get { Int(problemCount) == texts.count ? texts : Array(texts.prefix(Int(problemCount))) }
        set {
            let kept = newValue.prefix(Int(UInt8.max))
            texts = Array(kept) + sidecarAttributes
            problemCount = UInt8(kept.count)
        }
    }

    /// What its sidecar says that `user.albumfs.*` shows, as attribute names and values in turn
    /// (`SidecarEvidence.attributes`; the sidecar's own name, not its path: it moves with its
    /// photo), then its burst's identifier (`burstIdentifier`). Empty for a photo without either.
    public var sidecarAttributes: [String] {
        get { Int(problemCount) == texts.count ? [] : Array(texts.dropFirst(Int(problemCount))) }
        set { texts = problems + newValue }
    }

    /// An Android motion photo's video (`PhotoEvidence.motionVideo`): on the still, where its
    /// video lies in its file; on that video's own entry (`MotionPhotos`), the bytes it serves.
    /// A range `MotionVideoBits` cannot hold is not kept (`MotionPhoto` refuses those at scan time).
    public var motionVideo: ByteRange? {
        get { MotionVideoBits.range(pairing, fileSize: identity.size) }
        set {
            if let newValue, let bits = MotionVideoBits.bits(newValue, fileSize: identity.size) {
                pairing = bits
            } else if MotionVideoBits.holdsRange(pairing) {
                pairing = 0
            }
        }
    }

    /// Its Apple content identifier, as `LivePhotos.identifierKey` keeps it (0: none). Setting
    /// one drops a motion video's range.
    public var liveIdentifier: UInt64 {
        get { MotionVideoBits.holdsRange(pairing) ? 0 : pairing }
        set { pairing = newValue & ~MotionVideoBits.flag }
    }

    /// Whether this is a motion photo's video, made from its still (`MotionPhotos.video(of:)`):
    /// its bytes are `motionVideo` of the still's file, at `sourcePath`.
    public var isEmbeddedVideo: Bool { format == .video && MotionVideoBits.holdsRange(pairing) }

    /// The path of the file holding its bytes, below the library root: `relativePath`, but for a
    /// motion photo's video, whose own path names it beneath its still's (no file can be there).
    public var sourcePath: String { isEmbeddedVideo ? relativePath.folderBeforeLastSlash : relativePath }

    /// The source file's own name: `relativePath`'s last component.
    public var fileName: String { Self.lastComponent(relativePath) }

    /// EXIF orientation 1–8 (anything else read as 1).
    public var orientation: Int {
        get { Int(orientationStored & ~Self.favoriteBit) }
        set { orientationStored = orientationStored & Self.favoriteBit | ((1...8).contains(newValue) ? UInt8(newValue) : 1) }
    }

    /// The source file's owner and mode when read (nil: not known; the mount's owner and 0444 shown).
    public var access: FileAccess? {
        get { accessPacked == .unknown ? nil : accessPacked }
        set { accessPacked = newValue ?? .unknown }
    }

    /// - Parameters:
    ///   - decisions: what the rules decided of it (its fields are kept packed: `PhotoSizeTests`).
    ///   - changedWhenRead: the file's ctime when its header was read.
    ///   - access: the file's owner and mode when read (nil: not known).
    public init(relativePath: String, format: ImageFormat, identity: FileIdentity, decisions: consuming PhotoDecisions,
                changedWhenRead: Timestamp? = nil, access: FileAccess? = nil) {
        self.relativePath = relativePath
        self.format = format
        self.identity = identity
        capture = decisions.capture
        captureNanoseconds = decisions.captureInstant.nanosecondsSinceEpoch
        screenshot = decisions.screenshot
        orientationStored = (1...8).contains(decisions.orientation) ? UInt8(decisions.orientation) : 1
        // (The decisions' own array kept, not a copy made, where it is within the bound.)
        if decisions.problems.count > Int(UInt8.max) { decisions.problems.removeLast(decisions.problems.count - Int(UInt8.max)) }
        problemCount = UInt8(decisions.problems.count)
        texts = decisions.problems
        accessPacked = access ?? .unknown
        changedWhenReadPacked = PackedTimestamp(changedWhenRead)
    }

    /// What the rules decided of it, as `init` takes them.
    public var decisions: PhotoDecisions {
        PhotoDecisions(capture: capture, captureInstant: captureInstant, screenshot: screenshot, orientation: orientation, problems: problems)
    }

    /// The file's ctime when its header was read (`IndexedFile.changedWhenRead`): another one for
    /// the same path, inode, size and mtime means other bytes (a rewrite in place), which the
    /// kernel may hold cached for the mount's file and its thumbnails (`TreeChanges`).
    public var changedWhenRead: Timestamp? { changedWhenReadPacked.time }

    static func lastComponent(_ path: String) -> String { String(path.nameAfterLastSlash) }

    /// Folders between the library root and the file.
    public var folders: [String] {
        relativePath.split(separator: "/").dropLast().map(String.init)
    }
}

/// A motion photo's video range in 64 bits, beside a file of known size: the top bit set, then
/// how many bytes follow the video in the file (23 bits: Samsung's trailer directory, a few
/// dozen bytes, and blocks of kilobytes), then its length (40 bits: up to 1 TiB). A Live Photo
/// identifier is a hash with the top bit clear (`LivePhotos.identifierKey`).
public enum MotionVideoBits {
    static let flag: UInt64 = 1 << 63
    public static let maxTail: Int64 = 1 << 23 - 1
    public static let maxLength: Int64 = 1 << 40 - 1

    static func holdsRange(_ bits: UInt64) -> Bool { bits & flag != 0 }

    /// Whether a range of a file of `fileSize` bytes fits.
    public static func fits(_ range: ByteRange, fileSize: Int64) -> Bool { bits(range, fileSize: fileSize) != nil }

    static func bits(_ range: ByteRange, fileSize: Int64) -> UInt64? {
        // (Checked before any arithmetic: a damaged views snapshot may hold any values.)
        guard range.offset >= 0, range.length > 0, range.length <= maxLength, fileSize >= 0, range.offset <= fileSize else { return nil }
        let tail = fileSize - range.offset - range.length
        guard tail >= 0, tail <= maxTail else { return nil }
        return flag | UInt64(tail) << 40 | UInt64(range.length)
    }

    static func range(_ bits: UInt64, fileSize: Int64) -> ByteRange? {
        guard holdsRange(bits) else { return nil }
        let length = Int64(bits & UInt64(maxLength)), tail = Int64(bits >> 40 & UInt64(maxTail))
        guard fileSize >= tail + length else { return nil }
        return ByteRange(offset: fileSize - tail - length, length: length)
    }
}

/// Newest first; ties broken by name, then by source path, so every listing is deterministic.
public func newestFirst(_ a: Photo, _ b: Photo) -> Bool {
    if a.captureNanoseconds != b.captureNanoseconds { return a.captureNanoseconds > b.captureNanoseconds }
    if a.fileName != b.fileName { return a.fileName < b.fileName }
    return a.relativePath < b.relativePath
}

extension String {
    /// The name after the last `/` (all of it without one). Searched as UTF-8 bytes: a search by
    /// `Character` breaks graphemes at every step, and this runs several times per file in a scan.
    public var nameAfterLastSlash: Substring {
        guard let slash = lastUTF8Index(of: UInt8(ascii: "/")) else { return self[...] }
        // The bytes after the slash, as they are: not rounded to a Character (a name starting
        // with a combining mark makes one Character of it and the slash, and kept the slash).
        return Substring(utf8[utf8.index(after: slash)...])
    }

    /// Where the last `byte` is in the UTF-8 bytes, found in the string's own contiguous storage
    /// where it has one (a bounds-checked scan, not `UTF8View`'s index walk: paths are cut at
    /// their last slash several times per photo of a scan).
    @inlinable
    public func lastUTF8Index(of byte: UInt8) -> String.Index? {
        let offset = utf8.withContiguousStorageIfAvailable { bytes in bytes.lastIndex(of: byte) }
        guard let offset else { return utf8.lastIndex(of: byte) }
        return offset.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// Whether this relative path is `folder` or lies inside it ("" is the whole library). Byte
    /// by byte, as the filesystem tells names apart.
    public func isWithin(folder: String) -> Bool {
        guard !folder.isEmpty else { return true }
        guard utf8.starts(with: folder.utf8) else { return false }
        let rest = utf8.dropFirst(folder.utf8.count)
        return rest.isEmpty || rest.first == UInt8(ascii: "/")
    }

    /// The path without its last component: `a/b/c.jpg` → `a/b`, `c.jpg` → ``, `/c` → `/`
    /// (NSString's `deletingLastPathComponent` for the paths albumfs makes).
    public var folderBeforeLastSlash: String {
        guard let slash = lastUTF8Index(of: UInt8(ascii: "/")) else { return "" }
        return slash == utf8.startIndex ? "/" : String(self[..<slash])
    }
}

extension Photo {
    /// A hash of every decision and field the views and attributes show: two photos with the same
    /// one show the same (within this process: Swift seeds its hashes per run).
    public var fingerprint: Int {
        var h = Hasher()
        h.combine(relativePath)
        h.combine(camera)
        h.combine(format)
        h.combine(identity)
        h.combine(capture.time)
        h.combine(capture.source)
        h.combine(capture.offsetFromPlace)
        h.combine(capture.rejected)
        h.combine(captureNanoseconds)
        h.combine(screenshot.isScreenshot)
        h.combine(screenshot.reason)
        h.combine(orientation)
        h.combine(texts)
        h.combine(access)
        h.combine(liveIdentifier)
        h.combine(changedWhenRead)
        h.combine(motionVideo)
        h.combine(rating)
        h.combine(ratingSource)
        h.combine(isFavorite)
        h.combine(kindSignals)
        h.combine(place)
        h.combine(latitudeMicro)
        h.combine(longitudeMicro)
        return h.finalize()
    }

    /// The same for a whole library, whatever the photos' order: equal for two arrays of the
    /// same photos, whose views are then the same. Motion photos' videos are left out: their
    /// stills' fingerprints hold them, and a library's photos have them where a scan's do not.
    public static func fingerprint(_ photos: [Photo]) -> Int {
        var count = 0, sum = 0
        for photo in photos where !photo.isEmbeddedVideo {
            count += 1
            sum = sum &+ photo.fingerprint
        }
        return sum &+ count
    }
}
