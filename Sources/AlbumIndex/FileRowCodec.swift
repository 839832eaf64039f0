import AlbumCore
import AlbumSystem

/// How a file's row in the `files` table holds an `IndexedFile`: its columns, bound in one
/// order and read back in the same.
enum FileRowCodec {
    /// A row's columns, in the order `bind` gives and `decode` takes them.
    static let columns = ["path", "inode", "size", "mtime_ns", "ctime_ns", "kind", "message"] + IndexSchema.evidenceColumns
        + ["exposure", "orientation", "width", "height", "problems", "uid", "gid", "mode", "motion_offset", "motion_length"]

    /// Binds one row's parameters, in `columns`' order.
    static func bind(_ f: IndexedFile, _ b: inout SQLiteDatabase.Binder) throws(SQLiteDatabase.Failure) {
        let id = f.identity
        try b.text(f.relativePath)
        try b.int(Int64(bitPattern: id.inode))
        try b.int(id.size)
        try b.int(IndexConnection.nanoseconds(id.mtime))
        try b.int(f.changedWhenRead.map(IndexConnection.nanoseconds))
        switch f.kind {
        case .ignored:
            try b.text("ignored")
        case .problem(let message):
            try b.text("problem")
            try b.text(message)
        case .photo(let format, _):
            try b.text(format.rawValue)
            b.null()
            try f.withPhotoEvidence { e throws(SQLiteDatabase.Failure) in try bindEvidence(e, &b) }
        }
        // (The columns not bound, the evidence of a file that is not a photo, stay NULL.)
    }

    /// A photo's evidence columns, field by field (an array of them made and freed a row, with a
    /// retain of every string in it, cost the index writer more than SQLite did).
    static func bindEvidence(_ e: borrowing PhotoEvidence, _ b: inout SQLiteDatabase.Binder) throws(SQLiteDatabase.Failure) {
        try b.text(e.dateTimeOriginal); try b.text(e.subSecTimeOriginal); try b.text(e.offsetTimeOriginal)
        try b.text(e.dateTimeDigitized); try b.text(e.subSecTimeDigitized); try b.text(e.offsetTimeDigitized)
        try b.text(e.xmpDateCreated); try b.text(e.xmpDateTimeOriginal)
        try b.text(e.make); try b.text(e.model); try b.text(e.software); try b.text(e.userComment)
        try b.text(e.xmpUserComment); try b.text(e.pngSoftware); try b.text(e.gpsDateTimeUTC); try b.text(e.pngComment)
        try b.text(e.xmpCreateDate); try b.text(e.quickTimeCreationDate); try b.text(e.contentIdentifier)
        try b.text(e.movieCreationTime.map { String($0) })
        try b.text(e.dateTime); try b.text(e.offsetTime); try b.text(e.sidecar?.encoded); try b.text(e.xmpRating)
        try b.text(e.exifRating.map { String($0) })
        try b.text(e.kinds.isEmpty ? nil : e.kinds.encoded)
        try b.text(e.gpsLatitude.map { "\($0)" }); try b.text(e.gpsLongitude.map { "\($0)" })
        try b.int(e.hasExposureData ? 1 : 0)
        try b.int(e.orientation.map(Int64.init))
        try b.int(e.pixelWidth.map(Int64.init))
        try b.int(e.pixelHeight.map(Int64.init))
        try b.text(e.problems.isEmpty ? nil : e.problems.joined(separator: "\n"))
        try b.int(e.access.map { Int64($0.uid) }); try b.int(e.access.map { Int64($0.gid) }); try b.int(e.access.map { Int64($0.mode) })
        try b.int(e.motionVideo?.offset)
        try b.int(e.motionVideo?.length)
    }

    static func decode(_ r: SQLiteDatabase.Row) -> IndexedFile {
        func text(_ i: Int) -> String? { r.text(i) }
        func int(_ i: Int) -> Int64? { r.int(i) }
        let identity = FileIdentity(inode: UInt64(bitPattern: int(1) ?? 0), size: int(2) ?? 0, mtime: IndexConnection.time(int(3) ?? 0))
        let path = text(0) ?? ""
        let changed = int(4).map(IndexConnection.time)
        switch text(5) {
        case "ignored": return IndexedFile(relativePath: path, identity: identity, kind: .ignored, changedWhenRead: changed)
        case "problem": return IndexedFile(relativePath: path, identity: identity, kind: .problem(text(6) ?? ""), changedWhenRead: changed)
        case let format?:
            var e = PhotoEvidence()
            let base = 7
            e.dateTimeOriginal = text(base); e.subSecTimeOriginal = text(base + 1); e.offsetTimeOriginal = text(base + 2)
            e.dateTimeDigitized = text(base + 3); e.subSecTimeDigitized = text(base + 4); e.offsetTimeDigitized = text(base + 5)
            e.xmpDateCreated = text(base + 6); e.xmpDateTimeOriginal = text(base + 7); e.make = text(base + 8); e.model = text(base + 9)
            e.software = text(base + 10); e.userComment = text(base + 11); e.xmpUserComment = text(base + 12); e.pngSoftware = text(base + 13)
            e.gpsDateTimeUTC = text(base + 14); e.pngComment = text(base + 15)
            e.xmpCreateDate = text(base + 16); e.quickTimeCreationDate = text(base + 17); e.contentIdentifier = text(base + 18)
            e.movieCreationTime = text(base + 19).flatMap { Int64($0) }
            e.dateTime = text(base + 20); e.offsetTime = text(base + 21)
            e.sidecar = text(base + 22).flatMap(SidecarEvidence.init(encoded:))
            e.xmpRating = text(base + 23); e.exifRating = text(base + 24).flatMap { Int($0) }
            e.kinds = text(base + 25).map(KindEvidence.init(encoded:)) ?? KindEvidence()
            e.gpsLatitude = text(base + 26).flatMap { Double($0) }; e.gpsLongitude = text(base + 27).flatMap { Double($0) }
            let after = base + IndexSchema.evidenceColumns.count
            e.hasExposureData = int(after) == 1
            e.orientation = int(after + 1).map(Int.init)
            e.pixelWidth = int(after + 2).map(Int.init)
            e.pixelHeight = int(after + 3).map(Int.init)
            e.problems = text(after + 4).map { $0.split(separator: "\n").map(String.init) } ?? []
            if let uid = int(after + 5), let gid = int(after + 6), let mode = int(after + 7) {
                e.access = FileAccess(uid: UInt32(truncatingIfNeeded: uid), gid: UInt32(truncatingIfNeeded: gid), mode: UInt32(truncatingIfNeeded: mode))
            }
            if let offset = int(after + 8), let length = int(after + 9) { e.motionVideo = ByteRange(offset: offset, length: length) }
            return IndexedFile(relativePath: path, identity: identity, kind: .photo(ImageFormat(rawValue: format) ?? .jpeg, e), changedWhenRead: changed)
        case nil: return IndexedFile(relativePath: path, identity: identity, kind: .ignored, changedWhenRead: changed)
        }
    }
}
