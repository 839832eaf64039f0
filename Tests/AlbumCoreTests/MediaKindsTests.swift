@testable import AlbumCore
import XCTest

final class MediaKindsTests: XCTestCase {
    /// (the tags as written, the format) → the kinds docs/rules.md's "Kinds" table gives.
    static let rows: [(set: @Sendable (inout KindEvidence) -> Void, format: ImageFormat, kinds: [MediaKind])] = [
        ({ $0.customRendered = 8 }, .heif, [.portraits]),
        ({ $0.customRendered = 7 }, .jpeg, [.portraits]),
        ({ $0.customRendered = 6 }, .jpeg, [.panoramas]),
        ({ $0.customRendered = 2 }, .jpeg, []),  // HDR: no kind
        ({ $0.customRendered = 1 }, .jpeg, []),  // EXIF's own "custom": no kind
        ({ $0.specialTypeID = "com.google.android.apps.camera.gallery.specialtype.SpecialType-PORTRAIT" }, .jpeg, [.portraits]),
        ({ $0.specialTypeID = "com.google.android.apps.camera.gallery.specialtype.SpecialType-NIGHT" }, .jpeg, []),
        ({ $0.projectionType = "equirectangular" }, .jpeg, [.panoramas]),
        ({ $0.projectionType = " " }, .jpeg, []),
        ({ $0.lensModel = "iPhone 12 front camera 2.71mm f/2.2" }, .heif, [.selfies]),
        ({ $0.lensModel = "iPhone 12 back dual wide camera 4.2mm f/1.6" }, .heif, []),
        ({ $0.appleFrontFacing = 1 }, .heif, [.selfies]),
        ({ $0.appleFrontFacing = 0 }, .heif, []),
        ({ $0.appleBurstUUID = "7C4A2B1E-0D3F-4E5A-8B9C-1D2E3F4A5B6C" }, .jpeg, [.bursts]),
        ({ $0.googleBurstID = "a1b2" }, .jpeg, [.bursts]),
        ({ $0.appleBurstUUID = "" }, .jpeg, []),
        ({ $0.customRendered = 8; $0.lensModel = "iPhone 15 Pro front camera 2.69mm f/1.9" }, .heif, [.portraits, .selfies]),
        ({ $0.playbackIntent = "0" }, .video, [.sloMo]),
        ({ $0.playbackIntent = "1" }, .video, []),
        ({ $0.captureFPS = "240.0" }, .video, [.sloMo]),
        ({ $0.captureFPS = "120" }, .video, [.sloMo]),
        ({ $0.captureFPS = "60.0" }, .video, []),  // a 60 fps clip plays at its own rate
        ({ $0.captureFPS = "30.0" }, .video, []),
        ({ $0.captureFPS = "0.5" }, .video, [.timeLapse]),
        ({ $0.captureFPS = "0" }, .video, []),
        ({ $0.captureFPS = "nan" }, .video, []),
        ({ $0.captureFPS = "fast" }, .video, []),
        // A still's tags say nothing of a video, and a video's nothing of a still.
        ({ $0.customRendered = 6 }, .video, []),
        ({ $0.captureFPS = "240" }, .jpeg, []),
        ({ _ in }, .raw, [.raw]),
        ({ $0.customRendered = 6 }, .raw, [.panoramas, .raw]),
    ]

    func testEachSignalGivesItsKind() {
        for (k, row) in Self.rows.enumerated() {
            var e = KindEvidence()
            row.set(&e)
            let signals = MediaKindRules.signals(e, format: row.format)
            XCTAssertEqual(MediaKindRules.kinds(signals: signals, format: row.format, isScreenRecording: false).kinds, row.kinds, "row \(k): \(e)")
        }
    }

    /// `signals` answers 0 for evidence with no tag without asking the table: no row may hold then.
    func testNoRowHoldsWithoutATag() {
        let empty = KindEvidence()
        XCTAssertFalse(MediaKindRules.table.isEmpty)
        for (k, row) in MediaKindRules.table.enumerated() { XCTAssertFalse(row.holds(empty), "row \(k)") }
        for format in ImageFormat.allCases { XCTAssertEqual(MediaKindRules.signals(empty, format: format), 0) }
    }

    func testAScreenRecordingIsAVideoTheScreenshotRulesSaySo() {
        XCTAssertEqual(MediaKindRules.kinds(signals: 0, format: .video, isScreenRecording: true).kinds, [.screenRecordings])
        XCTAssertEqual(MediaKindRules.kinds(signals: 0, format: .png, isScreenRecording: true).kinds, [], "a screenshot is no recording")
    }

    /// `user.albumfs.kinds`: each kind once, in the kinds' order, with every signal that held.
    func testTheDescriptionSaysEachKindWithItsEvidence() {
        var e = KindEvidence()
        e.customRendered = 8
        e.lensModel = "iPhone 15 Pro front camera 2.69mm f/1.9"
        e.appleFrontFacing = 1
        let signals = MediaKindRules.signals(e, format: .heif)
        XCTAssertEqual(MediaKindRules.description(signals: signals, format: .heif, screenshot: .init(isScreenshot: false, reason: "camera exif"),
                                                  livePartner: "by-date/2024/2024-05/2024-05-20/IMG_1402.MOV"),
                       "live-photos (paired with by-date/2024/2024-05/2024-05-20/IMG_1402.MOV), portraits (exif:CustomRendered is 8 (Portrait)), "
                           + "selfies (exif:LensModel names the front camera; apple:FrontFacingCamera is 1)")
        let recording = ScreenshotDecision(isScreenshot: true, reason: "screen recording: name starts with RPReplay")
        XCTAssertEqual(MediaKindRules.description(signals: 0, format: .video, screenshot: recording, livePartner: nil),
                       "screen-recordings (screen recording: name starts with RPReplay)")
        XCTAssertNil(MediaKindRules.description(signals: 0, format: .jpeg, screenshot: .init(isScreenshot: false, reason: "x"), livePartner: nil))
    }

    /// The filter's API: a kind's name gives its bit and back, every name is a folder's.
    func testNamesAndBitsGoBothWays() {
        XCTAssertEqual(MediaKind.allCases.map(\.name), ["live-photos", "portraits", "panoramas", "selfies", "bursts", "slo-mo", "time-lapse",
                                                        "screen-recordings", "cinematic", "spatial", "raw"])
        for kind in MediaKind.allCases {
            XCTAssertEqual(MediaKind(name: kind.name), kind)
            XCTAssertEqual(kind.bit.kinds, [kind])
        }
        XCTAssertNil(MediaKind(name: "selfie"))
        XCTAssertEqual(Set(MediaKind.allCases.map(\.bit.rawValue)).count, MediaKind.allCases.count)
        XCTAssertLessThanOrEqual(MediaKindRules.table.count, UInt16.bitWidth, "a photo keeps its signals in 16 bits")
    }

    func testTheEvidenceComesBackFromItsEncoding() {
        var e = KindEvidence()
        XCTAssertTrue(e.isEmpty)
        e.customRendered = 6; e.lensModel = "a=b\nc"; e.appleBurstUUID = "B"; e.appleFrontFacing = 1; e.specialTypeID = "t"
        e.googleBurstID = "g"; e.projectionType = "equirectangular"; e.playbackIntent = "0"; e.captureFPS = "240.0"
        var expected = e
        expected.lensModel = "a=bc"  // a line break in a value is dropped, not read as the next field
        XCTAssertEqual(KindEvidence(encoded: e.encoded), expected)
        XCTAssertEqual(KindEvidence(encoded: ""), KindEvidence())
        XCTAssertEqual(KindEvidence(encoded: "cr=x\nnone\nzz=1").customRendered, nil)
    }

    /// `media-types/`: every kind's folder listed, even empty; a kind's photos newest first as
    /// the flat views list them (a RAW with its JPEG in `raw/` alone); bursts a folder each,
    /// named after the first photo.
    func testTheViewListsEveryKindAndEachBurstApart() throws {
        func photo(_ path: String, _ day: Int, _ hour: Int, signals: [Int] = [], burst: String? = nil) -> Photo {
            var p = makePhoto(path, (2024, 5, day, hour))
            p.kindSignals = UInt16(signals.reduce(0) { $0 | 1 << $1 })
            if let burst { p.sidecarAttributes = [Photo.burstAttribute, burst] }
            return p
        }
        let burstRow = MediaKindRules.table.firstIndex { $0.kind == .bursts }!
        let panoRow = MediaKindRules.table.firstIndex { $0.kind == .panoramas }!
        let photos = [
            photo("b/IMG_0001.JPG", 1, 10, signals: [burstRow], burst: "A"),
            photo("b/IMG_0002.JPG", 1, 11, signals: [burstRow], burst: "A"),
            photo("c/IMG_0001.JPG", 2, 10, signals: [burstRow], burst: "B"),
            photo("p/pano.jpg", 3, 10, signals: [panoRow]),
            photo("p/old-pano.jpg", 1, 9, signals: [panoRow]),
            photo("x/plain.jpg", 4, 10),
        ]
        let lib = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        guard case .folder(let media)? = lib.root.child(named: "media-types") else { return XCTFail("no media-types") }
        XCTAssertEqual(media.children.map(\.name), MediaKind.allCases.map(\.name))
        func listed(_ path: String) -> [String] {
            var node: VirtualNode? = .folder(media)
            for part in path.split(separator: "/") { if case .folder(let f)? = node { node = f.child(named: String(part)) } }
            guard case .folder(let f)? = node else { return ["<none>"] }
            return f.children.map(\.name)
        }
        XCTAssertEqual(listed("panoramas"), ["pano.jpg", "old-pano.jpg"])
        XCTAssertEqual(listed("bursts"), ["IMG_0001", "IMG_0001~" + EntryNames.tag(for: "A", hexDigits: 6)])
        XCTAssertEqual(listed("bursts/IMG_0001"), ["IMG_0001.JPG"])
        XCTAssertEqual(listed("bursts/IMG_0001~" + EntryNames.tag(for: "A", hexDigits: 6)), ["IMG_0002.JPG", "IMG_0001.JPG"])
        XCTAssertEqual(listed("selfies"), [])
        XCTAssertEqual(listed("raw"), [])
        XCTAssertEqual(lib.kinds(ofPhoto: 3).kinds, [.panoramas])
        XCTAssertEqual(lib.kinds(ofPhoto: 5).kinds, [])
        var still = makePhoto("l/LIVE.jpg", (2024, 1, 1, 9)), motion = makePhoto("l/LIVE.mov", (2024, 1, 1, 9))
        still.liveIdentifier = 7
        motion.liveIdentifier = 7
        let live = LibraryViews.build(photos: [still, motion], ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertEqual(live.kinds(ofPhoto: 0).kinds, [.livePhotos])
        XCTAssertEqual(live.kinds(ofPhoto: 1).kinds, [], "the motion part is no Live Photo of its own")
    }
}
