import AlbumCore
import AlbumSystem
@testable import AlbumThumbnails
import Foundation
import Glibc
import XCTest

/// The hash pass yields to thumbnails: `RenderWorkers.waitUntilIdle` returns at once while no
/// render is under way, waits (and says it waited in vain) while one is, and returns once it ends.
final class RenderWorkersTests: XCTestCase {
    func testWaitUntilIdleWaitsWhileARenderIsUnderWay() throws {
        // A "worker" that answers nothing for 30 s: the render waits for it until its deadline.
        let script = NSTemporaryDirectory() + "albumfs-silent-worker-\(getpid()).sh"
        try "#!/bin/sh\nexec sleep 30\n".write(toFile: script, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(script, 0o755), 0)
        defer { unlink(script) }
        let workers = RenderWorkers(executable: script, limits: .init(memory: 64 << 20, maxPixels: 1 << 20, seconds: 1), size: 1, log: { _ in })
        defer { workers.shutdown() }
        XCTAssertTrue(workers.waitUntilIdle(seconds: 0.1), "idle: at once")
        let fd = open("/dev/null", O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let ended = DispatchSemaphore(value: 0)
        let outcome = Locked<String>("")
        Thread {
            do {
                _ = try workers.thumbnail(SourceImage(fd: fd, size: 0, format: .jpeg, orientation: 1), box: .default)
                outcome.withLock { $0 = "a thumbnail" }
            } catch {
                outcome.withLock { $0 = "refused: \(error)" }
            }
            ended.signal()
        }.start()
        // (The render is under way once it asked for its worker: wait for that, bounded.)
        XCTAssertTrue(eventuallyTrue(5) { !workers.waitUntilIdle(seconds: 0.05) }, "a render under way is waited for")
        let started = Date()
        XCTAssertTrue(workers.waitUntilIdle(seconds: 10), "idle again once the render ended (its 3 s deadline)")
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.5, "it waited")
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success, "the render ended")
        XCTAssertTrue(outcome.withLock { $0 }.hasPrefix("refused: "), "a worker that answers nothing gives no thumbnail: \(outcome.withLock { $0 })")
        XCTAssertTrue(workers.waitUntilIdle(seconds: 0.1))
    }

    func eventuallyTrue(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(1000)
        }
        return false
    }
}
