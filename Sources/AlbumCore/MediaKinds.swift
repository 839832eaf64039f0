/// The kinds of photo and video a phone's photo picker filters by (`media-types/KIND/`), each a
/// folder name and a bit of `MediaKinds` (docs/rules.md, "Kinds").
///
/// Cases are added at the end: the raw value is a bit's position in what a views snapshot keeps.
public enum MediaKind: Int, CaseIterable, Sendable {
    case livePhotos, portraits, panoramas, selfies, bursts, sloMo, timeLapse, screenRecordings, cinematic, spatial, raw

    /// The kind's folder in `media-types/`, and its word in `user.albumfs.kinds`.
    public var name: String { Self.names[rawValue] }
    private static let names = ["live-photos", "portraits", "panoramas", "selfies", "bursts", "slo-mo", "time-lapse",
                                "screen-recordings", "cinematic", "spatial", "raw"]

    /// The kind a folder name names.
    public init?(name: String) {
        guard let index = Self.names.firstIndex(of: name) else { return nil }
        self.init(rawValue: index)
    }

    /// The kind's bit.
    public var bit: MediaKinds { MediaKinds(rawValue: 1 << UInt16(rawValue)) }
}

/// A set of kinds, one bit each (`MediaKind.bit`).
public struct MediaKinds: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The kinds in the set, in `MediaKind`'s order.
    public var kinds: [MediaKind] { MediaKind.allCases.filter { contains($0.bit) } }
}

/// The raw values of the tags that tell a photo's kind, as the file writes them (nil: absent).
public struct KindEvidence: Sendable, Equatable {
    /// EXIF `CustomRendered` (0xA401): Apple writes 6 for a panorama, 7 and 8 for portraits.
    public var customRendered: Int?
    /// EXIF `LensModel` (0xA434): iPhones name the lens, `iPhone 12 front camera 4.2mm f/2.2`.
    public var lensModel: String?
    /// Apple maker note `BurstUUID` (0x000B): shared by the photos of one burst.
    public var appleBurstUUID: String?
    /// Apple maker note `FrontFacingCamera` (0x0045).
    public var appleFrontFacing: Int?
    /// XMP `GCamera:SpecialTypeID` (Google Camera: a portrait's `…SpecialType-PORTRAIT`).
    public var specialTypeID: String?
    /// XMP `GCamera:BurstID` (Google Camera): shared by the photos of one burst.
    public var googleBurstID: String?
    /// XMP `GPano:ProjectionType` (Google's photo sphere and panorama XMP).
    public var projectionType: String?
    /// QuickTime Keys `com.apple.quicktime.full-frame-rate-playback-intent`: 0 for slow motion.
    public var playbackIntent: String?
    /// QuickTime Keys `com.android.capture.fps`: the rate Android's recorder captured at.
    public var captureFPS: String?

    public init() {}

    /// Whether no tag was found (nothing for the index to keep).
    /// (Field by field: asked of every photo a scan packs and saves, where comparing with an empty
    /// value makes one and compares every field through the runtime.)
    public var isEmpty: Bool {
        customRendered == nil && lensModel == nil && appleBurstUUID == nil && appleFrontFacing == nil && specialTypeID == nil
            && googleBurstID == nil && projectionType == nil && playbackIntent == nil && captureFPS == nil
    }

    /// The burst a photo belongs to: Apple's identifier, else Google's.
    public var burstIdentifier: String? {
        (appleBurstUUID?.trimmedValue).flatMap { $0.isEmpty ? nil : $0 } ?? (googleBurstID?.trimmedValue).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The fields as `key=value` lines (one index column, one packed string).
    public var encoded: String {
        var lines: [String] = []
        for (key, value) in fields { if let value { lines.append(key + "=" + value.filter { $0 != "\n" }) } }
        return lines.joined(separator: "\n")
    }

    public init(encoded: String) {
        for line in encoded.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            set(String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    private var fields: [(String, String?)] {
        [("cr", customRendered.map(String.init)), ("lens", lensModel), ("burst", appleBurstUUID),
         ("front", appleFrontFacing.map(String.init)), ("gtype", specialTypeID), ("gburst", googleBurstID),
         ("proj", projectionType), ("intent", playbackIntent), ("fps", captureFPS)]
    }

    private mutating func set(_ key: String, _ value: String) {
        switch key {
        case "cr": customRendered = Int(value)
        case "lens": lensModel = value
        case "burst": appleBurstUUID = value
        case "front": appleFrontFacing = Int(value)
        case "gtype": specialTypeID = value
        case "gburst": googleBurstID = value
        case "proj": projectionType = value
        case "intent": playbackIntent = value
        case "fps": captureFPS = value
        default: break
        }
    }
}

/// One rule of `MediaKindRules`: a kind, the tag and value that show it, and the test.
public struct KindSignal: Sendable {
    public let kind: MediaKind
    /// What `user.albumfs.kinds` says of it: the tag as exiftool names it, and the value.
    public let evidence: String
    let holds: @Sendable (KindEvidence) -> Bool
}

/// Which kinds a photo is, from the tags the scan reads (docs/rules.md, "Kinds").
///
/// A photo keeps which signals held (`signals`, a bit per row of `table`): its kinds and their
/// evidence are told from those bits, the format and the screen-recording decision, without the
/// tags themselves. Live Photos are pairs, told when the views are built (`LivePhotos`).
public enum MediaKindRules {
    public static let table: [KindSignal] = [
        KindSignal(kind: .portraits, evidence: "exif:CustomRendered is 8 (Portrait)") { $0.customRendered == 8 },
        KindSignal(kind: .portraits, evidence: "exif:CustomRendered is 7 (Portrait HDR)") { $0.customRendered == 7 },
        KindSignal(kind: .portraits, evidence: "xmp:GCamera:SpecialTypeID is a portrait") {
            $0.specialTypeID?.hasSuffix("SpecialType-PORTRAIT") == true
        },
        KindSignal(kind: .panoramas, evidence: "exif:CustomRendered is 6 (Panorama)") { $0.customRendered == 6 },
        KindSignal(kind: .panoramas, evidence: "xmp:GPano:ProjectionType is set") {
            !($0.projectionType?.trimmedValue.isEmpty ?? true)
        },
        KindSignal(kind: .selfies, evidence: "exif:LensModel names the front camera") {
            $0.lensModel?.lowercased().contains("front camera") == true
        },
        KindSignal(kind: .selfies, evidence: "apple:FrontFacingCamera is 1") { $0.appleFrontFacing == 1 },
        KindSignal(kind: .bursts, evidence: "apple:BurstUUID is set") { !($0.appleBurstUUID?.trimmedValue.isEmpty ?? true) },
        KindSignal(kind: .bursts, evidence: "xmp:GCamera:BurstID is set") { !($0.googleBurstID?.trimmedValue.isEmpty ?? true) },
        KindSignal(kind: .sloMo, evidence: "quicktime:com.apple.quicktime.full-frame-rate-playback-intent is 0") {
            $0.playbackIntent.flatMap { Int($0.trimmedValue) } == 0
        },
        KindSignal(kind: .sloMo, evidence: "quicktime:com.android.capture.fps is 100 or more") {
            captureRate($0).map { $0 >= sloMoRate } ?? false
        },
        KindSignal(kind: .timeLapse, evidence: "quicktime:com.android.capture.fps is below 20") {
            captureRate($0).map { $0 > 0 && $0 < timeLapseRate } ?? false
        },
    ]

    /// Capture rates at or above this are slow motion (phones' slow motion: 120, 240, 960 fps;
    /// a 60 fps clip plays at its own rate).
    static let sloMoRate = 100.0
    /// Capture rates below this are a time-lapse (a frame every second or more; a film's 24 fps is not).
    static let timeLapseRate = 20.0

    static func captureRate(_ e: KindEvidence) -> Double? {
        e.captureFPS.flatMap { Double($0.trimmedValue) }.flatMap { $0.isFinite ? $0 : nil }
    }

    /// The rows of `table` that hold, as bits.
    public static func signals(_ e: KindEvidence, format: ImageFormat) -> UInt32 {
        // (Most photos carry none of these tags: no row can hold.)
        guard !e.isEmpty else { return 0 }
        var bits: UInt32 = 0
        for (k, row) in table.enumerated() where row.holds(e) && applies(row.kind, to: format) { bits |= 1 << UInt32(k) }
        return bits
    }

    /// Whether a kind is one a file of `format` can be: slow motion and time-lapse are videos,
    /// the kinds a still's tags say are stills.
    static func applies(_ kind: MediaKind, to format: ImageFormat) -> Bool {
        switch kind {
        case .sloMo, .timeLapse, .screenRecordings, .cinematic, .spatial: !format.isStill
        default: format.isStill
        }
    }

    /// The kinds of a photo whose signals are `signals`, but Live Photos (a pair, not a tag).
    public static func kinds(signals: UInt32, format: ImageFormat, isScreenRecording: Bool) -> MediaKinds {
        var kinds: MediaKinds = []
        for (k, row) in table.enumerated() where signals & (1 << UInt32(k)) != 0 { kinds.insert(row.kind.bit) }
        if format == .raw { kinds.insert(MediaKind.raw.bit) }
        if !format.isStill && isScreenRecording { kinds.insert(MediaKind.screenRecordings.bit) }
        return kinds
    }

    /// `user.albumfs.kinds`: each kind with what shows it, `kind (evidence; evidence)`, joined by
    /// `, `; nil for none.
    public static func description(signals: UInt32, format: ImageFormat, screenshot: ScreenshotDecision,
                                   livePartner: String?) -> String? {
        var evidence: [MediaKind: [String]] = [:]
        for (k, row) in table.enumerated() where signals & (1 << UInt32(k)) != 0 { evidence[row.kind, default: []].append(row.evidence) }
        if let livePartner { evidence[.livePhotos] = ["paired with " + livePartner] }
        if format == .raw { evidence[.raw] = ["camera RAW by content"] }
        if !format.isStill && screenshot.isScreenshot { evidence[.screenRecordings] = [screenshot.reason] }
        let parts = MediaKind.allCases.compactMap { kind in evidence[kind].map { "\(kind.name) (\($0.joined(separator: "; ")))" } }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
