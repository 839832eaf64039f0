@testable import AlbumSystem
import Foundation
import XCTest

final class PromiseTests: XCTestCase {
    /// Every waiter gets the value one thread gives, once given; a second value given is not seen.
    func testEveryWaiterGetsTheFirstValueGiven() {
        let promise = Promise<Int>()
        XCTAssertNil(promise.given, "nothing given yet")
        let pool = WorkerPool(name: "test-promise", width: 4, idleSeconds: nil)
        let got = Locked<[Int]>([])
        let waiting = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        pool.submit(.interactive, width: 4) {
            waiting.signal()
            let value = promise.wait()
            got.withLock { $0.append(value) }
            done.signal()
        }
        for _ in 0..<4 { XCTAssertEqual(waiting.wait(timeout: .now() + 10), .success) }
        XCTAssertEqual(got.withLock { $0 }, [], "no waiter returned before the value was given")
        promise.fulfil(7)
        promise.fulfil(8)
        for _ in 0..<4 { XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "every waiter was woken") }
        XCTAssertEqual(got.withLock { $0 }, [7, 7, 7, 7])
        XCTAssertEqual(promise.given, 7)
        XCTAssertEqual(promise.wait(), 7, "a wait after the value was given returns it at once")
    }

    /// A bounded wait ends at its bound with nothing when no value comes, and with the value when
    /// it comes before.
    func testABoundedWaitEndsAtItsBound() {
        let promise = Promise<String>()
        let started = Date()
        XCTAssertNil(promise.wait(seconds: 0.2))
        let waited = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(waited, 0.19, "the wait lasted its bound")
        XCTAssertLessThan(waited, 5)
        Threads.detach { promise.fulfil("made") }
        XCTAssertEqual(promise.wait(seconds: 10), "made")
    }
}
