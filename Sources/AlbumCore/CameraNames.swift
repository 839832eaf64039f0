import AlbumSystem
/// Names a photo's camera as people say it ("Nikon D850", "Apple iPhone 15 Pro"), from the EXIF
/// `Make` and `Model` (or a video's QuickTime make and model keys) as they were written: the
/// `by-camera/` folder it is listed in (docs/rules.md, "Cameras").
public enum CameraNames {
    /// The folder of photos that name no camera.
    public static let unknown = "Unknown"

    /// Makers' brands as people write them, keyed by the first word of `Make` (or of `Model`),
    /// lowercased: makers write their company's name ("NIKON CORPORATION", "OLYMPUS IMAGING
    /// CORP.", "RICOH IMAGING COMPANY, LTD."), often in capitals, where people say the brand.
    static let brands: [String: String] = [
        "apple": "Apple", "canon": "Canon", "nikon": "Nikon", "sony": "Sony", "fujifilm": "Fujifilm", "fuji": "Fujifilm",
        "samsung": "Samsung", "google": "Google", "huawei": "Huawei", "honor": "Honor", "xiaomi": "Xiaomi",
        "oneplus": "OnePlus", "motorola": "Motorola", "lge": "LG", "lg": "LG", "panasonic": "Panasonic",
        "olympus": "Olympus", "om": "OM System", "pentax": "Pentax", "ricoh": "Ricoh", "dji": "DJI", "gopro": "GoPro",
        "leica": "Leica", "hasselblad": "Hasselblad", "sigma": "Sigma", "kodak": "Kodak", "eastman": "Kodak",
        "casio": "Casio", "minolta": "Minolta", "konica": "Konica Minolta", "htc": "HTC", "asus": "ASUS",
        "oppo": "OPPO", "vivo": "vivo", "realme": "realme", "nokia": "Nokia", "hmd": "Nokia", "zte": "ZTE",
        "nothing": "Nothing", "fairphone": "Fairphone", "microsoft": "Microsoft", "blackberry": "BlackBerry",
        "insta360": "Insta360", "parrot": "Parrot", "phase": "Phase One", "mamiya": "Mamiya", "epson": "Epson",
    ]

    /// Words that say which company, not which brand: dropped from a `Make` no table names.
    static let companyWords: Set<String> = ["corporation", "corp.", "corp", "co.,ltd.", "co.,", "co.", "ltd.", "ltd", "inc.", "inc",
                                            "company,", "company", "gmbh", "ag", "s.a.", "imaging", "electronics", "optical", "limited"]

    /// The folder name for a camera, `Unknown` when neither value names one.
    public static func folderName(make: String?, model: String?) -> String {
        let make = clean(make), model = clean(model)
        let modelBrand = firstWord(model).flatMap { brands[$0] }
        let makeBrand = brand(ofMake: make)
        // A model that starts with a brand ("Canon EOS R5", "PENTAX K-1" under "RICOH IMAGING")
        // names it: that word is the brand, the rest the model.
        if let modelBrand {
            let rest = afterFirstWord(model)
            return EntryNames.sanitise(rest.isEmpty ? modelBrand : modelBrand + " " + rest)
        }
        // A model that repeats the make as written ("KODAK" + "KODAK Z990") says it once.
        let modelWords = model.split(separator: " ")
        func repeats(_ name: String) -> Int? {
            let words = name.lowercased().split(separator: " ")
            guard !words.isEmpty, modelWords.count > words.count, zip(words, modelWords).allSatisfy({ $0 == $1.lowercased() }) else { return nil }
            return words.count
        }
        let repeated = repeats(make) ?? repeats(makeBrand) ?? 0
        let shown = modelWords.dropFirst(repeated).joined(separator: " ")
        switch (makeBrand.isEmpty, shown.isEmpty) {
        case (true, true): return unknown
        case (true, false): return EntryNames.sanitise(shown)
        case (false, true): return EntryNames.sanitise(makeBrand)
        case (false, false): return EntryNames.sanitise(makeBrand + " " + shown)
        }
    }

    /// The brand a `Make` names: the table's, else the make without its company words.
    static func brand(ofMake make: String) -> String {
        let words = make.split(separator: " ").map(String.init)
        guard let first = words.first?.lowercased() else { return "" }
        if let brand = brands[first] { return brand }
        let kept = words.enumerated().filter { $0.offset == 0 || !companyWords.contains($0.element.lowercased()) }.map(\.element)
        return kept.joined(separator: " ")
    }

    /// Trimmed of EXIF padding, its blanks run together (writers pad with spaces and NULs).
    static func clean(_ value: String?) -> String {
        guard let value else { return "" }
        return value.trimmedValue.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    static func firstWord(_ s: String) -> String? { s.split(separator: " ").first.map { $0.lowercased() } }

    static func afterFirstWord(_ s: String) -> String { s.split(separator: " ").dropFirst().joined(separator: " ") }
}

/// A camera as a file writes it: make and model, untouched.
public struct CameraWritten: Hashable, Sendable {
    public var make: String?
    public var model: String?

    public init(make: String?, model: String?) {
        self.make = make
        self.model = model
    }
}

/// The camera codes a scanner has given (`CameraTable`), by make and model as written: names
/// each pair once (a library holds thousands of photos per camera).
public final class CameraNameCache: Sendable {
    /// Make and model as written → the code of their name (`CameraNames.folderName`).
    private let codes = Locked<[CameraWritten: UInt16]>([:])

    public init() {}

    /// The cameras one reader thread named, with their codes: a library's photos come a few
    /// cameras at a time (two or three interleave in a folder), and a thread's own list needs no
    /// lock, where the shared map made the readers wait on each other. A short list compares a
    /// camera's two short strings with each, which costs less than hashing them; past `most`
    /// cameras, the oldest entry gives way.
    public struct Memo {
        struct Named: Equatable {
            var camera: CameraWritten
            var code: UInt16
        }
        var known: [Named] = []
        /// The entry the next camera replaces once the list is full.
        var next = 0
        static let most = 16
        public init() {}
    }

    /// `code(_:)` of the camera `make` and `model` name, through a reader's `memo`.
    public func code(make: String?, model: String?, memo: inout Memo) -> UInt16 {
        for named in memo.known where named.camera.make == make && named.camera.model == model { return named.code }
        let named = Memo.Named(camera: CameraWritten(make: make, model: model), code: code(CameraWritten(make: make, model: model)))
        if memo.known.count < Memo.most {
            memo.known.append(named)
        } else {
            memo.known[memo.next] = named
            memo.next = (memo.next + 1) % Memo.most
        }
        return named.code
    }

    /// The code of the folder name of `camera` in `CameraTable.shared`.
    public func code(_ camera: CameraWritten) -> UInt16 {
        guard camera.make != nil || camera.model != nil else { return 0 }
        if let known = codes.withLock({ $0[camera] }) { return known }
        let code = CameraTable.shared.code(CameraNames.folderName(make: camera.make, model: camera.model))
        codes.withLock { $0[camera] = code }
        return code
    }

    public func folderName(make: String?, model: String?) -> String {
        CameraTable.shared.name(code(CameraWritten(make: make, model: model)))
    }
}

/// Every camera folder name of this process, each stored once: a photo keeps its camera as a
/// two-byte code into this table (`Photo.camera`), where a string would take 16 bytes of every
/// photo (a million photos name a few dozen cameras). Codes are never reused; the table only
/// grows, and at its 65,536 names, new ones are `Unknown` (docs/rules.md, "Cameras").
public final class CameraTable: Sendable {
    public static let shared = CameraTable()

    /// The names by code, and the codes by name (`Unknown` is code 0).
    private struct Names {
        var byCode = [CameraNames.unknown]
        var byName = [CameraNames.unknown: UInt16(0)]
    }
    /// Guards the two maps, written together.
    private let names = Locked(Names())

    init() {}

    /// The code of `name`, given one if it has none (`Unknown`'s once the table is full).
    public func code(_ name: String) -> UInt16 {
        names.withLock { names in
            if let known = names.byName[name] { return known }
            guard names.byCode.count <= Int(UInt16.max) else { return 0 }
            let code = UInt16(names.byCode.count)
            names.byCode.append(name)
            names.byName[name] = code
            return code
        }
    }

    /// The name of `code` (`Unknown` for a code this table never gave).
    public func name(_ code: UInt16) -> String {
        names.withLock { names in Int(code) < names.byCode.count ? names.byCode[Int(code)] : CameraNames.unknown }
    }
}
