/// Names of entries in the virtual folders: sanitised, bounded, and unique within a folder.
public enum EntryNames {
    /// The longest name most Linux filesystems accept, in bytes.
    public static let maxBytes = 255

    /// A name that is safe as one path component: no `/` or NUL, not `.`/`..`, at most 255 bytes
    /// (cut on a character boundary, keeping the extension).
    public static func sanitise(_ raw: String) -> String {
        // Nearly every name is fine as it is: one pass over the bytes says so.
        // (In the string's own contiguous bytes where it has them: every view names every photo.)
        let bytes = raw.utf8
        let clean = bytes.withContiguousStorageIfAvailable { Self.isPlainName($0) } ?? Self.isPlainName(bytes)
        if clean, raw != ".", raw != ".." { return raw }
        var name = String(raw.map { $0 == "/" || $0 == "\0" ? "_" : $0 })
        if name.isEmpty || name == "." || name == ".." { name = "_" + name }
        return bounded(name, maxBytes: maxBytes)
    }

    /// Not empty, at most `maxBytes` long, no `/` or NUL.
    private static func isPlainName(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count <= maxBytes && !bytes.isEmpty && !bytes.contains { $0 == UInt8(ascii: "/") || $0 == 0 }
    }

    static func bounded(_ name: String, maxBytes: Int) -> String {
        guard name.utf8.count > maxBytes else { return name }
        let (stem, ext) = split(name)
        let budget = max(1, maxBytes - ext.utf8.count)
        var cut = ""
        for ch in stem {
            if cut.utf8.count + String(ch).utf8.count > budget { break }
            cut.append(ch)
        }
        return cut + ext
    }

    /// A photo's name in the views: its file's, with the extension of its format where the file
    /// has another format's (a PNG named `x.jpeg` → `x.png`) or none that names an image
    /// (`mongolia` → `mongolia.jpg`, `scan.v2` → `scan.v2.jpg`), since tools and viewers
    /// (`exiftool -r`, Windows over SMB) go by the extension. The file's own name stays in
    /// `user.albumfs.source`.
    public static func viewName(of fileName: String, format: ImageFormat) -> String {
        // Most names end in their format's extension: told from the bytes, with nothing made
        // (a listing names every photo of a folder at `opendir`, a million at a time).
        if endsInExtension(of: format, fileName) { return fileName }
        let (stem, ext) = split(fileName)
        let type = ext.dropFirst().lowercased()
        if format.extensions.contains(type) { return fileName }
        let otherFormat = ImageFormat.allCases.contains { $0.extensions.contains(type) }
        return (otherFormat ? stem : fileName) + "." + format.extensions[0]
    }

    /// Whether `name` ends in `.` and one of `format`'s extensions, in any case (ASCII).
    static func endsInExtension(of format: ImageFormat, _ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return false }
            let ext = UnsafeBufferPointer(rebasing: bytes[(dot + 1)...])
            return format.extensions.contains { known in
                known.utf8.count == ext.count && zip(known.utf8, ext).allSatisfy { $0 == $1 | (($1 >= 65 && $1 <= 90) ? 0x20 : 0) }
            }
        }
    }

    /// `IMG_1.JPG` → `IMG_1.jpg`; a name without an extension gains one.
    public static func replacingExtension(of name: String, with ext: String) -> String {
        split(name).stem + ext
    }

    /// `IMG_1.JPG` → (`IMG_1`, `.JPG`). A leading dot is not an extension.
    static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastUTF8Index(of: UInt8(ascii: ".")), dot != name.startIndex else { return (name, "") }
        let ext = String(name[dot...])
        // An "extension" of 16 characters or more is part of the name, not a type.
        guard ext.count <= 16, !ext.utf8.contains(UInt8(ascii: " ")) else { return (name, "") }
        return (String(name[..<dot]), ext)
    }

    /// A short, stable tag for a source path (FNV-1a 64), used to tell same-named photos apart.
    public static func tag(for sourcePath: String, hexDigits: Int = 6) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sourcePath.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        let full = String(repeating: "0", count: 16 - hex.count) + hex
        return String(full.prefix(hexDigits))
    }

    /// The name a photo takes when another holds the one it wants: `stem~tag.ext`, the tag of
    /// its source path `digits` long, the stem cut to keep the name within `maxBytes`.
    static func tagged(stem: String, ext: String, path: String, digits: Int = 6) -> String {
        bounded(stem, maxBytes: maxBytes - ext.utf8.count - digits - 1) + "~" + tag(for: path, hexDigits: digits) + ext
    }

    /// Gives each item a unique name within one folder.
    ///
    /// Items that want the same name are ordered by source path: the first keeps the plain name,
    /// the others become `stem~tag.ext` with a tag derived from their source path, so the same
    /// library always gives the same names, whatever order files were found in.
    public static func assign(_ wanted: [(name: String, sourcePath: String)]) -> [String] {
        assign(wanted.map(\.name)) { wanted[$0].sourcePath }
    }

    /// `assign`, with each item's source path asked for only when its name is wanted twice (a
    /// folder of 100,000 photos need not gather 100,000 paths to settle a handful of clashes).
    public static func assign(_ names: [String], sourcePath: (Int) -> String) -> [String] {
        assignAndOrder(names, sourcePath: sourcePath).names
    }

    /// `assign`, also giving the items' positions ordered by their final names (what a folder's
    /// lookups need). Items that want the same name are neighbours in name order, so no map of
    /// every name is built. `nearlyByName`: the positions in an order close to name order, if the
    /// caller has one (the sort is adaptive: a folder's photos in walk order come in sorted runs).
    public static func assignAndOrder(_ wanted: [String], nearlyByName hint: [Int]? = nil,
                                      sourcePath: (Int) -> String) -> (names: [String], byName: [Int]) {
        var result = wanted.map(sanitise)
        var byName = (hint ?? Array(result.indices)).sorted { result[$0] < result[$1] }
        // The groups that want one name, in name order (so suffixes never depend on any other order).
        var clashes: [ArraySlice<Int>] = []
        var start = 0
        while start < byName.count {
            var end = start + 1
            while end < byName.count && result[byName[end]] == result[byName[start]] { end += 1 }
            if end - start > 1 { clashes.append(byName[start..<end]) }
            start = end
        }
        guard !clashes.isEmpty else { return (result, byName) }
        // A name is taken if any item wanted it, or a suffix gave it already.
        let wantedInOrder = byName.map { result[$0] }
        var given = Set<String>()
        func isTaken(_ name: String) -> Bool {
            if given.contains(name) { return true }
            var low = 0, high = wantedInOrder.count
            while low < high {
                let mid = (low + high) / 2
                if wantedInOrder[mid] < name { low = mid + 1 } else { high = mid }
            }
            return low < wantedInOrder.count && wantedInOrder[low] == name
        }
        for members in clashes {
            let (stem, ext) = split(result[members.first!])
            let ordered = members.map { ($0, sourcePath($0)) }.sorted { $0.1 < $1.1 }
            for (i, path) in ordered.dropFirst() {
                var digits = 6
                var candidate: String
                repeat {
                    candidate = tagged(stem: stem, ext: ext, path: path, digits: digits)
                    digits += 2
                } while isTaken(candidate) && digits <= 16
                var n = 2
                let base = candidate
                while isTaken(candidate) {
                    let (s, e) = split(base)
                    candidate = "\(s)-\(n)\(e)"
                    n += 1
                }
                given.insert(candidate)
                result[i] = candidate
            }
        }
        // Renamed items move; the rest is in order already.
        byName.sort { result[$0] < result[$1] }
        return (result, byName)
    }
}
