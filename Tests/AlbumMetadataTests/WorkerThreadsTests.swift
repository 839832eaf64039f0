@testable import AlbumMetadata
import Foundation
import XCTest

final class WorkerThreadsTests: XCTestCase {
    /// `width` bodies run at the same time (each waits for all the others), then return.
    func testRunsWidthBodiesAtOnce() {
        let pool = WorkerThreads(idleSeconds: 5)
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let started = Date()
        DispatchQueue.global().async {
            for _ in 0..<4 { arrived.wait() }
            for _ in 0..<4 { release.signal() }
        }
        let finished = Locked(0)
        pool.run(width: 4) {
            arrived.signal()
            // Only possible if all four bodies are running together.
            if release.wait(timeout: .now() + 10) == .success { _ = finished.add(1) }
        }
        XCTAssertEqual(finished.add(0), 4, "run returns after every body has returned, each released by the others' arrival")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the four bodies met, none waited for its timeout")
        XCTAssertEqual(pool.threadCount, 4)
    }

    /// Threads are kept for the next job, and end once idle.
    func testThreadsAreReusedThenEndWhenIdle() {
        let pool = WorkerThreads(idleSeconds: 0.3)
        let work = Locked(0)
        pool.run(width: 3) { _ = work.add(1) }
        pool.run(width: 2) { _ = work.add(1) }
        XCTAssertEqual(work.add(0), 5)
        XCTAssertEqual(pool.threadCount, 3, "the second job started no thread")
        let deadline = Date(timeIntervalSinceNow: 5)
        while pool.threadCount > 0 && Date() < deadline { usleep(20_000) }
        XCTAssertEqual(pool.threadCount, 0, "idle threads end")
        pool.run(width: 2) { _ = work.add(1) }
        XCTAssertEqual(work.add(0), 7, "threads start again after ending")
    }

    /// Two callers at once: both jobs run whole.
    func testConcurrentCallersEachRunWhole() {
        let pool = WorkerThreads(idleSeconds: 5)
        let counts = (0..<2).map { _ in Locked(0) }
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            for _ in 0..<20 { pool.run(width: 3) { _ = counts[k].add(1) } }
        }
        XCTAssertEqual(counts.map { $0.add(0) }, [60, 60])
    }

    /// A job that runs long (a read stream waiting for its walk) does not hold back another:
    /// the second gets threads of its own.
    func testASecondJobDoesNotWaitForTheFirst() {
        let pool = WorkerThreads(idleSeconds: 5)
        let secondRan = DispatchSemaphore(value: 0)
        let firstDone = DispatchSemaphore(value: 0)
        let sawSecond = Locked(0)
        let firstHolds = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            pool.run(width: 2) {
                firstHolds.signal()
                if secondRan.wait(timeout: .now() + 10) == .success {
                    secondRan.signal()
                    _ = sawSecond.add(1)
                }
            }
            firstDone.signal()
        }
        // Both of the first job's threads are running (waited for, not slept for).
        for _ in 0..<2 { XCTAssertEqual(firstHolds.wait(timeout: .now() + 10), .success) }
        pool.run(width: 1) { secondRan.signal() }
        XCTAssertEqual(firstDone.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(sawSecond.add(0), 2, "both of the first job's threads saw the second job run")
    }
}
