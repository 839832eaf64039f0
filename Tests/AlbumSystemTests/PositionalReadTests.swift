import AlbumCore
import AlbumSystem
import Foundation
import Glibc
import XCTest

/// The one `pread` loop: whole reads up to the end of the file, errors as errno.
final class PositionalReadTests: XCTestCase {
    func testAReadIsWholeUpToTheEndOfTheFile() throws {
        let path = NSTemporaryDirectory() + "albumfs-pread-\(getpid())"
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 13) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { unlink(path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        XCTAssertEqual(try PositionalRead.bytes(fd, count: 1000, at: 500).get(), Array(bytes[500..<1500]))
        XCTAssertEqual(try PositionalRead.bytes(fd, count: 5000, at: 98_000).get(), Array(bytes[98_000...]), "fewer at the end")
        XCTAssertEqual(try PositionalRead.bytes(fd, count: 10, at: 200_000).get(), [])
        let directory = open(NSTemporaryDirectory(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(directory) }
        XCTAssertEqual(PositionalRead.bytes(directory, count: 10, at: 0).failure, Errno(rawValue: EISDIR))
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
