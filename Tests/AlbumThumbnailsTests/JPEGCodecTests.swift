import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class JPEGCodecTests: XCTestCase {
    /// A baseline JPEG with restart markers (as Samsung's phones and many cameras write them) is
    /// decoded in bands side by side, cut where an interval starts an MCU row: the same pixels,
    /// to the byte, as one decoder gives (from memory, never cut), whole or cropped, for markers
    /// every row, every 3 rows, every 70 MCUs (a row start every 7 rows) and every 97 (one row
    /// start in the image). Files that cannot be cut: none (no DRI), progressive, markers missing.
    func testAJPEGWithRestartMarkersIsDecodedInBandsToTheSamePixels() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-rst-\(getpid())"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = SampleImage.marker(width: 2400, height: 1800)
        func opened(_ bytes: [UInt8], _ name: String) throws -> OpenedSource {
            let path = folder + "/" + name
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            return try Self.openOriginal(path)
        }
        for (interval, starts) in [(SampleJPEG.RestartInterval.rows(1), 113), (.rows(3), 38), (.mcus(70), 17), (.mcus(97), 2)] {
            let jpeg = try SampleJPEG.jpegWithRestarts(image, every: interval)
            let file = try opened(jpeg, "rst.jpg")
            defer { close(file.fd) }
            let plan = try XCTUnwrap(RestartBands(try JPEGStream(file: file.fd, range: 0..<file.size)), "\(interval)")
            XCTAssertEqual(plan.starts.count, starts, "\(interval)")
            XCTAssertEqual(plan.mcuRows, 113)
            XCTAssertEqual(plan.bands(covering: 0..<113, count: 2).count, 2, "\(interval)")
            for (scale, part) in [((1, 8), nil), ((1, 4), PixelRect(x: 75, y: 0, width: 450, height: 450)),
                                  ((1, 2), PixelRect(x: 0, y: 150, width: 1200, height: 600)), ((1, 1), nil)] {
                let crop = part.map { p in { (_: Int, _: Int) in p } }
                let banded = try JPEGStream(file: file.fd, range: 0..<file.size).decode(scale: scale, part: crop)
                let whole = try JPEGStream(bytes: jpeg).decode(scale: scale, part: crop)
                XCTAssertTrue(banded.image.pixels == whole.image.pixels, "\(interval) at \(scale), \(String(describing: part))")
                XCTAssertEqual([banded.x, banded.y, banded.image.width, banded.image.height], [whole.x, whole.y, whole.image.width, whole.image.height])
            }
            let thumbnail = try ThumbnailRenderer().renderWithPlan(file: file.fd, size: file.size, format: .jpeg, orientation: 6, box: .default)
            XCTAssertEqual(thumbnail.bytes, try ThumbnailRenderer().render(jpeg, format: .jpeg, orientation: 6, box: .default))
        }
        let rst = try SampleJPEG.jpegWithRestarts(image, every: .rows(1))
        let rstAt = try XCTUnwrap((rst.count / 2..<rst.count - 1).first { rst[$0] == 0xFF && (0xD0...0xD7).contains(rst[$0 + 1]) })
        for (bytes, what) in [(try SampleJPEG.jpeg(image), "no restart markers"), (try SampleJPEG.jpeg(image, kind: .progressive), "progressive"),
                              (Array(rst[..<rstAt] + rst[(rstAt + 2)...]), "a restart marker missing"),
                              (Array(rst[..<rstAt] + [0xFF, 0xD5] + rst[rstAt...]), "a restart marker more than the header says"),
                              (Array(rst.prefix(rst.count / 2)), "cut in half")] {
            let file = try opened(bytes, "plain.jpg")
            defer { close(file.fd) }
            XCTAssertNil(RestartBands(try JPEGStream(file: file.fd, range: 0..<file.size)), what)
            XCTAssertEqual(try ThumbnailRenderer().renderWithPlan(file: file.fd, size: file.size, format: .jpeg, orientation: 1, box: .default).bytes,
                           try ThumbnailRenderer().render(bytes, format: .jpeg, orientation: 1, box: .default), what)
        }
    }

    /// A JPEG with restart markers damaged anywhere (its header, its data, its markers) renders
    /// or fails with an error, from its file (where it may be cut into bands) as from memory
    /// (where it never is); never a trap, never a thumbnail of another size.
    func testADamagedJPEGWithRestartMarkersRendersOrFails() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-rstbad-\(getpid())"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let jpeg = try SampleJPEG.jpegWithRestarts(.marker(width: 2400, height: 1800), every: .rows(2))
        var random = SeededGenerator(seed: 31)
        var rendered = 0
        for round in 0..<24 {
            var bytes = jpeg
            // Header bytes in some rounds, data bytes (markers included) in all.
            let spots = (0..<(1 + round % 4)).map { _ in round % 3 == 0 ? Int.random(in: 2..<700, using: &random) : Int.random(in: 700..<bytes.count, using: &random) }
            for at in spots { bytes[at] = round % 2 == 0 ? UInt8.random(in: 0...255, using: &random) : 0xFF }
            let path = folder + "/bad.jpg"
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let file = try Self.openOriginal(path)
            defer { close(file.fd) }
            for result in [Result { try ThumbnailRenderer().renderWithPlan(file: file.fd, size: file.size, format: .jpeg, orientation: 1, box: .default).bytes },
                           Result { try ThumbnailRenderer().render(bytes, format: .jpeg, orientation: 1, box: .default) }] {
                switch result {
                case .success(let thumbnail):
                    XCTAssertEqual(thumbnail.count, 30_000, "round \(round)")
                    rendered += 1
                case .failure(let error):
                    XCTAssertTrue(error is ThumbnailError, "round \(round): \(error)")
                }
            }
        }
        XCTAssertGreaterThan(rendered, 10, "most damage still renders")
    }

    /// A JPEG that lacks only its closing EOI marker (some phones write them so, an interrupted
    /// copy loses it) has every row: its thumbnail is the whole file's, from memory and from its
    /// file. Cut inside its image data, or a progressive one between two scans, it renders what it
    /// holds (libjpeg fills the missing rows), as GdkPixbuf, ImageMagick and pcmanfm show it: the
    /// marker's red corner, decoded first, is there. An embedded preview cut short is passed over
    /// for the photo itself.
    func testAJPEGCutShortRendersWhatItHolds() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-eoi-\(getpid())"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func render(_ bytes: [UInt8]) throws -> [UInt8] {
            let fromMemory = try ThumbnailRenderer().render(bytes, format: .jpeg, orientation: 1, box: .default)
            let path = folder + "/photo.jpg"
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let original = try Self.openOriginal(path)
            defer { close(original.fd) }
            let fromFile = try ThumbnailRenderer().renderWithPlan(file: original.fd, size: original.size, format: .jpeg,
                                                                  orientation: 1, box: .default).bytes
            XCTAssertEqual(fromFile, fromMemory)
            return fromMemory
        }
        func assertRendersItsStart(_ bytes: [UInt8], _ what: String) throws {
            let image = try JPEGStream(bytes: try render(bytes)).decode(scale: (1, 1)).image
            var r = 0, g = 0
            for y in 3..<20 { for x in 3..<20 { r += Int(image.pixels[(y * image.width + x) * 3]); g += Int(image.pixels[(y * image.width + x) * 3 + 1]) } }
            let red = (r / 289, g / 289)
            XCTAssertGreaterThan(red.0, 170, "\(what): the top-left corner decoded \(red)")
            XCTAssertLessThan(red.1, 90, "\(what): the top-left corner decoded \(red)")
        }
        for kind in [SampleJPEG.JPEGKind.baseline, .progressive] {
            let jpeg = try SampleJPEG.jpeg(.marker(width: 1200, height: 800), kind: kind)
            XCTAssertEqual(Array(jpeg.suffix(2)), [0xFF, 0xD9])
            XCTAssertEqual(try render(Array(jpeg.dropLast(2))), try render(jpeg), "\(kind) without EOI")
            try assertRendersItsStart(Array(jpeg.dropLast(40)), "\(kind) cut 40 bytes short")
            try assertRendersItsStart(Array(jpeg.prefix(jpeg.count / 2)), "\(kind) cut in half")
        }
        let progressive = try SampleJPEG.jpeg(.marker(width: 1200, height: 800), kind: .progressive)
        let scans = (2..<progressive.count - 1).filter { progressive[$0] == 0xFF && progressive[$0 + 1] == 0xDA }
        XCTAssertGreaterThan(scans.count, 5)
        for (n, at) in scans.enumerated().dropFirst(2) { try assertRendersItsStart(Array(progressive[..<at]), "cut before scan \(n + 1)") }
        // Cut inside its header (no image data yet) there is nothing to render.
        XCTAssertThrowsError(try ThumbnailRenderer().render(Array(progressive[..<scans[0]]), format: .jpeg, orientation: 1, box: .default))
    }
}
