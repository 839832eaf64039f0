@testable import AlbumSystem
import Foundation
import XCTest

final class WorkerPoolTests: XCTestCase {
    /// `width` bodies run at the same time (each waits for all the others), then return.
    func testRunsWidthBodiesAtOnce() {
        let pool = WorkerPool(name: "test-pool", width: nil, idleSeconds: 5)
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let started = Date()
        DispatchQueue.global().async {
            for _ in 0..<4 { arrived.wait() }
            for _ in 0..<4 { release.signal() }
        }
        let finished = Tally()
        pool.run(width: 4) {
            arrived.signal()
            // Only possible if all four bodies are running together.
            if release.wait(timeout: .now() + 10) == .success { finished.add("run") }
        }
        XCTAssertEqual(finished.count, 4, "run returns after every body has returned, each released by the others' arrival")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the four bodies met, none waited for its timeout")
        XCTAssertEqual(pool.threadCount, 4)
    }

    /// Threads are kept for the next job, and end once idle.
    func testThreadsAreReusedThenEndWhenIdle() {
        let pool = WorkerPool(name: "test-pool", width: nil, idleSeconds: 0.3)
        let work = Tally()
        pool.run(width: 3) { work.add("a") }
        pool.run(width: 2) { work.add("b") }
        XCTAssertEqual(work.count, 5)
        XCTAssertEqual(pool.threadCount, 3, "the second job started no thread")
        let deadline = Date(timeIntervalSinceNow: 5)
        while pool.threadCount > 0 && Date() < deadline { usleep(20_000) }
        XCTAssertEqual(pool.threadCount, 0, "idle threads end")
        pool.run(width: 2) { work.add("c") }
        XCTAssertEqual(work.count, 7, "threads start again after ending")
    }

    /// Two callers at once: both jobs run whole.
    func testConcurrentCallersEachRunWhole() {
        let pool = WorkerPool(name: "test-pool", width: nil, idleSeconds: 5)
        let counts = [Tally(), Tally()]
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            for _ in 0..<20 { pool.run(width: 3) { counts[k].add("x") } }
        }
        XCTAssertEqual(counts.map(\.count), [60, 60])
    }

    /// A job that runs long (a read stream waiting for its walk) does not hold back another:
    /// the second gets threads of its own.
    func testASecondJobDoesNotWaitForTheFirst() {
        let pool = WorkerPool(name: "test-pool", width: nil, idleSeconds: 5)
        let secondRan = DispatchSemaphore(value: 0)
        let firstDone = DispatchSemaphore(value: 0)
        let sawSecond = Tally()
        let firstHolds = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            pool.run(width: 2) {
                firstHolds.signal()
                if secondRan.wait(timeout: .now() + 10) == .success {
                    secondRan.signal()
                    sawSecond.add("saw")
                }
            }
            firstDone.signal()
        }
        // Both of the first job's threads are running (waited for, not slept for).
        for _ in 0..<2 { XCTAssertEqual(firstHolds.wait(timeout: .now() + 10), .success) }
        pool.run(width: 1) { secondRan.signal() }
        XCTAssertEqual(firstDone.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(sawSecond.count, 2, "both of the first job's threads saw the second job run")
    }

    /// With every thread running made-ahead work and more of it queued, a read that waits starts
    /// on the next thread freed, before the ahead jobs queued earlier.
    func testAnInteractiveJobStartsBeforeQueuedAheadWork() {
        let pool = WorkerPool(name: "test-pool", width: 2, idleSeconds: nil)
        let order = Tally()
        let running = DispatchSemaphore(value: 0)
        let gates = (0..<2).map { _ in DispatchSemaphore(value: 0) }
        for k in 0..<2 {
            pool.submit(.ahead) {
                running.signal()
                if gates[k].wait(timeout: .now() + 10) != .success { order.add("ahead held past its timeout") }
            }
        }
        for _ in 0..<2 { XCTAssertEqual(running.wait(timeout: .now() + 10), .success, "both threads run ahead work") }
        let allDone = DispatchSemaphore(value: 0)
        for k in 0..<3 { pool.submit(.ahead) { order.add("ahead \(k)"); allDone.signal() } }
        pool.submit(.interactive) { order.add("read"); allDone.signal() }
        XCTAssertEqual(order.names, [], "nothing starts while both threads are busy")
        gates[0].signal()
        for _ in 0..<4 { XCTAssertEqual(allDone.wait(timeout: .now() + 10), .success) }
        gates[1].signal()
        XCTAssertEqual(order.names.first, "read", "the read started first: \(order.names)")
        XCTAssertEqual(order.names.dropFirst().sorted(), ["ahead 0", "ahead 1", "ahead 2"])
        XCTAssertEqual(pool.threadCount, 2, "no thread past the pool's width")
    }

    /// Ahead work runs on `aheadWidth` threads at most: with those busy, a read starts at once on
    /// another thread, and queued ahead work waits for an ahead thread.
    func testAheadWorkLeavesThreadsForReads() {
        let pool = WorkerPool(name: "test-pool", width: 3, aheadWidth: 1, idleSeconds: nil)
        let order = Tally()
        let aheadRunning = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        pool.submit(.ahead) {
            aheadRunning.signal()
            order.add(gate.wait(timeout: .now() + 10) == .success ? "first ahead" : "first ahead, never let go")
        }
        XCTAssertEqual(aheadRunning.wait(timeout: .now() + 10), .success)
        let done = DispatchSemaphore(value: 0)
        pool.submit(.ahead) { order.add("second ahead"); done.signal() }
        pool.submit(.interactive) { order.add("read"); done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "the read ran while the ahead thread was held")
        XCTAssertEqual(order.names, ["read"], "the second ahead job waits for the ahead thread")
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.names, ["read", "first ahead", "second ahead"])
    }

    /// Jobs of one priority start in the order they were submitted (one thread: one at a time).
    func testSubmittedJobsRunInOrder() {
        let pool = WorkerPool(name: "test-pool", width: 1, idleSeconds: nil)
        let order = Tally()
        let done = DispatchSemaphore(value: 0)
        for k in 0..<50 { pool.submit(.interactive) { order.add("\(k)"); if k == 49 { done.signal() } } }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.names, (0..<50).map { "\($0)" })
    }

    /// A job submitted with a width runs its body that many times, on as many threads as are
    /// free, without its caller waiting; a job queued after it starts once its tickets are taken.
    func testASubmittedJobOfWidthRunsItsBodyOnEachThread() {
        let pool = WorkerPool(name: "test-pool", width: 3, idleSeconds: nil)
        let order = Tally()
        let met = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        pool.submit(.interactive, width: 3) {
            met.signal()
            order.add(release.wait(timeout: .now() + 10) == .success ? "wide" : "wide, never let go")
            done.signal()
        }
        pool.submit(.interactive) { order.add("next"); done.signal() }
        for _ in 0..<3 { XCTAssertEqual(met.wait(timeout: .now() + 10), .success, "the three runs met on three threads") }
        XCTAssertEqual(order.names, [], "the caller did not wait, and the next job waits for a free thread")
        for _ in 0..<3 { release.signal() }
        for _ in 0..<4 { XCTAssertEqual(done.wait(timeout: .now() + 10), .success) }
        XCTAssertEqual(order.names.filter { $0 == "wide" }.count, 3, "each of the three runs returned: \(order.names)")
        XCTAssertEqual(order.names.filter { $0 == "next" }.count, 1)
        XCTAssertEqual(pool.threadCount, 3, "no thread past the pool's width")
        pool.submit(.interactive, width: 0) { order.add("none") }
        pool.run(width: 1) {}
        XCTAssertFalse(order.names.contains("none"), "a job of width 0 runs nothing")
    }

    /// The pool's threads carry its name (what `ps -L` shows), cut to the kernel's 15 bytes.
    func testThreadsCarryThePoolsName() {
        let pool = WorkerPool(name: "albumfs-a-long-pool-name", width: 1, idleSeconds: nil)
        let names = Tally()
        pool.run(width: 1) {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            names.add(comm.trimmingCharacters(in: .newlines))
        }
        XCTAssertEqual(names.names, ["albumfs-a-long-"])
    }
}

/// What the pool's jobs did, in the order they did it.
private final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var done: [String] = []

    func add(_ name: String) {
        lock.lock()
        done.append(name)
        lock.unlock()
    }

    var names: [String] {
        lock.lock()
        defer { lock.unlock() }
        return done
    }

    var count: Int { names.count }
}
