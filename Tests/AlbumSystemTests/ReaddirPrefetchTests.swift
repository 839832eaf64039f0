import AlbumSystem
import Dispatch
import Foundation
import Synchronization
import XCTest

/// Answers made ahead go only to the request they were made for, are waited for while being
/// made, and are dropped (not waited for) when their queue has not begun them.
final class ReaddirPrefetchTests: XCTestCase {
    typealias Ahead = ReaddirPrefetch<Int, String, String>

    /// Waits until everything queued on `ahead` so far has run (its queue is serial).
    func drain(_ ahead: Ahead, slot: Int = 99) {
        let done = DispatchSemaphore(value: 0)
        ahead.prefetch(slot, "drain") { done.signal(); return nil }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        ahead.forget(slot)
    }

    func testAnAnswerGoesOnlyToItsRequestAndOnlyOnce() {
        let ahead = Ahead(label: "test", slots: 8)
        XCTAssertNil(ahead.take(1, "a"), "nothing made")
        ahead.prefetch(1, "a") { "answer a" }
        drain(ahead)
        XCTAssertEqual(ahead.take(1, "a"), "answer a")
        XCTAssertNil(ahead.take(1, "a"), "taken once")

        ahead.prefetch(1, "a") { "answer a" }
        drain(ahead)
        XCTAssertNil(ahead.take(2, "a"), "another slot")
        XCTAssertNil(ahead.take(1, "b"), "another request")
        XCTAssertNil(ahead.take(1, "a"), "a request that did not match dropped it")

        ahead.prefetch(1, "a") { "first" }
        ahead.prefetch(1, "a") { "second" }
        drain(ahead)
        XCTAssertEqual(ahead.take(1, "a"), "second", "a newer answer replaces the slot's")

        ahead.prefetch(1, "a") { "answer a" }
        drain(ahead)
        ahead.forget(1)
        XCTAssertNil(ahead.take(1, "a"), "forgotten with its slot")

        ahead.prefetch(1, "a") { nil }
        drain(ahead)
        XCTAssertNil(ahead.take(1, "a"), "a maker that gave nothing")
    }

    /// Makes `answer` ahead for request "a" in slot 1, and returns once its maker has begun; the
    /// maker finishes when the semaphore returned is signalled.
    func beginSlowAnswer(_ ahead: Ahead, _ answer: String) -> DispatchSemaphore {
        let begun = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        ahead.prefetch(1, "a") {
            begun.signal()
            return release.wait(timeout: .now() + 10) == .success ? answer : "released by its timeout, not by the test"
        }
        XCTAssertEqual(begun.wait(timeout: .now() + 10), .success)
        return release
    }

    func testNoMoreAnswersAreHeldThanSlots() {
        let ahead = Ahead(label: "test", slots: 2)
        ahead.prefetch(1, "a") { "one" }
        ahead.prefetch(2, "a") { "two" }
        ahead.prefetch(3, "a") { "three" }
        // (The queue is serial: once this maker has run, a maker for slot 3 would have too.)
        let done = DispatchSemaphore(value: 0)
        ahead.prefetch(2, "b") { done.signal(); return "two again" }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertNil(ahead.take(3, "a"), "a third slot gets nothing made")
        XCTAssertEqual(ahead.take(2, "b"), "two again", "a slot that holds one may make its next")
        let begun = DispatchSemaphore(value: 0)
        ahead.prefetch(3, "a") { begun.signal(); return "three" }
        XCTAssertEqual(begun.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(ahead.take(3, "a"), "three", "a slot freed by a take")
        XCTAssertEqual(ahead.take(1, "a"), "one")
    }

    func testAnAnswerBeingMadeIsWaitedFor() {
        let ahead = Ahead(label: "test", slots: 8)
        let release = beginSlowAnswer(ahead, "slow answer")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { release.signal() }
        XCTAssertEqual(ahead.take(1, "a"), "slow answer")
    }

    func testAnAnswerNotBegunIsDroppedNotWaitedFor() {
        let ahead = Ahead(label: "test", slots: 8)
        let release = DispatchSemaphore(value: 0)
        // The queue is busy with another slot's answer.
        ahead.prefetch(2, "busy") { release.wait(timeout: .now() + 10) == .success ? "busy" : "released by its timeout" }
        let ran = Atomic<Bool>(false)
        ahead.prefetch(1, "a") { ran.store(true, ordering: .relaxed); return "late" }
        let started = Date()
        XCTAssertNil(ahead.take(1, "a"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "not held up by the busy queue")
        release.signal()
        drain(ahead)
        XCTAssertFalse(ran.load(ordering: .relaxed), "a dropped answer is never made")
        XCTAssertEqual(ahead.take(2, "busy"), "busy")
    }

    func testAnAnswerMadeWhileItsRequestDidNotMatchIsNotKept() {
        let ahead = Ahead(label: "test", slots: 8)
        let release = beginSlowAnswer(ahead, "answer a")
        XCTAssertNil(ahead.take(1, "b"), "another request is not made to wait")
        release.signal()
        drain(ahead)
        XCTAssertNil(ahead.take(1, "a"), "dropped while it was made")
    }
}
