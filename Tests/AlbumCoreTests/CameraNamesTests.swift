@testable import AlbumCore
import XCTest

final class CameraNamesTests: XCTestCase {
    /// (Make, Model) as devices write them → the folder docs/rules.md ("Cameras") says.
    static let table: [(make: String?, model: String?, folder: String)] = [
        ("Apple", "iPhone 15 Pro", "Apple iPhone 15 Pro"),
        ("Canon", "Canon EOS R5", "Canon EOS R5"),
        ("Canon", "Canon", "Canon"),
        ("NIKON CORPORATION", "NIKON D850", "Nikon D850"),
        ("NIKON", "COOLPIX P900", "Nikon COOLPIX P900"),
        ("samsung", "SM-S911B", "Samsung SM-S911B"),
        ("SAMSUNG", "Galaxy S23", "Samsung Galaxy S23"),
        ("OLYMPUS IMAGING CORP.", "E-M5", "Olympus E-M5"),
        ("OLYMPUS CORPORATION", "E-M1MarkII", "Olympus E-M1MarkII"),
        ("OM Digital Solutions", "OM-1", "OM System OM-1"),
        ("Google", "Pixel 8", "Google Pixel 8"),
        ("SONY", "ILCE-7M3", "Sony ILCE-7M3"),
        ("FUJIFILM", "X-T4", "Fujifilm X-T4"),
        ("HUAWEI", "ELE-L29", "Huawei ELE-L29"),
        ("Xiaomi", "Redmi Note 8", "Xiaomi Redmi Note 8"),
        ("OnePlus", "ONEPLUS A6003", "OnePlus A6003"),
        ("motorola", "moto g(7) power", "Motorola moto g(7) power"),
        ("LGE", "LM-G900", "LG LM-G900"),
        ("Panasonic", "DC-GH5", "Panasonic DC-GH5"),
        ("PENTAX Corporation", "PENTAX K-5", "Pentax K-5"),
        ("RICOH IMAGING COMPANY, LTD.", "PENTAX K-3 Mark III", "Pentax K-3 Mark III"),
        ("RICOH IMAGING COMPANY, LTD.", "GR III", "Ricoh GR III"),
        ("DJI", "FC3170", "DJI FC3170"),
        ("GoPro", "HERO11 Black", "GoPro HERO11 Black"),
        ("EASTMAN KODAK COMPANY", "KODAK Z990 DIGITAL CAMERA", "Kodak Z990 DIGITAL CAMERA"),
        ("Leica Camera AG", "LEICA Q2", "Leica Q2"),
        // Padding and blanks as EXIF writers leave them.
        ("Canon\0\0\0", "  Canon  EOS   80D ", "Canon EOS 80D"),
        // A maker no table names: its company words dropped, its model said once.
        ("ACME Optical Co., Ltd.", "ACME X1", "ACME X1"),
        ("Zeiss Ikon AG", "Contax", "Zeiss Ikon Contax"),
        // One of the two, or neither.
        ("Apple", nil, "Apple"),
        (nil, "Canon EOS R5", "Canon EOS R5"),
        (nil, "iPhone 12", "iPhone 12"),
        (nil, nil, "Unknown"),
        ("   ", "\0", "Unknown"),
        // Names that are no path component made one.
        ("A/B", "C", "A_B C"),
        (".", nil, "_."),
    ]

    func testEveryRowOfTheTable() {
        for row in Self.table {
            XCTAssertEqual(CameraNames.folderName(make: row.make, model: row.model), row.folder, "\(row.make ?? "nil") / \(row.model ?? "nil")")
        }
    }

    func testANameIsBoundedToOnePathComponent() {
        let long = CameraNames.folderName(make: "Canon", model: String(repeating: "é", count: 300))
        XCTAssertLessThanOrEqual(long.utf8.count, EntryNames.maxBytes)
        XCTAssertTrue(long.hasPrefix("Canon é"))
    }
}

final class CameraTableTests: XCTestCase {
    func testANameHasOneCodeAndTheCodeGivesItBack() {
        let table = CameraTable()
        XCTAssertEqual(table.code(CameraNames.unknown), 0)
        let pixel = table.code("Google Pixel 8"), canon = table.code("Canon EOS R5")
        XCTAssertNotEqual(pixel, canon)
        XCTAssertNotEqual(pixel, 0)
        XCTAssertEqual(table.code("Google Pixel 8"), pixel)
        XCTAssertEqual(table.name(pixel), "Google Pixel 8")
        XCTAssertEqual(table.name(canon), "Canon EOS R5")
        XCTAssertEqual(table.name(9_999), CameraNames.unknown, "a code the table never gave")
    }

    /// A hostile library naming a new camera in every file fills the table once: then its new
    /// names are `Unknown`, and the names it holds keep their codes.
    func testAFullTableNamesNewCamerasUnknown() {
        let table = CameraTable()
        for i in 1...Int(UInt16.max) { XCTAssertEqual(table.code("Camera \(i)"), UInt16(i)) }
        XCTAssertEqual(table.code("One more"), 0)
        XCTAssertEqual(table.name(0), CameraNames.unknown)
        XCTAssertEqual(table.code("Camera 7"), 7)
        XCTAssertEqual(table.name(UInt16.max), "Camera \(UInt16.max)")
    }

    /// The scanner's cache gives the code of the folder name, each pair of make and model named once.
    func testACameraAsWrittenGetsTheCodeOfItsName() {
        let cache = CameraNameCache()
        let code = cache.code(CameraWritten(make: "Canon", model: "Canon EOS R5"))
        XCTAssertEqual(CameraTable.shared.name(code), CameraNames.folderName(make: "Canon", model: "Canon EOS R5"))
        XCTAssertEqual(cache.code(CameraWritten(make: "Canon", model: "Canon EOS R5")), code)
        XCTAssertNotEqual(cache.code(CameraWritten(make: "Canon", model: "Canon EOS R6")), code)
        XCTAssertEqual(cache.code(CameraWritten(make: nil, model: nil)), 0)
        XCTAssertEqual(cache.code(CameraWritten(make: " ", model: "")), 0, "blank: Unknown")
        XCTAssertEqual(cache.folderName(make: "Canon", model: "Canon EOS R5"), CameraTable.shared.name(code))
    }

    /// A reader's memo gives each camera's own code however cameras follow one another.
    func testAReadersMemoGivesTheCodeOfEachCameraInTurn() {
        let cache = CameraNameCache()
        var memo = CameraNameCache.Memo()
        let cameras = [CameraWritten(make: "Canon", model: "Canon EOS R5"), CameraWritten(make: "Canon", model: "Canon EOS R5"),
                       CameraWritten(make: "Apple", model: "iPhone 15 Pro"), CameraWritten(make: nil, model: nil),
                       CameraWritten(make: "Canon", model: "Canon EOS R5"), CameraWritten(make: "Apple", model: "iPhone 15 Pro")]
        XCTAssertEqual(cameras.map { cache.code(make: $0.make, model: $0.model, memo: &memo) }, cameras.map { cache.code($0) })
        XCTAssertEqual(Set(cameras.map { cache.code(make: $0.make, model: $0.model, memo: &memo) }).count, 3)
    }

    /// Interleaved cameras are answered from the reader's own list once each has been asked (no
    /// shared lock a photo), and the list stays within its bound however many cameras pass: the
    /// oldest gives way.
    func testAReadersMemoKeepsTheCamerasItMetWithinItsBound() {
        let cache = CameraNameCache()
        var memo = CameraNameCache.Memo()
        let canon = CameraWritten(make: "Canon", model: "Canon EOS R6"), apple = CameraWritten(make: "Apple", model: "iPhone 14")
        for camera in [canon, apple, canon, apple] { _ = cache.code(make: camera.make, model: camera.model, memo: &memo) }
        XCTAssertEqual(memo.known, [.init(camera: canon, code: cache.code(canon)), .init(camera: apple, code: cache.code(apple))])
        let more = CameraNameCache.Memo.most + 3
        for n in 0..<more {
            let camera = CameraWritten(make: "Maker", model: "Model \(n)")
            XCTAssertEqual(cache.code(make: camera.make, model: camera.model, memo: &memo), cache.code(camera))
        }
        XCTAssertEqual(memo.known.count, CameraNameCache.Memo.most)
        XCTAssertFalse(memo.known.contains { $0.camera == canon }, "the oldest gave way")
        XCTAssertTrue(memo.known.contains { $0.camera == CameraWritten(make: "Maker", model: "Model \(more - 1)") })
    }

    func testAPhotoKeepsItsCameraAsACode() {
        var photo = Photo(relativePath: "a.jpg", format: .jpeg, identity: FileIdentity(inode: 1, size: 1, mtime: Timestamp(seconds: 0)),
                          decisions: PhotoDecisions(capture: CaptureDecision(time: CaptureTime(local: LocalDateTime(year: 2024, month: 1, day: 1)), source: .exifDateTimeOriginal),
                                                    captureInstant: Timestamp(seconds: 0),
                                                    screenshot: ScreenshotDecision(isScreenshot: false, reason: "no")))
        XCTAssertEqual(photo.camera, CameraNames.unknown)
        photo.camera = "Apple iPhone 15 Pro"
        XCTAssertEqual(photo.camera, "Apple iPhone 15 Pro")
        XCTAssertEqual(photo.cameraCode, CameraTable.shared.code("Apple iPhone 15 Pro"))
    }
}
