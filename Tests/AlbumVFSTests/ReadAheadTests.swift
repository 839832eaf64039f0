import AlbumCore
@testable import AlbumVFS
import XCTest

final class ReadAheadTests: XCTestCase {
    private func at(_ position: Int, rank: Int) -> EntryPlace { EntryPlace(position: position, rank: rank) }

    func testAFirstOpenGuessesNothing() {
        var ahead = ReadAhead()
        XCTAssertNil(ahead.opened(at(5, rank: 9), in: 7, count: 100, depth: 2))
    }

    func testNeighboursInReaddirOrderGuessTheNextThatWay() {
        var ahead = ReadAhead()
        _ = ahead.opened(at(5, rank: 40), in: 7, count: 100, depth: 2)
        XCTAssertEqual(ahead.opened(at(6, rank: 12), in: 7, count: 100, depth: 2), .init(order: .listing(step: 1), next: [7, 8]))
        XCTAssertEqual(ahead.opened(at(7, rank: 80), in: 7, count: 100, depth: 3), .init(order: .listing(step: 1), next: [8, 9, 10]))
        // Backwards, and cut at the folder's first entry.
        _ = ahead.opened(at(2, rank: 30), in: 7, count: 100, depth: 2)
        XCTAssertEqual(ahead.opened(at(1, rank: 3), in: 7, count: 100, depth: 2), .init(order: .listing(step: -1), next: [0]))
        XCTAssertNil(ahead.opened(at(0, rank: 50), in: 7, count: 100, depth: 2), "nothing before the first")
    }

    func testNeighboursInNameOrderGuessTheNextByName() {
        var ahead = ReadAhead()
        _ = ahead.opened(at(50, rank: 10), in: 7, count: 100, depth: 2)
        XCTAssertEqual(ahead.opened(at(20, rank: 11), in: 7, count: 100, depth: 2), .init(order: .names(step: 1), next: [12, 13]))
        XCTAssertEqual(ahead.opened(at(70, rank: 10), in: 7, count: 100, depth: 2), .init(order: .names(step: -1), next: [9, 8]))
        XCTAssertEqual(ahead.opened(at(3, rank: 98), in: 7, count: 100, depth: 2), nil, "a jump")
        XCTAssertEqual(ahead.opened(at(90, rank: 99), in: 7, count: 100, depth: 2), nil, "nothing after the last")
    }

    func testOpensOutOfOrderOrOneFolderAfterAnotherGuessNothing() {
        var ahead = ReadAhead()
        for (position, rank) in [(10, 10), (30, 12), (11, 40), (29, 45)] {
            XCTAssertNil(ahead.opened(at(position, rank: rank), in: 7, count: 100, depth: 2), "\(position)")
        }
        // Each folder is followed on its own: a neighbour in another folder is no sequence.
        XCTAssertNil(ahead.opened(at(30, rank: 42), in: 8, count: 100, depth: 2))
        XCTAssertEqual(ahead.opened(at(30, rank: 42), in: 7, count: 100, depth: 2)?.order, .listing(step: 1))
        XCTAssertNil(ahead.opened(at(31, rank: 43), in: 7, count: 100, depth: 0), "depth 0: nothing ahead")
    }

    func testManyFoldersAreForgottenNotHeldForEver() {
        var ahead = ReadAhead()
        for folder in 0..<UInt64(ReadAhead.foldersFollowed) { _ = ahead.opened(at(1, rank: 1), in: folder, count: 10, depth: 1) }
        XCTAssertNotNil(ahead.opened(at(2, rank: 2), in: 0, count: 10, depth: 1), "still followed")
        _ = ahead.opened(at(1, rank: 1), in: 1000, count: 10, depth: 1)
        XCTAssertNil(ahead.opened(at(3, rank: 3), in: 0, count: 10, depth: 1), "forgotten once one folder too many came")
    }
}
