import AlbumSample
import Foundation
import Glibc
import XCTest

/// Reads of an original whose pages the kernel holds (`keep_cache`): what they ask of the daemon,
/// and that a file changed in SOURCE is read afresh (docs/benchmarks.md, "Warm reads").
final class WarmReadTests: SampleLibraryTestCase {
    func camera(_ date: String, tint: UInt8) throws -> Data {
        let jpeg = try SampleJPEG.jpeg(.marker(width: 48, height: 32, tint: tint))
        return Data(SampleJPEG.insertingAPP1(SampleExif.camera("Canon", "EOS R6", ExifTime(date), orientation: 1).payload(), into: jpeg))
    }

    /// exiftool's value of `tag` in `path`.
    func exiftool(_ tag: String, _ path: String) -> String {
        runCommand("/usr/bin/env", ["exiftool", "-s3", "-f", "-" + tag, path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func counters(_ m: Mount) -> (opens: Int?, bytes: Int?) {
        let status = daemonStatus(m.mountpoint)
        return (status["original_opens"].flatMap { Int($0) }, status["original_bytes_read"].flatMap { Int($0) })
    }

    /// The first read of an original reads its bytes from SOURCE; every read after it is served
    /// from the kernel's cache, its one request the open (the daemon answers opens: an open
    /// that writes answers EROFS, `.albumfs/` EACCES to other users, docs/errno.md). A file
    /// rewritten in SOURCE is read afresh once the mount shows the change: the kernel is told to
    /// drop its pages (`notify_inval_inode`), and the new bytes are exactly the file's.
    func testAWarmReadReadsNothingFromSourceAndAChangedFileIsReadAfresh() throws {
        let path = source.path + "/Warm/WARM.JPG"
        try FileManager.default.createDirectory(atPath: source.path + "/Warm", withIntermediateDirectories: true)
        let first = try camera("2020:01:02 03:04:05", tint: 40)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: first))
        XCTAssertEqual(exiftool("DateTimeOriginal", path), "2020:01:02 03:04:05", "the fixture as exiftool reads it")
        let m = try Mount(source: source.path, options: ["-o", "index=" + state + "/index.sqlite"])
        let shown = m.path("by-date/2020/2020-01/2020-01-02/WARM.JPG")

        let before = counters(m)
        XCTAssertEqual(try readFile(shown).get(), [UInt8](first), "the first read: the file's bytes")
        let cold = counters(m)
        XCTAssertEqual(cold.opens, before.opens.map { $0 + 1 }, "one open")
        XCTAssertEqual(cold.bytes, before.bytes.map { $0 + first.count }, "the whole file read from SOURCE")
        for _ in 1...3 { XCTAssertEqual(try readFile(shown).get(), [UInt8](first), "a warm read: the same bytes") }
        let warm = counters(m)
        XCTAssertEqual(warm.opens, cold.opens.map { $0 + 3 }, "one open a read")
        XCTAssertEqual(warm.bytes, cold.bytes, "no byte read from SOURCE again")

        // The same name and date, other bytes of another length: the change the kernel must drop.
        let second = try camera("2020:01:02 03:04:05", tint: 200) + Data(repeating: 0, count: 4096)
        XCTAssertNotEqual(second.count, first.count)
        // (Written outside SOURCE and renamed in: the scan never sees it half written.)
        XCTAssertTrue(FileManager.default.createFile(atPath: state + "/WARM.new", contents: second))
        XCTAssertEqual(rename(state + "/WARM.new", path), 0, String(cString: strerror(errno)))
        XCTAssertEqual(exiftool("FileSize#", path), String(second.count), "the rewritten fixture as exiftool reads it")
        // (Not read before the mount shows the change: an open between the two finds a file that
        // is not the one scanned, and says so on stderr.) The new size comes with the notice that
        // drops the attributes and the pages together.
        XCTAssertTrue(eventually(10) { statOf(shown).map { Int($0.st_size) } == second.count }, "its new size")
        let fresh = counters(m)
        XCTAssertEqual(try readFile(shown).get(), [UInt8](second), "the new bytes, not the kernel's old pages")
        XCTAssertEqual(counters(m).bytes, fresh.bytes.map { $0 + second.count }, "read from SOURCE once")
        XCTAssertEqual(try readFile(shown).get(), [UInt8](second))
        XCTAssertEqual(counters(m).bytes, fresh.bytes.map { $0 + second.count }, "warm again")
        m.finish()
    }
}
