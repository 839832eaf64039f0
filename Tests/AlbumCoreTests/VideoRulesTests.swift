@testable import AlbumCore
import XCTest

/// The rules for videos: their dates, screen recordings, their view, and Live Photo pairs.
final class VideoRulesTests: XCTestCase {
    let rules = CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))

    /// Strongest first: Apple's creation date (with its zone), XMP's dates, the movie header
    /// (UTC; 0 is none, a time before 1970 is refused), the file name, the mtime.
    func testAVideosDateSources() {
        var e = PhotoEvidence()
        e.movieCreationTime = 1_686_864_011 + CaptureDateRules.secondsFrom1904To1970
        e.xmpCreateDate = "2021-05-06T07:08:09+02:00"
        e.quickTimeCreationDate = "2023-06-15T14:20:11-0700"
        let mtime = Timestamp(seconds: 1_500_000_000)
        var d = rules.decide(e, fileName: "VID_20200101_101010.mp4", fileMtime: mtime)
        XCTAssertEqual(d.source, .quickTimeCreationDate)
        XCTAssertEqual(d.time.isoString, "2023-06-15T14:20:11-07:00")
        e.quickTimeCreationDate = "0000-00-00T00:00:00Z"
        d = rules.decide(e, fileName: "VID_20200101_101010.mp4", fileMtime: mtime)
        XCTAssertEqual(d.source, .xmpCreateDate)
        XCTAssertEqual(d.rejected, [#"quicktime:com.apple.quicktime.creationdate "0000-00-00T00:00:00Z" (sentinel)"#])
        e.xmpCreateDate = nil
        d = rules.decide(e, fileName: "VID_20200101_101010.mp4", fileMtime: mtime)
        XCTAssertEqual(d.source, .movieHeader)
        XCTAssertEqual(d.time.instant(in: SystemZone()).seconds, 1_686_864_011)
        e.movieCreationTime = 5  // a camera whose clock was never set
        d = rules.decide(e, fileName: "VID_20200101_101010.mp4", fileMtime: mtime)
        XCTAssertEqual(d.source, .fileName)
        XCTAssertTrue(d.rejected.contains(#"quicktime:mvhd "5" (before 1970)"#), "\(d.rejected)")
        e.movieCreationTime = nil
        XCTAssertEqual(rules.decide(e, fileName: "clip.mp4", fileMtime: mtime).source, .fileModificationTime)
    }

    /// Screen recordings by name (iOS, macOS, Android makers) or folder; a camera's make says no.
    func testScreenRecordings() {
        let shots = ScreenshotRules()
        let e = PhotoEvidence()
        for name in ["RPReplay_Final1696156734.MP4", "ScreenRecording_10-01-2023 10-38-12_1.MP4", "Screen Recording 2023-10-01 at 10.38.12.mov",
                     "Screen_Recording_20231001-103812_Chrome.mp4", "screen-20231001-103812.mp4", "Screenrecorder-2023-10-01-10-38-12-123.mp4"] {
            XCTAssertTrue(shots.decideRecording(e, fileName: name, folders: []).isScreenshot, name)
        }
        for name in ["VID_20231001_103812.mp4", "screensaver.mp4", "IMG_0001.MOV"] {
            XCTAssertFalse(shots.decideRecording(e, fileName: name, folders: []).isScreenshot, name)
        }
        XCTAssertEqual(shots.decideRecording(e, fileName: "1.mp4", folders: ["Movies", "Screen recordings"]).description,
                       "yes (screen recording: folder Screen recordings)")
        var camera = PhotoEvidence()
        camera.make = "Apple"
        XCTAssertEqual(shots.decideRecording(camera, fileName: "RPReplay_Final1.MP4", folders: []).description, "no (camera Apple)")
        // A video moved into a recordings folder is decided again by the recordings' folders.
        let plain = shots.decideRecording(e, fileName: "1.mp4", folders: ["Movies"])
        XCTAssertTrue(shots.decision(plain, inFolders: ["Screenrecorder"]).isScreenshot)
        XCTAssertFalse(shots.decision(plain, inFolders: ["Screenshots"]).isScreenshot, "a screenshot folder is not a recordings one")
    }

    /// Recording names carry their dates.
    func testScreenRecordingNamesGiveDates() {
        let mtime = Timestamp(seconds: 1_500_000_000)
        for (name, iso) in [("Screen Recording 2023-10-01 at 10.38.12 PM.mov", "2023-10-01T22:38:12"),
                            ("Screen_Recording_20231001-103812_Chrome.mp4", "2023-10-01T10:38:12"),
                            ("screen-20231001-103812.mp4", "2023-10-01T10:38:12"),
                            ("ScreenRecording_10-01-2023 10-38-12_1.MP4", "2023-10-01T10:38:12")] {
            let d = rules.decide(PhotoEvidence(), fileName: name, fileMtime: mtime)
            XCTAssertEqual(d.source, .fileName, name)
            XCTAssertEqual(d.time.isoString, iso, name)
        }
    }

    /// Videos have a view of their own; stills' views hold no video; a Live Photo's motion part
    /// is in `by-date/` only.
    func testVideosViewAndLivePhotoPairs() {
        var tagged = makePhoto("iPhone/IMG_1.JPG", (2024, 5, 20, 9))
        var motion = makePhoto("iPhone/IMG_1.MOV", (2024, 5, 20, 9), second: 1)
        tagged.liveIdentifier = LivePhotos.identifierKey("8D1A2C3E-4F5B-4C6D-9E7F-0A1B2C3D4E5F")
        motion.liveIdentifier = LivePhotos.identifierKey("8d1a2c3e-4f5b-4c6d-9e7f-0a1b2c3d4e5f")
        var edited = makePhoto("iPhone/IMG_E1.JPG", (2024, 5, 20, 9))
        edited.liveIdentifier = tagged.liveIdentifier
        let photos = [
            edited, tagged, motion,
            makePhoto("Imported/IMG_2.jpg", (2021, 4, 5, 6), second: 8),
            makePhoto("Imported/img_2.mov", (2021, 4, 5, 6), second: 7),  // by name (any case) and time
            makePhoto("Imported/IMG_3.jpg", (2021, 4, 5, 6)),
            makePhoto("Imported/IMG_3.mov", (2021, 4, 5, 7)),  // an hour apart: two things
            makePhoto("Other/IMG_2.mov", (2021, 4, 5, 6), second: 7),  // another folder
        ]
        let partners = LivePhotos.partners(photos)
        XCTAssertEqual(partners, [1: 2, 2: 1, 3: 4, 4: 3], "the still of the video's own name, not the edited copy")
        let lib = LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        guard case .folder(let videos)? = lib.root.child(named: "videos"),
              case .folder(let others)? = lib.root.child(named: "non-screenshots") else { return XCTFail("no views") }
        XCTAssertEqual(videos.children.map(\.name), ["IMG_3.mov", "IMG_2.mov"])
        XCTAssertEqual(Set(others.children.map(\.name)), ["IMG_E1.JPG", "IMG_1.JPG", "IMG_2.jpg", "IMG_3.jpg"])
        XCTAssertEqual(lib.livePartners, partners)
    }
}

/// A mount keeps one `Photo` per photo of the library (a million at the scale docs/scaling aims
/// at): what a field added costs is seen here.
final class PhotoSizeTests: XCTestCase {
    func testAPhotoStaysSmall() {
        // (The camera is a code into `CameraTable`, in the small fields' padding; 8 bytes the GPS
        // position, its city's number beside it.)
        XCTAssertLessThanOrEqual(MemoryLayout<Photo>.stride, 160, "\(MemoryLayout<Photo>.stride) bytes")
        XCTAssertEqual(MemoryLayout<FileIdentity>.stride, 24, "the mtime as one count of nanoseconds")
    }

    /// The orientation and the favourite flag share a byte: neither changes the other.
    func testOrientationAndFavoriteShareAByteApart() {
        var photo = Photo(relativePath: "a.jpg", format: .jpeg, identity: FileIdentity(inode: 1, size: 1, mtime: Timestamp(seconds: 0)),
                          decisions: PhotoDecisions(capture: CaptureDecision(time: CaptureTime(local: LocalDateTime(year: 2024, month: 1, day: 1)), source: .exifDateTimeOriginal),
                                                    captureInstant: Timestamp(seconds: 0),
                                                    screenshot: ScreenshotDecision(isScreenshot: false, reason: "no"), orientation: 6))
        XCTAssertFalse(photo.isFavorite)
        photo.isFavorite = true
        XCTAssertEqual(photo.orientation, 6)
        photo.orientation = 9
        XCTAssertEqual(photo.orientation, 1, "out of range: 1")
        XCTAssertTrue(photo.isFavorite)
        photo.orientation = 8
        photo.isFavorite = false
        XCTAssertEqual(photo.orientation, 8)
        XCTAssertFalse(photo.isFavorite)
    }
}
