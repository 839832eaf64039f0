import AlbumCore

/// Which file of a folder is a photo's sidecar, by the names writers give them.
///
/// XMP: `NAME.EXT.xmp` (darktable, digiKam, RawTherapee) before `NAME.xmp` (Lightroom, Capture
/// One), the `.xmp` in any case. Google Takeout: `NAME.EXT.supplemental-metadata.json` (since
/// 2024), `NAME.EXT.json`, `NAME.json`; a JSON name longer than 51 characters cut to 46 before its
/// `.json` (the `.supplemental-metadata` cut with it); a copy `NAME(1).EXT` gets
/// `NAME.EXT(1).json`; an edited copy `NAME-edited.EXT` shares the original's JSON.
public struct FolderSidecars: Sendable {
    /// The folder's XMP files by their name without `.xmp`; its JSON files by name.
    private var xmp: [String: String] = [:]
    private var json: Set<String> = []

    /// From the names of one folder's files.
    public init(names: some Sequence<String>) {
        for name in names {
            // (Most names end in neither: one byte tells, before any string work.)
            guard let last = name.utf8.last, last | 0x20 == UInt8(ascii: "p") || last == UInt8(ascii: "n") else { continue }
            if let stem = Self.stem(name, droppingExtension: "xmp") {
                xmp[stem] = xmp[stem].map { min($0, name) } ?? name
            } else if name.utf8.count > 5, name.hasSuffix(".json") {
                json.insert(name)
            }
        }
    }

    /// Whether the folder holds any file that may be a sidecar: most do not, and ask nothing more.
    public var isEmpty: Bool { xmp.isEmpty && json.isEmpty }

    /// The sidecar of the photo named `photo`, if the folder holds one: its name and kind, XMP
    /// first (a user's own edits, made after the export).
    public func sidecar(of photo: String) -> (name: String, kind: SidecarEvidence.Kind)? {
        guard !isEmpty else { return nil }
        if let name = xmp[photo] ?? Self.stem(photo).flatMap({ xmp[$0] }) { return (name, .xmp) }
        if let name = Self.takeoutNames(for: photo).first(where: json.contains) { return (name, .takeout) }
        return nil
    }

    /// Whether `name` is the name a sidecar of some photo could have: such a file in a folder
    /// is said as a sidecar, not as a document.
    public static func maySidecar(_ name: String) -> Bool {
        stem(name, droppingExtension: "xmp") != nil || name.hasSuffix(".json")
    }

    /// Whether a file named `sidecar` may be the sidecar of the photo named `photo`, by name.
    public static func mayBelong(_ sidecar: String, to photo: String) -> Bool {
        if let stem = stem(sidecar, droppingExtension: "xmp") { return stem == photo || stem == Self.stem(photo) }
        return sidecar.hasSuffix(".json") && takeoutNames(for: photo).contains(sidecar)
    }

    /// The names Takeout may give the JSON of `photo`, most specific first.
    public static func takeoutNames(for photo: String) -> [String] {
        var names: [String] = []
        for base in [photo] + uneditedNames(photo) {
            let (plain, copy) = copyNumber(base)
            for full in [plain + ".supplemental-metadata", plain] {
                names.append(full + copy + ".json")
                names.append(String(full.prefix(46)) + copy + ".json")
            }
            if let stem = stem(plain) { names.append(stem + copy + ".json") }
        }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// Takeout's mark of an edited copy (in the account's language), before the extension.
    static let editedMarks = ["-edited", "-bearbeitet", "-modifié", "-editado", "-modificato", "-bewerkt"]

    /// The original's name of an edited copy (`IMG_1-edited.jpg` → `IMG_1.jpg`), if it is one.
    static func uneditedNames(_ photo: String) -> [String] {
        guard let stem = stem(photo) else { return [] }
        let ext = photo.dropFirst(stem.count)
        return editedMarks.compactMap { stem.hasSuffix($0) ? String(stem.dropLast($0.count)) + ext : nil }
    }

    /// `NAME(n).EXT` as `NAME.EXT` and `(n)`: Takeout numbers a copy before the extension, its
    /// JSON after it. A name without a copy number gives itself and "".
    static func copyNumber(_ photo: String) -> (plain: String, copy: String) {
        guard let stem = stem(photo), stem.hasSuffix(")"), let open = stem.lastIndex(of: "("),
              open > stem.startIndex else { return (photo, "") }
        let digits = stem[stem.index(after: open)..<stem.index(before: stem.endIndex)]
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy(\.isASCIIDigit) else { return (photo, "") }
        return (String(stem[..<open]) + photo.dropFirst(stem.count), String(stem[open...]))
    }

    /// The name without its last extension; nil when it has none (`.x` and `x` alike).
    static func stem(_ name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return String(name[..<dot])
    }

    /// The name without `.EXT`, compared in ASCII case; nil when it does not end so.
    static func stem(_ name: String, droppingExtension ext: String) -> String? {
        guard let stem = stem(name), stem.utf8.count + 1 + ext.utf8.count == name.utf8.count,
              name.utf8.suffix(ext.utf8.count).elementsEqual(ext.utf8, by: { $0 | 0x20 == $1 }) else { return nil }
        return stem
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
