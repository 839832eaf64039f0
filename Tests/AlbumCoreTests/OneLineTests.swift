import AlbumCore
import Foundation
import XCTest

/// A line of `.albumfs/errors` is one problem whatever bytes its path and message hold.
final class OneLineTests: XCTestCase {
    /// Names as Linux allows them, escaped as `ls -b` escapes them (but for a space, which
    /// `ls -b` writes `\ ` and a line of `path: why` needs no escape for).
    func testPathsAreEscapedAsLsDashBDoes() throws {
        let names = ["plain.jpg", "new\nline.jpg", "back\\slash.jpg", "tab\there.jpg", "esc\u{1B}[31mred.jpg",
                     "del\u{7F}.jpg", "bell\u{07}cr\r.jpg", "fs\u{1C}gs\u{1D}.jpg", "nel\u{85}.jpg", "sep\u{2028}para\u{2029}.jpg",
                     "café-日本-🙂.jpg"]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("problem-line-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in names {
            XCTAssertTrue(FileManager.default.createFile(atPath: folder.path + "/" + name, contents: Data()), name)
        }
        let ls = Process()
        ls.executableURL = URL(fileURLWithPath: "/bin/ls")
        ls.arguments = ["-b", "-1", folder.path]
        ls.environment = ["LC_ALL": "C.UTF-8"]
        let out = Pipe()
        ls.standardOutput = out
        try ls.run()
        let listed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ls.waitUntilExit()
        XCTAssertEqual(ls.terminationStatus, 0)
        XCTAssertEqual(Set(names.map(OneLine.escapedPath)), Set(listed.split(separator: "\n").map(String.init)))
        XCTAssertEqual(OneLine.escapedPath("esc\u{1B}[31mred.jpg"), "esc\\033[31mred.jpg")
        XCTAssertEqual(OneLine.escapedPath("plain.jpg"), "plain.jpg")
    }

    func testMessagesAreOneLineWithoutControlCharacters() {
        // A damaged PNG's keyword, quoted in the message (found by scripts/fuzz-mount, seed 11).
        XCTAssertEqual(OneLine.cleaned("damaged compressed text (Comme\u{1C}\u{FFFD})"), "damaged compressed text (Comme\\034\u{FFFD})")
        XCTAssertEqual(OneLine.cleaned("Invalid input: Unspecified\n"), "Invalid input: Unspecified")
        XCTAssertEqual(OneLine.cleaned("\nfirst\r\nsecond\n\nthird\u{2028}"), "first second third")
        XCTAssertEqual(OneLine.cleaned("tab\tand \u{1B}[2J"), "tab\\011and \\033[2J")
        XCTAssertEqual(OneLine.cleaned("header truncated"), "header truncated")
        XCTAssertEqual(OneLine.cleaned("Maker \\ note"), "Maker \\ note", "a message is not escaped, only cleaned")
    }

    /// Whatever goes in, a line splits into one line by every rule that tools split by.
    func testALineIsOneLineForEveryTool() {
        let nasty = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }.joined() + "\u{7F}\u{85}\u{2028}\u{2029}\\"
        let line = OneLine.problem(path: "a" + nasty + ".jpg", message: "why" + nasty)
        XCTAssertTrue(line.hasSuffix("\n"))
        let body = line.dropLast()
        XCTAssertEqual(body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count, 1)
        XCTAssertFalse(body.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.generalCategory == .lineSeparator || $0.properties.generalCategory == .paragraphSeparator }, String(body))
        XCTAssertTrue(body.hasPrefix("a\\000\\001"), String(body))
    }
}
