import AlbumCore
@testable import AlbumMetadata
import AlbumSample
import Foundation
import XCTest

/// Files whose metadata was written by exiftool (the reference writer, libimage-exiftool-perl)
/// read back as exiftool wrote them: both byte orders, XMP, PNG eXIf, UserComment.
final class ExiftoolInteropTests: FolderTestCase {
    /// A fresh file of `bytes` with exiftool's `arguments` applied, read back.
    func written(_ bytes: [UInt8], _ name: String, _ arguments: [String]) throws -> PhotoEvidence {
        try Self.written(bytes, in: folder, name, arguments)
    }

    static func written(_ bytes: [UInt8], in folder: String, _ name: String, _ arguments: [String]) throws -> PhotoEvidence {
        let path = folder + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-q", "-overwrite_original"] + arguments + [path]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "exiftool \(arguments)")
        return try XCTUnwrap(try MetadataReader.read(SourceFile(path: path))).evidence
    }

    func testDatesOffsetsAndCameraTags() throws {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 16, height: 16))
        for order in ["II", "MM"] {
            let e = try written(jpeg, "a-\(order).jpg", ["-ExifByteOrder=\(order)", "-DateTimeOriginal=2021:06:07 08:09:10",
                                                        "-OffsetTimeOriginal=+05:30", "-SubSecTimeOriginal=42", "-Make=NIKON",
                                                        "-Model=Z 6", "-ExposureTime=0.01", "-Orientation#=8"])
            XCTAssertEqual(e.dateTimeOriginal, "2021:06:07 08:09:10", order)
            XCTAssertEqual(e.offsetTimeOriginal, "+05:30", order)
            XCTAssertEqual(e.subSecTimeOriginal, "42", order)
            XCTAssertEqual(e.orientation, 8, order)
            XCTAssertTrue(e.hasCameraEvidence, order)
        }
        let gps = try written(jpeg, "gps.jpg", ["-DateTimeOriginal=2021:06:07 08:09:10", "-GPSDateStamp=2021:06:07",
                                                "-GPSTimeStamp=02:39:10"])
        XCTAssertEqual(gps.gpsDateTimeUTC, "2021:06:07 02:39:10")
    }

    /// GPS positions as exiftool writes them (both byte orders, every hemisphere) read to the
    /// millionth of a degree; one without its reference letters, or with a letter of the other
    /// axis, is no position.
    func testGPSPositionsInEveryHemisphere() throws {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 16, height: 16))
        for (order, lat, lon) in [("II", 48.858167, 2.2945), ("MM", -33.8568, 151.2153), ("II", 37.7793, -122.4193), ("MM", -34.6037, -58.3816)] {
            let e = try written(jpeg, "gps-\(order)-\(lat).jpg", ["-ExifByteOrder=\(order)", "-GPSLatitude=\(abs(lat))",
                                                                  "-GPSLatitudeRef=\(lat < 0 ? "S" : "N")", "-GPSLongitude=\(abs(lon))",
                                                                  "-GPSLongitudeRef=\(lon < 0 ? "W" : "E")"])
            XCTAssertEqual(try XCTUnwrap(e.gpsLatitude), lat, accuracy: 0.000_001, "\(order) \(lat)")
            XCTAssertEqual(try XCTUnwrap(e.gpsLongitude), lon, accuracy: 0.000_001, "\(order) \(lon)")
        }
        let unsigned = try written(jpeg, "gps-no-ref.jpg", ["-GPSLatitude=45.764", "-GPSLongitude=4.8357"])
        XCTAssertNil(unsigned.gpsLatitude, "no GPSLatitudeRef: the hemisphere is unknown")
        XCTAssertNil(unsigned.gpsLongitude)
        let crossed = try written(jpeg, "gps-crossed.jpg", ["-GPSLatitude=45.764", "-GPSLatitudeRef=E", "-GPSLongitude=4.8357", "-GPSLongitudeRef=E"])
        XCTAssertNil(crossed.gpsLatitude, "E is no latitude's letter")
        XCTAssertEqual(try XCTUnwrap(crossed.gpsLongitude), 4.8357, accuracy: 0.000_001)
    }

    /// The sample's positions (its own EXIF writer's) read as exiftool reads them.
    func testTheSamplesPositionsReadAsExiftoolReadsThem() throws {
        let items = try SampleLibrary.write(to: folder)
        let placed = items.filter { $0.path.hasPrefix(SampleLibrary.placesFolder) }
        XCTAssertEqual(placed.count, 11, "ten photos and a video")
        let p = Process(), out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-n", "-T", "-FileName", "-GPSLatitude", "-GPSLongitude"] + placed.map { folder + "/" + $0.path }
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let rows = text.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        XCTAssertEqual(rows.count, placed.count)
        for row in rows {
            let e = try XCTUnwrap(try MetadataReader.read(SourceFile(path: folder + "/" + SampleLibrary.placesFolder + row[0]))).evidence
            if row[0] == "no-reference.jpg" {
                XCTAssertNil(e.gpsLatitude, "exiftool reads \(row[1]) unsigned; albumfs takes no hemisphere it is not told")
                continue
            }
            XCTAssertEqual(try XCTUnwrap(e.gpsLatitude), try XCTUnwrap(Double(row[1])), accuracy: 0.000_001, row[0])
            XCTAssertEqual(try XCTUnwrap(e.gpsLongitude), try XCTUnwrap(Double(row[2])), accuracy: 0.000_001, row[0])
        }
    }

    func testUserCommentInEveryCharset() throws {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 16, height: 16))
        XCTAssertEqual(try written(jpeg, "ascii.jpg", ["-UserComment=Screenshot"]).userComment, "Screenshot")
        XCTAssertEqual(try written(jpeg, "mm.jpg", ["-ExifByteOrder=MM", "-UserComment=Screenshot"]).userComment, "Screenshot")
        XCTAssertEqual(try written(jpeg, "xmp.jpg", ["-XMP-exif:UserComment=Screenshot"]).xmpUserComment, "Screenshot")
        // A translation beside the default text (exiftool writes an rdf:Alt of two items).
        XCTAssertEqual(try written(jpeg, "xmp-alt.jpg", ["-XMP-exif:UserComment-fr-FR=Capture d'écran",
                                                         "-XMP-exif:UserComment=Screenshot"]).xmpUserComment, "Screenshot")
    }

    func testXMPDatesAndPNGExif() throws {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 16, height: 16))
        let b = try written(jpeg, "xmp-date.jpg", ["-XMP-photoshop:DateCreated=2019-02-03T04:05:06+01:00",
                                                   "-XMP-exif:DateTimeOriginal=2018-01-02T03:04:05"])
        XCTAssertEqual(b.xmpDateCreated, "2019-02-03T04:05:06+01:00")
        XCTAssertEqual(b.xmpDateTimeOriginal, "2018-01-02T03:04:05")
        let png = try SamplePNG.png(.marker(width: 16, height: 16))
        let d = try written(png, "shot.png", ["-DateTimeOriginal=2020:01:02 03:04:05", "-UserComment=Screenshot"])
        XCTAssertEqual(d.dateTimeOriginal, "2020:01:02 03:04:05")
        XCTAssertEqual(d.userComment, "Screenshot")
    }

    /// ImageMagick writes a converted photo's EXIF (`eXIf`, or hex text in older versions) after
    /// the image data: a PNG made from a camera JPEG keeps its capture date and camera there.
    func testImageMagickConvertedPNGKeepsTheCameraDate() throws {
        let jpeg = SampleJPEG.insertingAPP1(SampleExif.camera("Canon", "EOS 5D", "2016:08:09 10:11:12").payload(),
                                          into: try SampleJPEG.jpeg(.marker(width: 400, height: 300)))
        let source = folder + "/camera.jpg", converted = folder + "/converted.png"
        XCTAssertTrue(FileManager.default.createFile(atPath: source, contents: Data(jpeg)))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["convert", source, converted]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "convert (imagemagick)")
        let e = try XCTUnwrap(try MetadataReader.read(SourceFile(path: converted))).evidence
        XCTAssertEqual(e.dateTimeOriginal, "2016:08:09 10:11:12")
        XCTAssertTrue(e.hasCameraEvidence)
    }

    /// The sample's phone-like photos (tags out of order, gaps between IFDs, EXIF after JFIF or
    /// ICC, IFD1 thumbnails, GPS, maker notes, a motion photo's video) are what exiftool, the
    /// reference reader, says they are, and albumfs reads the same dates from them.
    func testPhoneLikeSamplesReadAsExiftoolReadsThem() throws {
        let phones = try SampleLibrary.items().filter { $0.path.hasPrefix("Phone/") || $0.path == "Nikon/DSC_0002.JPG" }
        XCTAssertEqual(phones.count, 4)
        var makerNotes: Set<String> = []
        var gpsCompared = 0, videosCompared = 0
        for item in phones {
            let path = folder + "/" + item.path.replacingOccurrences(of: "/", with: "-")
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(item.bytes)))
            let tags = try exiftool(path)
            XCTAssertNil(tags["ExifTool:Error"], "\(item.path): \(tags)")
            let e = try XCTUnwrap(try MetadataReader.read(SourceFile(path: path))).evidence
            XCTAssertEqual(e.dateTimeOriginal, tags["ExifIFD:DateTimeOriginal"] as? String, item.path)
            XCTAssertEqual(e.offsetTimeOriginal, tags["ExifIFD:OffsetTimeOriginal"] as? String, item.path)
            if let date = tags["GPS:GPSDateStamp"] as? String, let time = tags["GPS:GPSTimeStamp"] as? String {
                XCTAssertEqual(e.gpsDateTimeUTC, date + " " + time, item.path)
                gpsCompared += 1
            }
            makerNotes.formUnion(["Apple", "Samsung", "Nikon"].filter { group in tags.keys.contains { $0.hasPrefix(group + ":") } })
            if let offset = tags["XMP-GCamera:MicroVideoOffset"] as? Int {
                XCTAssertEqual(Array(item.bytes[(item.bytes.count - offset + 4)...].prefix(4)), Array("ftyp".utf8), "the video starts where the XMP says")
                videosCompared += 1
            }
            // Google's Motion Photo 1.0, as exiftool names it: albumfs finds its video at an `ftyp` box.
            if tags["XMP-GCamera:MotionPhoto"] as? Int == 1 || tags["XMP-GCamera:MicroVideo"] as? Int == 1 {
                let video = try XCTUnwrap(e.motionVideo, item.path)
                XCTAssertEqual(Array(item.bytes[Int(video.offset + 4)..<Int(video.offset + 8)]), Array("ftyp".utf8), item.path)
                videosCompared += 1
            }
        }
        XCTAssertGreaterThan(gpsCompared, 0, "a GPS date was compared")
        XCTAssertGreaterThan(videosCompared, 0, "a motion photo's video offset was compared")
        XCTAssertEqual(makerNotes, ["Apple", "Samsung", "Nikon"], "each maker note is read as its maker's")
        XCTAssertEqual(try phones.filter { try exiftool(folder + "/" + $0.path.replacingOccurrences(of: "/", with: "-"))["IFD1:ThumbnailLength"] != nil }.count, 3)
    }

    /// exiftool's tags of a file, grouped (`-G1`), numbers as numbers (`-n`).
    func exiftool(_ path: String) throws -> [String: Any] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-j", "-n", "-a", "-G1", path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first)
    }
}

/// The tags that tell a photo's kind, as exiftool writes them (EXIF, Google's XMP) or reads them
/// (an Apple maker note, which exiftool edits but does not make), read as it reads them.
final class KindTagsInteropTests: FolderTestCase {
    func written(_ bytes: [UInt8], _ name: String, _ arguments: [String]) throws -> PhotoEvidence {
        try ExiftoolInteropTests.written(bytes, in: folder, name, arguments)
    }

    func testExiftoolsKindTagsAreReadAsItWritesThem() throws {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 16, height: 16))
        let portrait = try written(jpeg, "portrait.jpg", ["-CustomRendered#=8", "-LensModel=iPhone 12 front camera 2.71mm f/2.2"])
        XCTAssertEqual(portrait.kinds.customRendered, 8)
        XCTAssertEqual(portrait.kinds.lensModel, "iPhone 12 front camera 2.71mm f/2.2")
        XCTAssertEqual(MediaKindRules.kinds(signals: MediaKindRules.signals(portrait.kinds, format: .jpeg), format: .jpeg,
                                            isScreenRecording: false).kinds, [.portraits, .selfies])
        let google = try written(jpeg, "pixel.jpg", ["-XMP-GCamera:SpecialTypeID=com.google.android.apps.camera.gallery.specialtype.SpecialType-PORTRAIT",
                                                    "-XMP-GCamera:BurstID=b7", "-XMP-GPano:ProjectionType=equirectangular"])
        XCTAssertEqual(google.kinds.specialTypeID, "com.google.android.apps.camera.gallery.specialtype.SpecialType-PORTRAIT", "a Bag's item")
        XCTAssertEqual(google.kinds.googleBurstID, "b7")
        XCTAssertEqual(google.kinds.projectionType, "equirectangular")
        var selfie = SampleExif.camera("Apple", "iPhone 15 Pro", "2024:06:02 11:00:00", order: .motorola)
        selfie.makerNote = .appleKinds(burst: "5E0C3A1B-7D2F-4E8A-9B6C-0D1E2F3A4B5C", frontFacing: true)
        let apple = try written(SampleJPEG.insertingAPP1(selfie.payload(), into: jpeg), "apple.jpg", ["-Software=17.5"])
        XCTAssertEqual(apple.kinds.appleBurstUUID, "5E0C3A1B-7D2F-4E8A-9B6C-0D1E2F3A4B5C")
        XCTAssertEqual(apple.kinds.appleFrontFacing, 1)
        let read = runExiftool(["-s3", "-Apple:FrontFacingCamera", "-Apple:BurstUUID", folder + "/apple.jpg"])
        XCTAssertEqual(read, "Yes\n5E0C3A1B-7D2F-4E8A-9B6C-0D1E2F3A4B5C\n", "exiftool reads the note albumfs reads, after rewriting the file")
    }

    func runExiftool(_ arguments: [String]) -> String {
        let p = Process(), out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = arguments
        p.standardOutput = out
        guard (try? p.run()) != nil else { return "" }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
