import AlbumCore
import AlbumSystem
import Foundation
import Glibc
import XCTest

/// The one `write` loop: whole writes, errors as errno.
final class WholeWriteTests: XCTestCase {
    func testAWriteIsWholeOrSaysWhyNot() throws {
        // More than a pipe holds at once: the loop must go on as the reader drains it.
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let readEnd = fds[0]
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let received = Locked<[UInt8]>([])
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = read(readEnd, &buffer, buffer.count)
                if n <= 0 { break }
                received.withLock { $0 += buffer[0..<n] }
            }
        }
        reader.start()
        XCTAssertNil(WholeWrite.write(fds[1], bytes))
        close(fds[1])
        XCTAssertTrue(waitUntil { received.withLock { $0.count } == bytes.count })
        XCTAssertTrue(received.withLock { $0 } == bytes, "every byte, in order")
        close(fds[0])
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(full, 0)
        defer { close(full) }
        XCTAssertEqual(WholeWrite.write(full, [1, 2, 3]), Errno(rawValue: ENOSPC))
        XCTAssertEqual(WholeWrite.write(-1, [1]), Errno(rawValue: EBADF))
        XCTAssertNil(WholeWrite.write(-1, []), "nothing to write: nothing asked of the descriptor")
    }

    func waitUntil(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 where !condition() { usleep(10_000) }
        return condition()
    }
}
