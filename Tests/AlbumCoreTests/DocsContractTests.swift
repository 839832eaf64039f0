import Foundation
import XCTest

/// The docs that are a contract (mountpoint-s3's SEMANTICS.md, held by its own test): every row
/// of their tables whose last column is `test` names the tests that check it, and each named test
/// exists (`Class.testMethod`, a `func` of that name in a file that declares that class).
final class DocsContractTests: XCTestCase {
    static let contracts = ["docs/errno.md", "docs/status.md", "docs/cli.md", "docs/xattrs.md", "docs/picks.md"]

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEveryDocumentedRowNamesATestThatExists() throws {
        let sources = try Self.testSources()
        for contract in Self.contracts {
            let rows = try Self.rows(of: Self.root.appendingPathComponent(contract).path)
            XCTAssertGreaterThan(rows.count, 10, "\(contract) has its table")
            for (line, row) in rows {
                let names = Self.testNames(in: row.last ?? "")
                XCTAssertFalse(names.isEmpty, "\(contract):\(line) names no test: \(row.joined(separator: " | "))")
                for name in names {
                    let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
                    let found = parts.count == 2 && sources.contains { $0.contains("class \(parts[0]):") && $0.contains("func \(parts[1])(") }
                    XCTAssertTrue(found, "\(contract):\(line) names \(name), which is no test")
                }
            }
        }
    }

    /// The checker itself: a row without a test, and a test that is not there, are caught.
    func testTheCheckerCatchesARowWithoutATestAndAMissingOne() throws {
        let doc = NSTemporaryDirectory() + "albumfs-contract-\(getpid()).md"
        defer { unlink(doc) }
        try "| a | b | test |\n| --- | --- | --- |\n| x | y | |\n| z | w | `Nope.testNothing` |\n".write(toFile: doc, atomically: true, encoding: .utf8)
        let rows = try Self.rows(of: doc)
        XCTAssertEqual(rows.map { Self.testNames(in: $0.row.last ?? "") }, [[], ["Nope.testNothing"]])
        XCTAssertFalse(try Self.testSources().contains { $0.contains("class " + "Nope:") })
    }

    /// The body rows of every table whose header's last cell is `test`, with their line numbers.
    static func rows(of path: String) throws -> [(line: Int, row: [String])] {
        var out: [(line: Int, row: [String])] = []
        var inContract = false
        for (i, line) in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard line.hasPrefix("|") else { inContract = false; continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.allSatisfy({ $0.allSatisfy { $0 == "-" } && !$0.isEmpty }) { continue }
            if !inContract {
                inContract = cells.last == "test"
                if inContract { continue }
            }
            if inContract { out.append((i + 1, cells)) }
        }
        return out
    }

    /// The `Class.testMethod` names in a cell, each in backticks.
    static func testNames(in cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            .filter { $0.contains(".test") }
    }

    /// The text of every Swift file under Tests/.
    static func testSources() throws -> [String] {
        let tests = root.appendingPathComponent("Tests").path
        let files = FileManager.default.enumerator(atPath: tests)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return try files.map { try String(contentsOfFile: tests + "/" + $0, encoding: .utf8) }
    }
}
