import AlbumCore

/// Indexed files packed into one byte buffer, and unpacked whole again: how a first scan holds
/// the rows it writes to the index after its views are published (`IndexWriter.Holding`).
///
/// As Swift values, a photo's record holds its evidence in a box of sixteen optional strings and
/// three optional numbers beside heap copies of its dates and path; packed, a file takes its
/// bytes and a few more, a fraction of that on top of the scan's peak (docs/benchmarks.md).
public struct PackedFiles: Sendable {
    @usableFromInline var bytes: [UInt8] = []
    public private(set) var count = 0

    /// The fields of `PhotoEvidence` that `pack` writes: a field added there must be added here
    /// (a unit test counts them).
    static let evidenceFieldCount = 35

    /// The formats by the byte that says a photo's format, less 2 (0 and 1: a file ignored, a
    /// problem). (An array, not a dictionary: a format hashes its name, once per file packed.)
    static let formats: [ImageFormat] = [.jpeg, .png, .heif, .video, .webp, .gif, .tiff, .jxl, .raw]

    static func tag(_ format: ImageFormat) -> UInt8 {
        switch format {
        case .jpeg: 2
        case .png: 3
        case .heif: 4
        case .video: 5
        case .webp: 6
        case .gif: 7
        case .tiff: 8
        case .jxl: 9
        case .raw: 10
        }
    }

    /// (Inlinable: compiled for the caller's collection, not through generic metadata at run time,
    /// which a batch's lazy map of records from another module otherwise was.)
    @inlinable
    public init(_ files: some Collection<IndexedFile>) {
        bytes.reserveCapacity(files.count * 160)
        for file in files { pack(file) }
    }

    /// How many bytes the files take.
    public var byteCount: Int { bytes.count }

    /// The files, as they were packed, in order.
    public func unpacked() -> [IndexedFile] {
        var files: [IndexedFile] = []
        files.reserveCapacity(count)
        var reader = Reader(bytes: bytes)
        for _ in 0..<count { files.append(reader.file()) }
        return files
    }

    @usableFromInline
    mutating func pack(_ f: IndexedFile) {
        count += 1
        string(f.relativePath)
        int(Int64(bitPattern: f.identity.inode))
        int(f.identity.size)
        int(f.identity.mtime.nanosecondsSinceEpoch)
        optionalInt(f.changedWhenRead?.nanosecondsSinceEpoch)
        switch f.kind {
        case .ignored:
            bytes.append(0)
        case .problem(let message):
            bytes.append(1)
            string(message)
        case .photo(let format, _):
            bytes.append(Self.tag(format))
            f.withPhotoEvidence { e in pack(e) }
        }
    }

    /// A photo's evidence, read where it lies in its record (no copy of its strings).
    private mutating func pack(_ e: borrowing PhotoEvidence) {
        // (Field by field, not a loop over an array of them: the array, and a retain of every
        // string in it, for every photo of the scan.)
        optionalString(e.dateTimeOriginal); optionalString(e.subSecTimeOriginal); optionalString(e.offsetTimeOriginal)
        optionalString(e.dateTimeDigitized); optionalString(e.subSecTimeDigitized); optionalString(e.offsetTimeDigitized)
        optionalString(e.xmpDateCreated); optionalString(e.xmpDateTimeOriginal)
        optionalString(e.make); optionalString(e.model); optionalString(e.software)
        optionalString(e.gpsDateTimeUTC); optionalString(e.userComment)
        optionalString(e.xmpUserComment); optionalString(e.pngSoftware); optionalString(e.pngComment)
        optionalString(e.xmpCreateDate); optionalString(e.quickTimeCreationDate); optionalString(e.contentIdentifier)
        optionalInt(e.movieCreationTime)
        // Bit 1 of the exposure byte: IFD0 DateTime or OffsetTime follow (none: no byte for
        // them); bit 2: a sidecar follows; bit 3: a motion photo's video range follows; bit 4: a
        // rating follows (few photos have one: no byte for it otherwise); bit 5: kind tags follow;
        // bit 6: a GPS position follows (the two coordinates' bit patterns).
        let modified = e.dateTime != nil || e.offsetTime != nil
        let rated = e.xmpRating != nil || e.exifRating != nil
        let placed = e.gpsLatitude != nil || e.gpsLongitude != nil
        bytes.append((e.hasExposureData ? 1 : 0) | (modified ? 2 : 0) | (e.sidecar != nil ? 4 : 0) | (e.motionVideo != nil ? 8 : 0) | (rated ? 16 : 0)
                     | (e.kinds.isEmpty ? 0 : 32) | (placed ? 64 : 0))
        if modified { optionalString(e.dateTime); optionalString(e.offsetTime) }
        if let sidecar = e.sidecar { string(sidecar.encoded) }
        if let motion = e.motionVideo { int(motion.offset); int(motion.length) }
        if rated { optionalString(e.xmpRating); optionalInt(e.exifRating.map(Int64.init)) }
        if !e.kinds.isEmpty { string(e.kinds.encoded) }
        if placed {
            optionalInt(e.gpsLatitude.map { Int64(bitPattern: $0.bitPattern) }); optionalInt(e.gpsLongitude.map { Int64(bitPattern: $0.bitPattern) })
        }
        optionalInt(e.orientation.map(Int64.init))
        optionalInt(e.pixelWidth.map(Int64.init))
        optionalInt(e.pixelHeight.map(Int64.init))
        length(e.problems.count)
        for problem in e.problems { string(problem) }
        bytes.append(e.access == nil ? 0 : 1)
        if let access = e.access { int(Int64(access.uid)); int(Int64(access.gid)); int(Int64(access.mode)) }
    }

    /// A length: 7 bits a byte, the high bit set on all but the last.
    private mutating func length(_ n: Int) {
        var n = UInt(n)
        while n >= 0x80 {
            bytes.append(UInt8(n & 0x7F) | 0x80)
            n >>= 7
        }
        bytes.append(UInt8(n))
    }

    private mutating func string(_ s: String) {
        length(s.utf8.count)
        bytes.append(contentsOf: s.utf8)
    }

    /// Its length plus one, 0 for nil.
    private mutating func optionalString(_ s: String?) {
        guard let s else { return bytes.append(0) }
        length(s.utf8.count + 1)
        bytes.append(contentsOf: s.utf8)
    }

    private mutating func int(_ v: Int64) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private mutating func optionalInt(_ v: Int64?) {
        guard let v else { return bytes.append(0) }
        bytes.append(1)
        int(v)
    }

    /// Reads back what `pack` wrote (its own bytes: no check beyond the bounds).
    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        mutating func file() -> IndexedFile {
            let path = string()
            let identity = FileIdentity(inode: UInt64(bitPattern: int()), size: int(), mtime: Timestamp(nanosecondsSinceEpoch: int()))
            let changed = optionalInt().map { Timestamp(nanosecondsSinceEpoch: $0) }
            let tag = byte()
            let kind: IndexedFile.Kind
            switch tag {
            case 0: kind = .ignored
            case 1: kind = .problem(string())
            default:
                var e = PhotoEvidence()
                e.dateTimeOriginal = optionalString(); e.subSecTimeOriginal = optionalString()
                e.offsetTimeOriginal = optionalString(); e.dateTimeDigitized = optionalString()
                e.subSecTimeDigitized = optionalString(); e.offsetTimeDigitized = optionalString()
                e.xmpDateCreated = optionalString(); e.xmpDateTimeOriginal = optionalString()
                e.make = optionalString(); e.model = optionalString(); e.software = optionalString()
                e.gpsDateTimeUTC = optionalString(); e.userComment = optionalString()
                e.xmpUserComment = optionalString(); e.pngSoftware = optionalString(); e.pngComment = optionalString()
                e.xmpCreateDate = optionalString(); e.quickTimeCreationDate = optionalString(); e.contentIdentifier = optionalString()
                e.movieCreationTime = optionalInt()
                let flags = byte()
                e.hasExposureData = flags & 1 == 1
                if flags & 2 == 2 { e.dateTime = optionalString(); e.offsetTime = optionalString() }
                if flags & 4 == 4 { e.sidecar = SidecarEvidence(encoded: string()) }
                if flags & 8 == 8 { e.motionVideo = ByteRange(offset: int(), length: int()) }
                if flags & 16 == 16 { e.xmpRating = optionalString(); e.exifRating = optionalInt().map { Int(truncatingIfNeeded: $0) } }
                if flags & 32 == 32 { e.kinds = KindEvidence(encoded: string()) }
                if flags & 64 == 64 {
                    e.gpsLatitude = optionalInt().map { Double(bitPattern: UInt64(bitPattern: $0)) }
                    e.gpsLongitude = optionalInt().map { Double(bitPattern: UInt64(bitPattern: $0)) }
                }
                e.orientation = optionalInt().map(Int.init)
                e.pixelWidth = optionalInt().map(Int.init)
                e.pixelHeight = optionalInt().map(Int.init)
                e.problems = (0..<length()).map { _ in string() }
                if byte() == 1 {
                    let (uid, gid, mode) = (int(), int(), int())
                    e.access = FileAccess(uid: UInt32(truncatingIfNeeded: uid), gid: UInt32(truncatingIfNeeded: gid), mode: UInt32(truncatingIfNeeded: mode))
                }
                kind = .photo(PackedFiles.formats.indices.contains(Int(tag) - 2) ? PackedFiles.formats[Int(tag) - 2] : .jpeg, e)
            }
            return IndexedFile(relativePath: path, identity: identity, kind: kind, changedWhenRead: changed)
        }

        mutating func byte() -> UInt8 {
            guard at < bytes.count else { return 0 }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func length() -> Int {
            var n = 0, shift = 0
            while shift < 63 {
                let b = byte()
                n |= Int(b & 0x7F) << shift
                if b < 0x80 { break }
                shift += 7
            }
            return n
        }

        mutating func text(_ count: Int) -> String {
            let end = min(bytes.count, at + count)
            defer { at = end }
            return String(decoding: bytes[at..<end], as: UTF8.self)
        }

        mutating func string() -> String { text(length()) }

        mutating func optionalString() -> String? {
            let n = length()
            return n == 0 ? nil : text(n - 1)
        }

        mutating func int() -> Int64 {
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(byte()) << (8 * UInt64(i)) }
            return Int64(bitPattern: v)
        }

        mutating func optionalInt() -> Int64? { byte() == 1 ? int() : nil }
    }
}
