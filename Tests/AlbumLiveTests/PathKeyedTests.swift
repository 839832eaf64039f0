@testable import AlbumLive
import XCTest

/// `PathKeyed`: entries set one at a time past the size at which they are settled into the
/// sorted table are all found, changed in place wherever they are, and listed once.
final class PathKeyedTests: XCTestCase {
    func testEntriesSetPastTheSettleSizeAreFoundChangedAndListedOnce() {
        var table = PathKeyed<Int>([(key: 7, value: -7)])
        let keys = (1...10_000).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 }
        for (k, key) in keys.enumerated() {
            table[key] = k
            table.settleWhenLarge()
        }
        XCTAssertTrue(keys.indices.allSatisfy { table[keys[$0]] == $0 }, "every entry found, settled or not")
        XCTAssertEqual(table[7], -7)
        XCTAssertNil(table[8])
        table.modify(keys[0]) { $0 = 100 }  // settled long ago
        table.modify(keys[9_999]) { $0 = 200 }  // set last
        table.modify(8) { _ in XCTFail("no entry of key 8") }
        XCTAssertEqual(table[keys[0]], 100)
        XCTAssertEqual(table[keys[9_999]], 200)
        table[7] = 70  // set again while it is in the sorted part
        let listed = table.entries { $0 == 7 || $0 == keys[1] }
        XCTAssertEqual(listed.map(\.key).sorted(), [7, keys[1]].sorted())
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: listed.map { ($0.key, $0.value) })[7], 70, "the newer entry alone")
        table.settle { $0 != keys[2] }
        XCTAssertNil(table[keys[2]], "a key not kept is dropped")
        XCTAssertEqual(table[7], 70)
        XCTAssertEqual(table.values.count, 10_000)
    }
}
