import AlbumCore
import AlbumSystem
import Foundation
import XCTest

/// The helpers that replaced Foundation's `String(format:)` and NSString paths in the daemon
/// print what those printed.
final class FormattingTests: XCTestCase {
    func testFixedMatchesPrintf() {
        for value in [0.0, 0.004, 0.005, 0.015, 1.0, 1.5, 2.675, 12.3456, 99.995, 1234.5, 0.7, 1e9 + 0.25] {
            for digits in 0...3 {
                XCTAssertEqual(value.fixed(digits), String(format: "%.\(digits)f", value), "\(value) to \(digits) digits")
            }
        }
        XCTAssertEqual((-1.25).fixed(1), String(format: "%.1f", -1.25))
        XCTAssertEqual(Double.infinity.fixed(2), "inf")
    }

    func testZeroPadded() {
        XCTAssertEqual(7.zeroPadded(3), "007")
        XCTAssertEqual(1234.zeroPadded(3), "1234")
        XCTAssertEqual(UInt8(0x0a).zeroPadded(2, radix: 16), "0a")
        XCTAssertEqual(UInt8(0xff).zeroPadded(2, radix: 16), "ff")
    }

    func testFolderBeforeLastSlash() {
        for path in ["a/b/c.jpg", "c.jpg", "/c", "/a/b", "a/b/", ""] {
            let expected = (path as NSString).deletingLastPathComponent
            // (NSString also drops a trailing slash first; albumfs never makes such paths.)
            if path.hasSuffix("/") { continue }
            XCTAssertEqual(path.folderBeforeLastSlash, expected, path)
        }
    }

    /// The name after the last slash, found in the string's bytes: small and heap strings alike,
    /// names of several bytes per character, a slash first or last.
    func testNameAfterLastSlash() {
        let cases = ["a/b/c.jpg": "c.jpg", "c.jpg": "c.jpg", "/c": "c", "a/": "", "": "",
                     "日本/写真/夏の海.jpg": "夏の海.jpg", "cafe\u{301}/e\u{301}t\u{E9}.jpg": "e\u{301}t\u{E9}.jpg",
                     String(repeating: "long folder/", count: 20) + "IMG_0001.JPG": "IMG_0001.JPG",
                     // A name that starts with a combining mark: one Character with the slash.
                     "a/\u{301}b.jpg": "\u{301}b.jpg"]
        for (path, name) in cases {
            XCTAssertEqual(String(path.nameAfterLastSlash), name, path)
            XCTAssertEqual(path.lastUTF8Index(of: UInt8(ascii: "/")), path.utf8.lastIndex(of: UInt8(ascii: "/")), path)
        }
        XCTAssertEqual(EntryNames.replacingExtension(of: "夏.JPG", with: ".jpg"), "夏.jpg")
    }

    func testIsWithinFolder() {
        XCTAssertTrue("a/b.jpg".isWithin(folder: ""))
        XCTAssertTrue("a".isWithin(folder: "a"))
        XCTAssertTrue("a/b/c.jpg".isWithin(folder: "a/b"))
        XCTAssertFalse("ab/c.jpg".isWithin(folder: "a"), "a sibling with a longer name")
        XCTAssertFalse("a".isWithin(folder: "a/b"))
        XCTAssertFalse("cafe\u{301}/x.jpg".isWithin(folder: "caf\u{E9}"), "names differ by bytes, as on disk")
    }

    /// The threads and condition variable over pthreads: a waiter is woken, a timed wait ends.
    func testConditionAndThreads() {
        let condition = Condition()
        nonisolated(unsafe) var flag = false
        Threads.detach {
            condition.lock()
            flag = true
            condition.signal()
            condition.unlock()
        }
        condition.lock()
        while !flag { condition.wait() }
        let started = Date()
        XCTAssertFalse(condition.wait(seconds: 0.05), "nobody signals: the time runs out")
        condition.unlock()
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.04)
    }

    /// An answer that comes is returned; one that does not (the work blocked, as `opendir` on a
    /// share whose server is gone) is nil once the time runs out, the work left on its thread.
    func testAnswerWithin() {
        XCTAssertEqual(Threads.answer(within: 10) { 6 * 7 }, 42)
        /// Work that blocks until the test releases it (under `blocked`'s lock).
        final class Gate: @unchecked Sendable {
            let blocked = Condition()
            var released = false
            func pass() {
                blocked.lock()
                while !released { blocked.wait() }
                blocked.unlock()
            }
            func open() {
                blocked.lock()
                released = true
                blocked.broadcast()
                blocked.unlock()
            }
        }
        let gate = Gate()
        let answer: Bool? = Threads.answer(within: 0.05) {
            gate.pass()
            return true
        }
        XCTAssertNil(answer)
        // Several at once: the blocked one nil, the others answered.
        let waits: @Sendable () -> Int = {
            gate.pass()
            return 2
        }
        let works: [@Sendable () -> Int] = [{ 1 }, waits, { 3 }]
        XCTAssertEqual(Threads.answers(within: 0.5, works), [1, nil, 3])  // (time enough for two threads to start)
        XCTAssertEqual(Threads.answers(within: 1, [@Sendable () -> Int]()), [])
        gate.open()
    }
}
