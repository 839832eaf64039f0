import AlbumCore
import AlbumSystem
import Glibc

/// The built views of a library, saved beside its index so that a remount answers at once
/// instead of deciding every photo from the index's rows and building the views again (at a
/// million photos, seconds of both cores).
///
/// A snapshot names the index generation it shows (`LibraryIndex.generation`) and a key (the
/// options and the program that made the views); a mount uses it only when both are the same
/// now. Damaged, foreign or cut short, it is refused whole. Whatever it shows is checked by the
/// mount's first scan, which builds the views again from the index and the files and publishes
/// them (docs/design.md, "Views snapshot").
public enum ViewSnapshot {
    static let magic: UInt64 = 0x3157_4549_5653_4641  // "AFSVIEW1", little-endian
    static let formatVersion: UInt32 = 6

    /// The snapshot of the index at `indexPath`.
    public static func path(forIndex indexPath: String) -> String { indexPath + ".views" }

    /// The snapshot's bytes: a header (magic, format, key, generation), the table of repeated
    /// strings, the photos, the folder tree and the Live Photo pairs.
    public static func encode(_ library: Library, key: String, generation: Int64) -> [UInt8] {
        var body = SnapshotWriter(reserving: library.photos.count * 96)
        body.int(UInt32(library.photos.count))
        for photo in library.photos { PhotoRecord.write(photo, to: &body) }
        FolderRecord.write(library.root, to: &body)
        body.int(UInt32(library.livePartners.count))
        for (a, b) in library.livePartners.sorted(by: { $0.key < $1.key }) {
            body.int(a)
            body.int(b)
        }
        var out = SnapshotWriter(reserving: body.bytes.count + 4096)
        out.int(magic)
        out.int(formatVersion)
        out.string(key)
        out.int(generation)
        out.int(UInt32(body.tableStrings.count))
        for s in body.tableStrings { out.string(s) }
        return out.bytes + body.bytes
    }

    /// The library a snapshot holds, if it was made under `key` at `generation`.
    public static func decode(_ bytes: UnsafeRawBufferPointer, key: String, generation: Int64) throws(SnapshotRefusal) -> Library {
        var r = SnapshotReader(bytes)
        guard try r.int(UInt64.self) == magic, try r.int(UInt32.self) == formatVersion else { throw SnapshotRefusal("not a views snapshot of this format") }
        guard try r.string() == key else { throw SnapshotRefusal("made with other options or another albumfs", stale: true) }
        let made = try r.int(Int64.self)
        guard made == generation else { throw SnapshotRefusal("the index changed since (generation \(made), now \(generation))", stale: true) }
        let strings = try r.count(itemSize: 4)
        r.table.reserveCapacity(strings)
        for _ in 0..<strings { r.table.append(try r.string()) }
        let count = try r.count(itemSize: PhotoRecord.minimumSize)
        var photos: [Photo] = []
        photos.reserveCapacity(count)
        for _ in 0..<count { photos.append(try PhotoRecord.read(&r)) }
        let root = try FolderRecord.read(&r, photos: photos, depth: 0)
        var partners: [Int32: Int32] = [:]
        let pairs = try r.count(itemSize: 8)
        for _ in 0..<pairs {
            let a = try r.int(Int32.self), b = try r.int(Int32.self)
            guard (0..<Int32(count)).contains(a), (0..<Int32(count)).contains(b) else { throw SnapshotRefusal("a Live Photo pair out of range") }
            partners[a] = b
        }
        guard r.atEnd else { throw SnapshotRefusal("bytes after the end") }
        return Library(photos: photos, root: root, livePartners: partners)
    }

    /// The library of the snapshot at `path`, or nil and why not, when that is a failure: no file,
    /// or another's snapshot, is none (nil, nil).
    public static func load(path: String, key: String, generation: Int64) -> (library: Library?, refusal: String?) {
        let file: MappedFile
        do throws(Errno) { file = try MappedFile(path: path) } catch {
            return (nil, error.rawValue == ENOENT ? nil : "cannot be read: \(error)")
        }
        do throws(SnapshotRefusal) {
            return (try decode(file.bytes, key: key, generation: generation), nil)
        } catch {
            return (nil, error.isStale ? nil : error.description)
        }
    }

    /// Writes the snapshot whole or not at all (a reader sees the old one or the new one).
    public static func save(_ library: Library, path: String, key: String, generation: Int64) -> Errno? {
        WholeWrite.replacing(path, with: encode(library, key: key, generation: generation))
    }

    /// A key for the program that runs: its own file's size and times, so that another build
    /// (whose rules may decide otherwise) never shows this one's views.
    public static var programIdentity: String {
        var st = stat()
        guard stat("/proc/self/exe", &st) == 0 else { return "unknown" }
        return "\(st.st_size)-\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)-\(st.st_ino)"
    }
}

/// One photo's fields in a snapshot.
enum PhotoRecord {
    /// The fewest bytes a photo takes (an empty path, no lists, no owner).
    static let minimumSize = 100

    static func write(_ p: Photo, to w: inout SnapshotWriter) {
        w.string(p.relativePath)
        w.int(UInt8(formatCode(p.format)))
        w.int(p.identity.inode)
        w.int(p.identity.size)
        w.time(p.identity.mtime)
        writeCapture(p.capture, to: &w)
        w.time(p.captureInstant)
        w.int(UInt8(p.screenshot.isScreenshot ? 1 : 0))
        w.shared(p.screenshot.reason)
        w.int(Int32(clamping: p.orientation))
        w.shared(p.problems)
        if let a = p.access {
            w.int(UInt8(1)); w.int(a.uid); w.int(a.gid); w.int(a.mode)
        } else {
            w.int(UInt8(0))
        }
        w.int(p.liveIdentifier)
        if let t = p.changedWhenRead { w.int(UInt8(1)); w.time(t) } else { w.int(UInt8(0)) }
        w.shared(p.sidecarAttributes)
        if let m = p.motionVideo { w.int(UInt8(1)); w.int(m.offset); w.int(m.length) } else { w.int(UInt8(0)) }
        w.shared(p.camera)
        w.int(Int8(clamping: p.rating ?? 0)); w.int(p.ratingSource.rawValue); w.int(UInt8(p.isFavorite ? 1 : 0))
        w.int(p.kindSignals)
        // Its city's number in the gazetteer (0: none) and its position in millionths of a degree.
        w.int(UInt16(clamping: p.place.map { $0 + 1 } ?? 0))
        w.int(p.position.map { Int32(($0.latitude * 1_000_000).rounded()) } ?? .min)
        w.int(p.position.map { Int32(($0.longitude * 1_000_000).rounded()) } ?? .min)
    }

    static func read(_ r: inout SnapshotReader) throws(SnapshotRefusal) -> Photo {
        let path = try r.string()
        let format = try format(r.int(UInt8.self))
        let identity = FileIdentity(inode: try r.int(), size: try r.int(), mtime: try r.time())
        let capture = try readCapture(&r)
        let instant = try r.time()
        let screenshot = ScreenshotDecision(isScreenshot: try r.int(UInt8.self) == 1, reason: try r.shared())
        let orientation = Int(try r.int(Int32.self))
        let problems = try r.sharedList()
        let access: FileAccess? = try r.int(UInt8.self) == 1 ? FileAccess(uid: try r.int(), gid: try r.int(), mode: try r.int()) : nil
        let live: UInt64 = try r.int()
        let changed: Timestamp? = try r.int(UInt8.self) == 1 ? try r.time() : nil
        let sidecar = try r.sharedList()
        let motion: ByteRange? = try r.int(UInt8.self) == 1 ? ByteRange(offset: try r.int(), length: try r.int()) : nil
        let camera = try r.shared()
        let rating = Int(try r.int(Int8.self))
        guard let source = RatingSource(rawValue: try r.int(UInt8.self)) else { throw SnapshotRefusal("an unknown rating source") }
        let favorite = try r.int(UInt8.self) == 1
        let kindSignals = try r.int(UInt16.self)
        let place = Int(try r.int(UInt16.self))
        let latitude = try r.int(Int32.self), longitude = try r.int(Int32.self)
        let decisions = PhotoDecisions(capture: capture, captureInstant: instant, screenshot: screenshot, orientation: orientation, problems: problems)
        var photo = Photo(relativePath: path, format: format, identity: identity, decisions: decisions, changedWhenRead: changed, access: access)
        photo.liveIdentifier = live
        photo.motionVideo = motion
        photo.sidecarAttributes = sidecar
        photo.camera = camera
        photo.rating = rating
        photo.ratingSource = source
        photo.isFavorite = favorite
        photo.kindSignals = kindSignals
        photo.place = place == 0 ? nil : place - 1
        if latitude != .min { photo.position = PlacePosition(latitude: Double(latitude) / 1_000_000, longitude: Double(longitude) / 1_000_000) }
        return photo
    }

    static func writeCapture(_ c: CaptureDecision, to w: inout SnapshotWriter) {
        let l = c.time.local
        w.int(Int32(clamping: l.year))
        w.int(Int16(clamping: l.month)); w.int(Int16(clamping: l.day)); w.int(Int16(clamping: l.hour))
        w.int(Int16(clamping: l.minute)); w.int(Int16(clamping: l.second))
        w.int(Int32(clamping: l.nanosecond))
        w.int(c.time.utcOffsetSeconds.map { Int32(clamping: $0) } ?? .min)
        w.int(UInt8(DateSource.allCases.firstIndex(of: c.source)!))
        w.int(UInt8(c.offsetFromPlace ? 1 : 0))
        w.shared(c.rejected)
    }

    static func readCapture(_ r: inout SnapshotReader) throws(SnapshotRefusal) -> CaptureDecision {
        let year = Int(try r.int(Int32.self))
        let month = Int(try r.int(Int16.self)), day = Int(try r.int(Int16.self)), hour = Int(try r.int(Int16.self))
        let minute = Int(try r.int(Int16.self)), second = Int(try r.int(Int16.self))
        let nanosecond = Int(try r.int(Int32.self))
        let offset = try r.int(Int32.self)
        let local = LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second, nanosecond: nanosecond)
        let source = Int(try r.int(UInt8.self))
        guard source < DateSource.allCases.count else { throw SnapshotRefusal("an unknown date source") }
        let fromPlace = try r.int(UInt8.self) == 1
        return CaptureDecision(time: CaptureTime(local: local, utcOffsetSeconds: offset == .min ? nil : Int(offset)),
                               source: DateSource.allCases[source], rejected: try r.sharedList(), offsetFromPlace: fromPlace)
    }

    static let formats: [ImageFormat] = [.jpeg, .png, .heif, .video, .webp, .gif, .tiff, .jxl, .raw]
    static func formatCode(_ f: ImageFormat) -> Int { formats.firstIndex(of: f)! }
    static func format(_ code: UInt8) throws(SnapshotRefusal) -> ImageFormat {
        guard Int(code) < formats.count else { throw SnapshotRefusal("an unknown format") }
        return formats[Int(code)]
    }
}

/// The folder tree in a snapshot, depth first.
enum FolderRecord {
    /// Deeper than any tree the views make (root, by-date, year, month, day).
    static let maxDepth = 8

    static func write(_ folder: VirtualFolder, to w: inout SnapshotWriter) {
        w.string(folder.name)
        w.time(folder.mtime)
        switch folder.entries {
        case .folders(let children):
            w.int(UInt8(0))
            w.int(UInt32(children.count))
            for child in children { write(child, to: &w) }
        case .files(let files):
            w.int(UInt8(1))
            w.int(UInt32(files.count))
            for file in files {
                w.string(file.name)
                w.int(UInt8(file.content == .status ? 0 : file.content == .errors ? 1 : file.content == .notShown ? 2 : 3))
            }
        case .photos(let entries):
            w.int(UInt8(2))
            w.int(UInt16(entries.thumbnailBox?.width ?? 0))
            w.int(UInt16(entries.thumbnailBox?.height ?? 0))
            w.int(UInt8(entries.slot))
            w.int32s(entries.members)
            w.int32s(entries.byName)
            w.int(UInt32(entries.renamed.count))
            for (photo, name) in entries.renamed.sorted(by: { $0.key < $1.key }) {
                w.int(photo)
                w.string(name)
            }
        }
    }

    static func read(_ r: inout SnapshotReader, photos: [Photo], depth: Int) throws(SnapshotRefusal) -> VirtualFolder {
        guard depth <= maxDepth else { throw SnapshotRefusal("folders nested too deep") }
        let name = try r.string()
        let mtime = try r.time()
        let entries: VirtualFolder.Entries
        switch try r.int(UInt8.self) {
        case 0:
            let n = try r.count(itemSize: 17)
            var children: [VirtualFolder] = []
            for _ in 0..<n { children.append(try read(&r, photos: photos, depth: depth + 1)) }
            entries = .folders(children)
        case 1:
            let n = try r.count(itemSize: 5)
            var files: [VirtualFolder.ControlFile] = []
            for _ in 0..<n {
                let name = try r.string()
                let content: FileContent
                switch try r.int(UInt8.self) {
                case 0: content = .status
                case 1: content = .errors
                case 2: content = .notShown
                case 3: content = .filterReadme
                default: throw SnapshotRefusal("an unknown control file")
                }
                files.append(.init(name: name, content: content))
            }
            entries = .files(files)
        case 2:
            entries = .photos(try readPhotoEntries(&r, photos: photos))
        default:
            throw SnapshotRefusal("an unknown kind of folder")
        }
        return VirtualFolder(name: name, entries: entries, mtime: mtime)
    }

    static func readPhotoEntries(_ r: inout SnapshotReader, photos: [Photo]) throws(SnapshotRefusal) -> PhotoEntries {
        let width = Int(try r.int(UInt16.self)), height = Int(try r.int(UInt16.self))
        let box = width == 0 && height == 0 ? nil : ThumbnailBox(width: width, height: height)
        guard box != nil || (width == 0 && height == 0) else { throw SnapshotRefusal("a thumbnail size out of range") }
        let slot = Int(try r.int(UInt8.self))
        let members = try r.int32s()
        let byName = try r.int32s()
        let n = try r.count(itemSize: 8)
        var renamed: [Int32: String] = [:]
        renamed.reserveCapacity(n)
        for _ in 0..<n { renamed[try r.int(Int32.self)] = try r.string() }
        guard let entries = PhotoEntries(photos: photos, members: members, byName: byName, renamed: renamed, thumbnailBox: box, slot: slot) else {
            throw SnapshotRefusal("a folder's entries out of range")
        }
        return entries
    }
}
