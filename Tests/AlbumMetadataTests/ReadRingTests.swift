import AlbumCore
import AlbumSystem
@testable import AlbumMetadata
import Foundation
import Glibc
import XCTest

/// io_uring reads of files' first blocks (the kernels albumfs runs on have io_uring; CI's does).
final class ReadRingTests: FolderTestCase {
    private func write(_ name: String, _ bytes: [UInt8]) -> Int32 {
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes)))
        return open(folder + "/" + name, O_RDONLY | O_CLOEXEC)
    }

    /// Each file's bytes (the slot's worth of a longer one, all of a shorter one), each error as its
    /// errno, in the order asked, whatever order the kernel completes them in.
    func testReadsEachFilesStartOrItsErrno() throws {
        let ring = try XCTUnwrap(ReadRing(capacity: 8, slotSize: 4096), "io_uring is available here")
        let long = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let short = Array("a short file".utf8)
        let fds = [write("long", long), write("short", short), write("empty", []), -1, open(folder, O_RDONLY | O_DIRECTORY)]
        defer { for fd in fds where fd >= 0 { close(fd) } }
        var seen: [Int: Result<[UInt8], Errno>] = [:]
        let ok = ring.readStarts(fds: fds, lengths: [10_000, short.count, 0, 100, 100]) { i, result in
            seen[i] = result.map { Array($0) }
        }
        XCTAssertTrue(ok)
        XCTAssertEqual(seen.count, 5)
        XCTAssertEqual(try seen[0]?.get(), Array(long.prefix(4096)), "at most a slot")
        XCTAssertEqual(try seen[1]?.get(), short)
        XCTAssertEqual(try seen[2]?.get(), [])
        XCTAssertEqual(failure(seen[3]), Errno(rawValue: EBADF))
        XCTAssertEqual(failure(seen[4]), Errno(rawValue: EISDIR))
    }

    private func failure(_ result: Result<[UInt8], Errno>?) -> Errno? {
        guard case .failure(let e) = result else { return nil }
        return e
    }

    /// The ring is reused chunk after chunk; a chunk's bytes are those of its own files.
    func testReusedForChunkAfterChunk() throws {
        let ring = try XCTUnwrap(ReadRing(capacity: 4))
        for round in 0..<50 {
            let contents = (0..<4).map { i in Array("round \(round) file \(i)".utf8) }
            let fds = contents.enumerated().map { write("f\($0.offset)", $0.element) }
            defer { fds.forEach { close($0) } }
            var got: [[UInt8]] = []
            XCTAssertTrue(ring.readStarts(fds: fds, lengths: contents.map(\.count)) { _, r in got.append((try? Array(r.get())) ?? []) })
            XCTAssertEqual(got, contents)
        }
    }
}
