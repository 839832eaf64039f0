import AlbumSample
import Foundation
import XCTest

/// Every input a fuzzer once found trouble with (`Tests/FuzzInputs/TARGET/`) goes through its
/// parser again, as `scripts/fuzz` runs it, and returns; so does every file of the sample library.
final class FuzzInputsTests: XCTestCase {
    /// `albumfs-fuzz`, built beside the test bundle.
    var replay: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("albumfs-fuzz").path
    }

    func testFoundInputsAndTheSampleLibraryParse() throws {
        let targets = runCommand(replay, ["--targets"])
        XCTAssertEqual(targets.status, 0, targets.stderr)
        let names = targets.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(Set(names), ["header", "jpeg", "png", "heif", "video", "webp", "tiff", "jxl", "raf", "cr3", "exif", "xmp", "filename", "render", "snapshot", "takeout", "xmpsidecar", "motionPhoto"])
        let inputs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("FuzzInputs").path
        for target in names {
            let folder = inputs + "/" + target
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
            XCTAssertFalse(files.isEmpty, "Tests/FuzzInputs/\(target) keeps inputs to replay")
            let r = runCommand(replay, [target] + files, timeout: 60)
            XCTAssertEqual(r.status, 0, "\(target): \(r.stderr)")
        }
        let source = try SampleSource()
        defer { source.remove() }
        let files = source.items.map { source.path + "/" + $0.path }
        for target in ["header", "jpeg", "png", "heif", "video", "webp", "tiff", "jxl", "raf", "cr3", "filename", "render", "snapshot", "motionPhoto"] {
            let r = runCommand(replay, [target] + files, timeout: 60)
            XCTAssertEqual(r.status, 0, "\(target): \(r.stderr)")
            XCTAssertEqual(r.stdout, "albumfs-fuzz: \(files.count) inputs of \(target) parsed\n")
        }
    }
}
