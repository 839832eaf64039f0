import Foundation
import XCTest

/// No test passes because its setup did not happen: the patterns that let one do so are refused
/// in every test source. A wait whose answer is dropped (`_ = eventually(…)`, `_ = x.wait…(…)`),
/// an outcome thrown away whole (`_ = try? …`), and, inside a `test…` method, a `guard` that
/// leaves quietly (`else { return }`, `else { continue }`) instead of failing. A line that needs
/// one of them says why on the same line, after `// vacuous-ok:`.
final class VacuousTestsTests: XCTestCase {
    static let marker = "// vacuous-ok:"

    /// What each refused pattern is, as a regular expression over one line.
    static let everywhere: [(pattern: String, what: String)] = [
        (#"_\s*=\s*(try\s+)?[A-Za-z_.]*(eventually|[Ww]ait[A-Za-z]*)\s*\("#, "a wait whose answer is dropped"),
        (#"_\s*=\s*try\?\s"#, "an outcome thrown away whole"),
    ]
    static let inTestMethods: [(pattern: String, what: String)] = [
        (#"else\s*\{\s*(return|continue)\s*\}"#, "a guard that leaves a test without failing"),
    ]

    func testNoTestSourceHoldsAVacuousPattern() throws {
        let files = try Self.testSources()
        XCTAssertGreaterThan(files.count, 100, "the test sources were found")
        var methods = 0
        for (path, text) in files where path != "Tests/AlbumCoreTests/VacuousTestsTests.swift" {
            let lines = text.components(separatedBy: "\n")
            let inTest = Self.testMethodLines(lines)
            methods += inTest.filter { $0 }.isEmpty ? 0 : 1
            for (n, line) in lines.enumerated() {
                for problem in Self.problems(in: line, inTestMethod: inTest[n]) {
                    XCTFail("\(path):\(n + 1): \(problem): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        XCTAssertGreaterThan(methods, 100, "test methods were found in the sources")
    }

    /// The check finds each pattern, and lets it pass with a reason only.
    func testTheCheckFindsEachPatternAndHonoursAReason() {
        let refused = ["_ = eventually(10) { done }", "_ = handedIn.waitUntilRead(seconds: 10)",
                       "_ = try? memory.reserving(1) { }", "_ = try waitForExit(p)", "_ = sem.wait(timeout: .now() + 1)"]
        for line in refused {
            XCTAssertEqual(Self.problems(in: line, inTestMethod: false).count, 1, line)
            XCTAssertEqual(Self.problems(in: line + " // vacuous-ok: the state is asserted below", inTestMethod: false), [], line)
            XCTAssertEqual(Self.problems(in: line + " // vacuous-ok:", inTestMethod: false).count, 1, "a marker without a reason: \(line)")
        }
        XCTAssertEqual(Self.problems(in: "guard !files.isEmpty else { continue }", inTestMethod: true).count, 1)
        XCTAssertEqual(Self.problems(in: "guard let x else { return }", inTestMethod: true).count, 1)
        XCTAssertEqual(Self.problems(in: "guard let x else { return }", inTestMethod: false), [], "a helper's early return")
        XCTAssertEqual(Self.problems(in: "guard let x else { return XCTFail(\"no x\") }", inTestMethod: true), [])
        XCTAssertEqual(Self.problems(in: "XCTAssertTrue(eventually(10) { done })", inTestMethod: true), [])
        let lines = ["final class T: XCTestCase {", "    func helper() {", "        guard a else { return }", "    }",
                     "    func testA() {", "        let c = { (x: Int) in", "            guard x > 0 else { return }", "        }",
                     "    }", "    func after() { }", "}"]
        XCTAssertEqual(Self.testMethodLines(lines), [false, false, false, false, true, true, true, true, true, false, false])
    }

    /// The problems one line shows; none when it carries the marker and a reason after it.
    static func problems(in line: String, inTestMethod: Bool) -> [String] {
        if let range = line.range(of: marker), !line[range.upperBound...].trimmingCharacters(in: .whitespaces).isEmpty { return [] }
        let code = line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? line
        let patterns = everywhere + (inTestMethod ? inTestMethods : [])
        return patterns.filter { code.range(of: $0.pattern, options: .regularExpression) != nil }.map(\.what)
    }

    /// For each line, whether it lies in the body of a `func test…` (braces counted outside
    /// strings and comments; the bodies hold no multi-line string with braces in it).
    static func testMethodLines(_ lines: [String]) -> [Bool] {
        var inside: [Bool] = [], depth = 0, bodyDepth: Int?
        for line in lines {
            if bodyDepth == nil, line.range(of: #"^\s*(@\w+\s+)*(override\s+)?func\s+test\w*\s*\("#, options: .regularExpression) != nil {
                bodyDepth = depth
            }
            inside.append(bodyDepth != nil)
            depth += braceBalance(line)
            if let start = bodyDepth, depth <= start, line.contains("}") { bodyDepth = nil }
        }
        return inside
    }

    /// `{` minus `}` on one line, outside string literals and `//` comments.
    static func braceBalance(_ line: String) -> Int {
        var balance = 0, inString = false, previous: Character = " "
        for c in line {
            if inString {
                if c == "\"" && previous != "\\" { inString = false }
            } else if c == "\"" {
                inString = true
            } else if c == "/" && previous == "/" {
                break
            } else if c == "{" {
                balance += 1
            } else if c == "}" {
                balance -= 1
            }
            previous = c
        }
        return balance
    }

    /// Every Swift file under Tests/, by its path from the repository root.
    static func testSources() throws -> [(String, String)] {
        let root = DocsContractTests.root
        let tests = root.appendingPathComponent("Tests").path
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: tests))
        var files: [(String, String)] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            files.append(("Tests/" + relative, try String(contentsOfFile: tests + "/" + relative, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }
}
