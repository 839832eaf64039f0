import AlbumSystem
import Foundation
import Glibc
import XCTest

/// Background work lowers its own thread's priorities, and only its own thread's.
final class BackgroundPriorityTests: XCTestCase {
    func testOnlyTheCallingThreadIsLowered() throws {
        let before = try BackgroundPriority.ofThisThread().get()
        let seen = LockedResult()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let error = BackgroundPriority.lowerThisThread()
            seen.set(error, BackgroundPriority.ofThisThread())
            done.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "the thread ran")
        let (error, after) = seen.get()
        XCTAssertNil(error)
        let lowered = try XCTUnwrap(after).get()
        XCTAssertEqual(lowered.nice, BackgroundPriority.niceValue)
        XCTAssertEqual(lowered.io, BackgroundPriority.idleIO, "the idle I/O class")
        let now = try BackgroundPriority.ofThisThread().get()
        XCTAssertEqual(now.nice, before.nice, "the test's own thread is as it was")
        XCTAssertEqual(now.io, before.io)
    }
}

/// What the thread saw, handed to the test's thread.
private final class LockedResult: @unchecked Sendable {
    private let lock = NSLock()
    private var error: Errno?
    private var result: Result<(nice: Int32, io: Int32), Errno>?
    func set(_ error: Errno?, _ result: Result<(nice: Int32, io: Int32), Errno>) {
        lock.lock(); defer { lock.unlock() }
        self.error = error
        self.result = result
    }
    func get() -> (Errno?, Result<(nice: Int32, io: Int32), Errno>?) {
        lock.lock(); defer { lock.unlock() }
        return (error, result)
    }
}
