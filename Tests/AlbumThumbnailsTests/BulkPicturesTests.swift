import AlbumCore
import AlbumSample
@testable import AlbumThumbnails
import Foundation
import Glibc
import XCTest

/// `albumfs sample DIR --count N`'s photos: of one picture and two sizes by default, each of a
/// picture (its similar-photo hash, as a render worker makes it) and a size of its own with
/// `--varied`; the same paths, dates and cameras either way.
final class BulkPicturesTests: XCTestCase {
    /// Writes `count` bulk photos to a folder of their own, removed after the test; their full
    /// paths and bytes, in the order of their paths.
    func write(_ pictures: BulkPictures, count: Int) throws -> [(path: String, bytes: [UInt8])] {
        let library = NSTemporaryDirectory() + "albumfs-bulk-\(pictures)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: library) }
        try SampleLibrary.writeBulk(to: library, count: count, pictures: pictures)
        let paths = try FileManager.default.subpathsOfDirectory(atPath: library).filter { $0.hasSuffix(".JPG") }.sorted()
        return try paths.map { (library + "/" + $0, [UInt8](try Data(contentsOf: URL(fileURLWithPath: library + "/" + $0)))) }
    }

    /// The path under the library: the same for a photo of either kind.
    func name(_ path: String) -> String { path.split(separator: "/").suffix(3).joined(separator: "/") }

    func testVariedPhotosAreEachOfAPictureAndASizeOfTheirOwn() throws {
        let count = 40
        let varied = try write(.varied, count: count)
        XCTAssertEqual(varied.count, count)
        XCTAssertEqual(Set(varied.map(\.bytes.count)).count, count, "a size each")
        XCTAssertTrue(varied.allSatisfy { (2_048..<10_240).contains($0.bytes.count) }, "\(varied.map(\.bytes.count))")
        let hashes = try varied.map { try perceptualHash(ofJPEG: $0.path) }
        XCTAssertEqual(Set(hashes).count, count, "a picture each")
        XCTAssertEqual(SimilarGroups.groups(hashes), [], "none similar to another: random blocks differ in half the bits")
        // Paths, dates and cameras are the default's: the same names, the same EXIF segment first.
        let one = try write(.one, count: count)
        XCTAssertEqual(one.map { name($0.path) }, varied.map { name($0.path) })
        for (a, b) in zip(one, varied) {
            let exif = 4 + Int(a.bytes[4]) << 8 + Int(a.bytes[5])
            XCTAssertEqual(a.bytes[0..<exif], b.bytes[0..<exif], a.path)
        }
    }

    /// The default library is the one earlier figures were made of: one picture, two sizes.
    func testTheDefaultIsOnePictureOfTwoSizes() throws {
        let one = try write(.one, count: 6)
        XCTAssertEqual(one.map { name($0.path) }, (0..<6).map { "bulk/000/IMG_00000\($0).JPG" })
        XCTAssertEqual(one.map(\.bytes.count), [961, 957, 961, 957, 961, 957], "a Canon's EXIF, then an iPhone's, in turn")
        XCTAssertEqual(Set(try one.map { try perceptualHash(ofJPEG: $0.path) }).count, 1)
    }
}
