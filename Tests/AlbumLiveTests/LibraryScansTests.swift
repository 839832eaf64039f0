import Foundation
@testable import AlbumLive
import XCTest
import AlbumMetadata

/// When a scan shows what it found so far: gaps that grow with the scan, never under a second
/// nor under four times what a publish takes.
final class LibraryScansTests: XCTestCase {
    let start = Date(timeIntervalSince1970: 1_000_000)

    func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    func testEachGapIsTwiceTheTimeBeforeIt() {
        var pacing = LibraryScans.PublishPacing(started: start, now: start)
        var published: [Double] = []
        for tenth in 1...320 {
            let now = at(Double(tenth) / 10)
            if pacing.isDue(at: now, publishSeconds: 0.01) {
                published.append(Double(tenth) / 10)
                pacing.last = now
            }
        }
        // (Each gap twice the time from the start to the publish before it, to a tenth: 1, 3, 10,
        // 31 s.)
        XCTAssertEqual(published.count, 4, "\(published)")
        XCTAssertEqual(published.first ?? 0, 1.05, accuracy: 0.06, "\(published)")
        for (before, after) in zip(published, published.dropFirst()) {
            XCTAssertEqual(after - before, 2 * before + 0.05, accuracy: 0.06, "\(published)")
        }
    }

    func testASlowPublishWidensTheGap() {
        let pacing = LibraryScans.PublishPacing(started: start, now: start)
        XCTAssertTrue(pacing.isDue(at: at(1.5), publishSeconds: 0.2))
        XCTAssertFalse(pacing.isDue(at: at(1.5), publishSeconds: 0.5), "4 publish times: 2 s")
        XCTAssertTrue(pacing.isDue(at: at(2.1), publishSeconds: 0.5))
    }

    func testAPublishLateInAScanWaitsTwiceAsLongAgain() {
        var pacing = LibraryScans.PublishPacing(started: start, now: start)
        pacing.last = at(30)
        XCTAssertFalse(pacing.isDue(at: at(89), publishSeconds: 0.1))
        XCTAssertTrue(pacing.isDue(at: at(90.1), publishSeconds: 0.1))
    }
}
