@testable import AlbumFUSE
import AlbumSystem
import CFuse3
import Foundation
import XCTest

/// The deadline watchdog through a fake request sink: what it answers, when, and what a
/// request's own thread may still answer after it.
final class SourceDeadlinesTests: XCTestCase {
    /// What the watchdog answered and what it told of the storage's stalls, in order.
    final class Sink: @unchecked Sendable {
        let events = Locked<[String]>([])
        func answered(_ r: PendingRequest) { events.withLock { $0.append("EIO \(UInt(bitPattern: r.req))") } }
        func stall(_ stalled: Bool, _ change: UInt64) { events.withLock { $0.append("\(stalled ? "stalled" : "answers") \(change)") } }
        var now: [String] { events.withLock { $0 } }
    }

    /// A stand-in for a kernel request: an address nothing dereferences.
    func request(_ n: UInt) -> fuse_req_t? { fuse_req_t(bitPattern: n * 16) }

    func deadlines(_ timeout: Double, _ sink: Sink) -> SourceDeadlines {
        SourceDeadlines(timeout: timeout, answerLate: { sink.answered($0) }, onStall: { sink.stall($0, $1) })
    }

    func waitFor(_ sink: Sink, count: Int, seconds: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while sink.now.count < count && Date() < deadline { usleep(2_000) }
        return sink.now.count >= count
    }

    /// A request answered by the storage in time is its thread's to answer; the watchdog says nothing.
    func testARequestAnsweredInTimeIsItsThreadsToAnswer() throws {
        let sink = Sink(), d = deadlines(0.2, sink)
        let ticket = try XCTUnwrap(d.start(request(1)))
        XCTAssertTrue(d.finish(ticket))
        usleep(400_000)
        XCTAssertEqual(sink.now, [], "nothing answered for it")
        XCTAssertFalse(d.isStalled)
    }

    /// Past its deadline the watchdog answers EIO once and the storage is stalled: a request
    /// that comes meanwhile is refused before it begins (nil: EIO at once, no thread held), and
    /// the late thread's own answer is dropped (finish false); its return ends the stall.
    func testALateRequestIsAnsweredOnceAndItsThreadsAnswerDropped() throws {
        let sink = Sink(), d = deadlines(0.1, sink)
        let stuck = try XCTUnwrap(d.start(request(7)))
        XCTAssertTrue(waitFor(sink, count: 2), "the watchdog answered: \(sink.now)")
        XCTAssertEqual(sink.now, ["stalled 1", "EIO 112"])
        XCTAssertTrue(d.isStalled)
        XCTAssertNil(d.start(request(8)), "a request queued while stalled is not begun")
        XCTAssertFalse(d.finish(stuck), "the watchdog answered it: the thread's answer is dropped")
        XCTAssertEqual(sink.now, ["stalled 1", "EIO 112", "answers 2"])
        XCTAssertFalse(d.isStalled)
        let next = try XCTUnwrap(d.start(request(9)), "requests begin again once the storage answered")
        XCTAssertTrue(d.finish(next))
        usleep(300_000)
        XCTAssertEqual(sink.now.count, 3, "nothing more answered: \(sink.now)")
    }

    /// Of two stuck requests, the stall lasts until both have returned; each is answered once.
    func testTheStallLastsUntilEveryStuckRequestReturned() throws {
        let sink = Sink(), d = deadlines(0.1, sink)
        let a = try XCTUnwrap(d.start(request(1))), b = try XCTUnwrap(d.start(request(2)))
        XCTAssertTrue(waitFor(sink, count: 3), "\(sink.now)")
        XCTAssertEqual(sink.now.first, "stalled 1")
        XCTAssertEqual(Set(sink.now.dropFirst()), ["EIO 16", "EIO 32"])
        XCTAssertFalse(d.finish(a))
        XCTAssertTrue(d.isStalled, "one is still stuck")
        XCTAssertFalse(d.finish(b))
        XCTAssertFalse(d.isStalled)
        XCTAssertEqual(sink.now.last, "answers 2")
        XCTAssertEqual(sink.now.count, 4)
    }

    /// `-o source_timeout=0`: no watchdog, every request its thread's.
    func testNoTimeoutNeverAnswersForARequest() throws {
        let sink = Sink(), d = deadlines(0, sink)
        let ticket = try XCTUnwrap(d.start(request(3)))
        usleep(100_000)
        XCTAssertTrue(d.finish(ticket))
        XCTAssertEqual(sink.now, [])
    }
}
