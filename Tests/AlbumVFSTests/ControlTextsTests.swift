@testable import AlbumVFS
import XCTest

final class ControlTextsTests: XCTestCase {
    /// A text over the bound keeps the whole lines that fit and says how many were left out.
    func testATextOverTheBoundKeepsWholeLinesAndCountsTheRest() {
        let text = Array((0..<100).map { "line \($0)\n" }.joined().utf8)
        XCTAssertEqual(ControlTexts.bounded(text, maxBytes: 10_000), text, "within the bound: whole")
        let cut = String(decoding: ControlTexts.bounded(text, maxBytes: 64), as: UTF8.self)
        let lines = cut.split(separator: "\n").map(String.init)
        let expected: [String] = (0..<9).map { "line \($0)" }
        XCTAssertEqual(Array(lines.prefix(9)), expected, "the 9 whole lines of 7 bytes that fit in 64")
        XCTAssertEqual(lines.last, "… and 91 more lines (the daemon's log has each)")
        XCTAssertEqual(lines.count, 10)
        let notShown = String(decoding: ControlTexts.bounded(text, maxBytes: 64, rest: ControlTexts.notShownRest), as: UTF8.self)
        XCTAssertEqual(notShown.split(separator: "\n").last, "… and 91 more lines (not_shown_by_reason in .albumfs/status counts them all)")
    }

    /// Opens while a text is unchanged share one buffer: held by a thousand opens, one copy.
    func testUnchangedTextsShareOneBuffer() {
        let texts = ControlTexts()
        let a = texts.shared("errors", "a.jpg: empty file\n")
        let b = texts.shared("errors", "a.jpg: empty file\n")
        a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in XCTAssertEqual(pa.baseAddress, pb.baseAddress) } }
        let c = texts.shared("errors", "b.jpg: empty file\n")
        XCTAssertEqual(String(decoding: c, as: UTF8.self), "b.jpg: empty file\n")
        let s = texts.shared("status", "a.jpg: empty file\n")
        XCTAssertEqual(s, a)
    }
}
