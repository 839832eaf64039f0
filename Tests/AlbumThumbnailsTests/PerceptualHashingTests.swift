import AlbumCore
import AlbumSample
import AlbumSystem
@testable import AlbumThumbnails
import Foundation
import Glibc
import XCTest

/// Similar photos' hash of real files, with known answers: the same photo re-encoded, resized,
/// cropped, turned by its EXIF orientation, and one scene shot twice with a small shift are
/// within `SimilarGroups.threshold` of each other and group as one; different scenes are not.
/// Fixtures are the project's encoders', checked by ImageMagick.
final class PerceptualHashingTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-similar-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// Each of the 9x8 cells is the mean luma (BT.601) of the pixels it covers; a picture
    /// smaller than the grid repeats its pixels.
    func testGreyCellsAreTheMeanLumaOfThePixelsTheyCover() {
        var pixels: [UInt8] = []
        for y in 0..<16 { for x in 0..<18 { pixels += [UInt8]( repeating: UInt8((x / 2) * 10 + y / 2 + (x % 2) * 2), count: 3) } }
        let cells = PerceptualHashing.grey(RGBImage(width: 18, height: 16, pixels: pixels))
        XCTAssertEqual(cells, (0..<8).flatMap { r in (0..<9).map { c in UInt8(c * 10 + r + 1) } })
        XCTAssertEqual(PerceptualHashing.hash(RGBImage(width: 18, height: 16, pixels: pixels)), 0, "brighter to the right: no bit")
        XCTAssertEqual(PerceptualHashing.grey(RGBImage(width: 1, height: 1, pixels: [255, 0, 0])), [UInt8](repeating: 76, count: 72))
        XCTAssertEqual(PerceptualHashing.grey(RGBImage(width: 1, height: 1, pixels: [0, 255, 0])), [UInt8](repeating: 150, count: 72))
        let twoColumns = PerceptualHashing.grey(RGBImage(width: 2, height: 1, pixels: [200, 200, 200, 100, 100, 100]))
        XCTAssertEqual(twoColumns, (0..<8).flatMap { _ in [200, 200, 200, 200, 200, 100, 100, 100, 100] as [UInt8] })
        XCTAssertEqual(PerceptualHashing.hash(RGBImage(width: 2, height: 1, pixels: [200, 200, 200, 100, 100, 100])), 0x0808_0808_0808_0808)
    }

    func testTheKnownPairsAreWithinTheThresholdAndDifferentScenesFarApart() throws {
        var hashes: [String: UInt64] = [:]
        for (name, bytes) in try SimilarFixtures.files() {
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
            hashes[name] = try perceptualHash(ofJPEG: folder + "/" + name, orientation: SimilarFixtures.orientation(name))
        }
        try checkWithImageMagick()
        let (alike, others) = (SimilarFixtures.alike, SimilarFixtures.others)
        var report: [String] = []
        for a in alike { report.append("\(a) \(SimilarGroups.hex(hashes[a]!)) \(SimilarGroups.distance(hashes["original.jpg"]!, hashes[a]!))") }
        for a in alike {
            XCTAssertLessThanOrEqual(SimilarGroups.distance(hashes["original.jpg"]!, hashes[a]!), SimilarGroups.threshold,
                                     "\(a) ~ original.jpg\n" + report.joined(separator: "\n"))
            for o in others {
                XCTAssertGreaterThan(SimilarGroups.distance(hashes[a]!, hashes[o]!), 2 * SimilarGroups.threshold, "\(a) vs \(o)")
            }
        }
        for o in others { for p in others where p != o { XCTAssertGreaterThan(SimilarGroups.distance(hashes[o]!, hashes[p]!), SimilarGroups.threshold) } }
        let names = hashes.keys.sorted()
        let groups = SimilarGroups.groups(names.map { hashes[$0]! }).map { $0.map { names[$0] } }
        XCTAssertEqual(groups, [alike.sorted()])
    }

    /// What ImageMagick says of the fixtures: their sizes, and that the re-encoded copy is the
    /// original's picture (a small RMSE) while another scene is not.
    func checkWithImageMagick() throws {
        func run(_ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let out = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: out, as: UTF8.self)
        }
        let sizes = try run(["identify", "-format", "%f %wx%h\n"] + ["original", "resized", "cropped", "turned"].map { folder + "/\($0).jpg" })
        XCTAssertEqual(sizes, "original.jpg 800x600\nresized.jpg 640x480\ncropped.jpg 760x570\nturned.jpg 600x800\n")
        // `compare -metric RMSE` prints "absolute (normalised)"; the normalised one is 0...1.
        func rmse(_ a: String, _ b: String) throws -> Double {
            let out = try run(["compare", "-metric", "RMSE", folder + "/" + a, folder + "/" + b, "null:"])
            let inside = out.split(separator: "(").last.map { $0.prefix { $0 != ")" } } ?? ""
            return try XCTUnwrap(Double(inside), out)
        }
        XCTAssertLessThan(try rmse("original.jpg", "requality.jpg"), 0.05)
        XCTAssertGreaterThan(try rmse("original.jpg", "other1.jpg"), 0.15)
        XCTAssertGreaterThan(try rmse("original.jpg", "shifted.jpg"), 0.05, "the shifted shot is another picture, pixel for pixel")
    }
}
