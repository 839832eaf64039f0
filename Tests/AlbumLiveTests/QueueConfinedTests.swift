import Dispatch
@testable import AlbumLive
import XCTest

/// `QueueConfined`: what is written on its queue through a member is what is read there after,
/// in place (a set changed through its member, a nested value's mutating call).
final class QueueConfinedTests: XCTestCase {
    struct Gathered {
        var dirty = Set<String>()
        var count = 0
    }

    func testWhatIsWrittenOnTheQueueIsReadBackThere() {
        let queue = DispatchQueue(label: "albumfs.test-confined")
        var confined = QueueConfined(Gathered(), on: queue)
        let (dirty, count) = queue.sync {
            confined.dirty.insert("a/b")
            confined.dirty.insert("c")
            confined.count += 2
            confined.dirty.remove("c")
            return (confined.dirty, confined.count)
        }
        XCTAssertEqual(dirty, ["a/b"])
        XCTAssertEqual(count, 2)
    }
}
