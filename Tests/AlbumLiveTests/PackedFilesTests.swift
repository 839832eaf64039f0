import AlbumCore
@testable import AlbumLive
import XCTest

/// What a first scan holds for the index comes back from its packed bytes exactly as it was.
final class PackedFilesTests: XCTestCase {
    /// Every field of the evidence set, each to a value of its own.
    private func fullEvidence() -> PhotoEvidence {
        var e = PhotoEvidence()
        e.dateTimeOriginal = "2024:05:19 07:45:00"; e.subSecTimeOriginal = "123"; e.offsetTimeOriginal = "-07:00"
        e.dateTimeDigitized = "2024:05:19 07:45:01"; e.subSecTimeDigitized = "4"; e.offsetTimeDigitized = "+05:30"
        e.xmpDateCreated = "2024-05-19T07:45:02"; e.xmpDateTimeOriginal = "2024-05-19T07:45:03"
        e.make = "Apple"; e.model = "iPhone 15 Pro"; e.software = "17.4.1"; e.gpsDateTimeUTC = "2024:05:19 14:45:00"
        e.hasExposureData = true; e.userComment = "Screenshot"; e.xmpUserComment = "Bildschirmfoto"
        e.pngSoftware = "Spectacle"; e.pngComment = "a comment"
        e.xmpCreateDate = "2024-05-19T07:45:04"; e.quickTimeCreationDate = "2024-05-19T07:45:05-0700"
        e.dateTime = "2024:05:20 08:00:00"; e.offsetTime = "-07:00"
        e.movieCreationTime = 3_799_000_000; e.contentIdentifier = "8D1A2C3E-4F5B-4C6D-9E7F-0A1B2C3D4E5F"
        e.orientation = 6; e.pixelWidth = 4032; e.pixelHeight = -1
        e.xmpRating = "5"; e.exifRating = 4
        e.gpsLatitude = -33.856_8; e.gpsLongitude = -0.000_000_1
        e.problems = ["corrupt EXIF", "header truncated", ""]
        e.access = FileAccess(uid: .max, gid: 100, mode: 0o4755)
        var sidecar = SidecarEvidence(kind: .takeout, relativePath: "2024/IMG_0001.JPG.json")
        sidecar.xmpDateCreated = "2024-05-19"; sidecar.xmpDateTimeOriginal = "2024-05-19T07:45:06"; sidecar.xmpCreateDate = "2024"
        sidecar.takenTime = -1; sidecar.latitude = -33.5; sidecar.longitude = 151.25; sidecar.rating = -1; sidecar.favorited = false
        sidecar.keywords = ["a\\b", "two\nlines", "", "k:v"]; sidecar.description = "line\n\\n"
        e.sidecar = sidecar
        e.motionVideo = ByteRange(offset: 1_234_000, length: 5_000_000_000)
        e.kinds.customRendered = 8; e.kinds.lensModel = "iPhone 15 Pro front camera 2.69mm f/1.9"; e.kinds.appleBurstUUID = "B=1"
        e.kinds.appleFrontFacing = 1; e.kinds.specialTypeID = "x"; e.kinds.googleBurstID = "g"; e.kinds.projectionType = "equirectangular"
        e.kinds.playbackIntent = "0"; e.kinds.captureFPS = "240.0"
        return e
    }

    func testEveryFieldOfEveryKindComesBack() {
        let files = [
            IndexedFile(relativePath: "2024/Été 📷/IMG_0001.JPG", identity: FileIdentity(inode: .max, size: 1_234_567, mtime: Timestamp(seconds: 1_716_129_900, nanoseconds: 999_999_999)),
                        kind: .photo(.jpeg, fullEvidence()), changedWhenRead: Timestamp(seconds: 1_716_130_000, nanoseconds: 1)),
            IndexedFile(relativePath: "a.png", identity: FileIdentity(inode: 0, size: -1, mtime: Timestamp(seconds: -86_400)),
                        kind: .photo(.png, PhotoEvidence())),
            IndexedFile(relativePath: "b.heic", identity: FileIdentity(inode: 7, size: 0, mtime: Timestamp(seconds: 0)), kind: .photo(.heif, PhotoEvidence())),
            IndexedFile(relativePath: "notes.txt", identity: FileIdentity(inode: 8, size: 3, mtime: Timestamp(seconds: 5)), kind: .ignored),
            IndexedFile(relativePath: String(repeating: "long/", count: 60) + "x.jpg", identity: FileIdentity(inode: 9, size: 2, mtime: Timestamp(seconds: 1)),
                        kind: .problem("unreadable: Permission denied")),
        ]
        let packed = PackedFiles(files)
        XCTAssertEqual(packed.count, files.count)
        XCTAssertEqual(packed.unpacked(), files)
        XCTAssertEqual(PackedFiles([IndexedFile]()).unpacked(), [])
    }

    /// Nil and empty strings stay apart (EXIF writers leave fields empty; the rules tell them apart).
    func testAnEmptyStringIsNotNil() {
        var e = PhotoEvidence()
        e.make = ""
        e.model = nil
        let file = IndexedFile(relativePath: "x.jpg", identity: FileIdentity(inode: 1, size: 2, mtime: Timestamp(seconds: 3)), kind: .photo(.jpeg, e))
        guard case .photo(_, let back) = PackedFiles([file]).unpacked().first?.kind else { return XCTFail("not a photo") }
        XCTAssertEqual(back.make, "")
        XCTAssertNil(back.model)
    }

    /// A field added to the evidence must be packed too (else the index would lose it for every
    /// photo of a first scan): this count changes with it.
    func testEveryEvidenceFieldIsPacked() {
        XCTAssertEqual(Mirror(reflecting: PhotoEvidence()).children.count, PackedFiles.evidenceFieldCount)
        var e = fullEvidence()
        var strings = 0
        for child in Mirror(reflecting: e).children {
            if let value = child.value as? String? {
                strings += 1
                XCTAssertNotNil(value, "\(child.label ?? "?") set in fullEvidence")
            }
        }
        XCTAssertGreaterThan(strings, 15, "the evidence's text fields were looked at")
        e.problems = []
        XCTAssertNotEqual(e, fullEvidence())
    }

    /// ~130 bytes a camera photo, where its records took ~480.
    func testACameraPhotoTakesItsBytesAndFewMore() {
        var e = PhotoEvidence()
        e.dateTimeOriginal = "2020:01:01 12:00:00"; e.dateTimeDigitized = "2020:01:01 12:00:00"
        e.make = "Canon"; e.model = "Canon EOS R5"; e.hasExposureData = true; e.orientation = 1
        e.pixelWidth = 8192; e.pixelHeight = 5464
        let file = IndexedFile(relativePath: "bulk/009/IMG_009117.JPG", identity: FileIdentity(inode: 123, size: 957, mtime: Timestamp(seconds: 1_577_836_800)),
                               kind: .photo(.jpeg, e), changedWhenRead: Timestamp(seconds: 1_577_836_800))
        let packed = PackedFiles(Array(repeating: file, count: 100))
        XCTAssertLessThan(packed.byteCount / 100, 164)
        XCTAssertEqual(packed.unpacked(), Array(repeating: file, count: 100))
    }
}
