import AlbumSystem
@testable import AlbumLive
import Foundation
import XCTest

/// The coordinator's count of changes seen and trees published, and the wait for a tree.
final class PendingChangesTests: XCTestCase {
    /// Changes count as pending from their report until a tree covers them; a wait ends with a
    /// new tree, or once nothing is pending, or at its deadline.
    func testPendingChanges() {
        let p = PendingChanges()
        XCTAssertFalse(p.any)
        let first = p.report(), second = p.report()
        XCTAssertEqual(second, first + 1)
        p.shown(through: first)
        XCTAssertTrue(p.any, "the second is not shown yet")
        p.shown(through: second)
        p.shown(through: first)
        XCTAssertFalse(p.any, "a lower number shown later takes nothing back")
        let tree = p.tree
        XCTAssertFalse(p.awaitTree(newerThan: tree, until: Condition.monotonicNow() + 5), "nothing pending: no new tree to wait for")
        p.report()
        XCTAssertFalse(p.awaitTree(newerThan: tree, until: Condition.monotonicNow() + 0.1), "the deadline")
        p.treePublished()
        XCTAssertTrue(p.awaitTree(newerThan: tree, until: Condition.monotonicNow() + 5))
        // A waiter is woken by the tree published while it waits, and by the change shown.
        // (A new tree answers true; the change shown leaves nothing pending and no new tree: false.)
        for (wake, answer) in [({ p.treePublished() }, true), ({ p.shown(through: p.report()) }, false)] {
            let before = p.tree
            p.report()
            let woken = DispatchSemaphore(value: 0)
            let answered = Locked<Bool?>(nil)
            let started = Condition.monotonicNow()
            Thread.detachNewThread {
                let newer = p.awaitTree(newerThan: before, until: Condition.monotonicNow() + 30)
                answered.withLock { $0 = newer }
                woken.signal()
            }
            XCTAssertEqual(woken.wait(timeout: .now() + 0.3), .timedOut, "it waits while a change is pending")
            wake()
            XCTAssertEqual(woken.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(answered.withLock { $0 }, answer, "what the waiter was woken by")
            XCTAssertLessThan(Condition.monotonicNow() - started, 10, "woken, not timed out")
            p.shown(through: p.report())
        }
    }
}
