import AlbumSystem
import Foundation
import XCTest

/// The one lock type: what `withLock` guarantees its callers, in either build (scripts/tsan runs
/// these against the pthread mutex of `-DALBUMFS_TSAN`).
final class LockedTests: XCTestCase {
    /// Read-modify-writes from many threads at once are each whole: none is lost.
    func testWritesFromManyThreadsAreEachWhole() {
        let counts = Locked<(total: Int, perThread: [Int])>((0, Array(repeating: 0, count: 8)))
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for _ in 0..<20_000 {
                counts.withLock { state in
                    // Read, yield the processor, write: a lock that did not exclude loses counts here.
                    let seen = state.total
                    if seen % 997 == 0 { sched_yield() }
                    state.total = seen + 1
                    state.perThread[thread] += 1
                }
            }
        }
        let (total, perThread) = counts.withLock { ($0.total, $0.perThread) }
        XCTAssertEqual(total, 160_000)
        XCTAssertEqual(perThread, Array(repeating: 20_000, count: 8))
    }

    /// The body's result comes back, and its typed error too, with what it changed before kept.
    func testTheResultAndATypedErrorComeBack() {
        struct Refused: Error, Equatable { let why: String }
        let names = Locked<[String]>(["a"])
        XCTAssertEqual(names.withLock { $0.append("b"); return $0.count }, 2)
        XCTAssertThrowsError(try names.withLock { (names: inout [String]) throws(Refused) -> Int in
            names.append("c")
            throw Refused(why: "full")
        }) { XCTAssertEqual($0 as? Refused, Refused(why: "full")) }
        XCTAssertEqual(names.withLock { $0 }, ["a", "b", "c"])
        // The lock is free again after the throw: this would wait for ever otherwise.
        XCTAssertEqual(names.withLock { $0.count }, 3)
    }
}
