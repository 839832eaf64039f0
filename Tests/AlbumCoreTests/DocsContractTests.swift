import Foundation
import XCTest

/// The docs that are a contract (mountpoint-s3's SEMANTICS.md, held by its own test): every row
/// of their tables whose last column is `test` names the tests that check it, and each named test
/// exists (`Class.testMethod`: a `func` of that name in the body of that class or an extension of
/// it, comments and strings not counted). The other way round, what the code answers has its row:
/// every status key the daemon prints, every `-o` word it takes, every errno the filesystem layers
/// name.
final class DocsContractTests: XCTestCase {
    static let contracts = ["docs/errno.md", "docs/status.md", "docs/cli.md", "docs/xattrs.md", "docs/picks.md"]

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEveryDocumentedRowNamesATestThatExists() throws {
        let tests = try Self.testMethods()
        XCTAssertGreaterThan(tests.count, 300, "the test sources were read")
        for contract in Self.contracts {
            let rows = try Self.rows(of: Self.root.appendingPathComponent(contract).path)
            XCTAssertGreaterThan(rows.count, 10, "\(contract) has its table")
            for (line, row) in rows {
                let names = Self.testNames(in: row.last ?? "")
                XCTAssertFalse(names.isEmpty, "\(contract):\(line) names no test: \(row.joined(separator: " | "))")
                for name in names {
                    XCTAssertTrue(tests.contains(name), "\(contract):\(line) names \(name), which is no test")
                }
            }
        }
    }

    /// Every key `.albumfs/status` prints (DaemonStatus's lines) has its row in docs/status.md.
    func testEveryStatusKeyPrintedHasARow() throws {
        let code = try Self.source("Sources/albumfs/DaemonStatus.swift")
        let keys = Self.matches(#"\("([a-z][a-z_]*)", "#, in: code)  // each line is a `(key, value)` pair
        XCTAssertGreaterThan(keys.count, 30, "the status keys were found in the code")
        let documented = Set(try Self.rows(of: Self.root.appendingPathComponent("docs/status.md").path).flatMap { Self.quoted(in: $0.row.first ?? "") })
        for key in keys { XCTAssertTrue(documented.contains(key), "status key \(key) has no row in docs/status.md") }
    }

    /// Every `-o` word the parser takes (its `case` labels and its sets of FUSE words) has its row
    /// in docs/cli.md.
    func testEveryMountOptionHasARow() throws {
        let code = Self.strippingCommentsAndStrings(try Self.source("Sources/albumfs/MountOptions.swift"), keepingStrings: true)
        var words = Set<String>()
        for label in Self.matches(#"case ("[a-z_0-9]+"(?:, "[a-z_0-9]+")*):"#, in: code) {
            words.formUnion(Self.matches(#""([a-z_0-9]+)""#, in: label))
        }
        for set in ["fuseFlags", "fuseValues"] {
            let literal = try XCTUnwrap(Self.matches("static let \(set): Set<String> = \\[([^\\]]*)\\]", in: code).first, set)
            words.formUnion(Self.matches(#""([a-z_0-9]+)""#, in: literal))
        }
        XCTAssertGreaterThan(words.count, 40, "the options were found in the code")
        let rows = try Self.rows(of: Self.root.appendingPathComponent("docs/cli.md").path).map { $0.row.first ?? "" }
        for word in words.sorted() {
            let named = rows.contains { cell in
                cell.range(of: "(^|[^a-z_])\(word)($|[^a-z_])", options: .regularExpression) != nil
            }
            XCTAssertTrue(named, "-o \(word) has no row in docs/cli.md")
        }
    }

    /// Every errno the filesystem layers (AlbumVFS, AlbumFUSE, AlbumThumbnails) name, by its
    /// `Errno` constant or its C name, is in the errno column of docs/errno.md.
    func testEveryErrnoTheFilesystemNamesHasARow() throws {
        let constants = Dictionary(Self.matches(#"static let ([a-zA-Z]+) = Errno\(rawValue: (E[A-Z0-9]+)\)"#, in: try Self.source("Sources/AlbumSystem/Errno.swift"), groups: 2)
            .map { ($0[0], $0[1]) }, uniquingKeysWith: { a, _ in a })
        XCTAssertGreaterThan(constants.count, 10)
        var named = Set<String>()
        for module in ["Sources/AlbumVFS", "Sources/AlbumFUSE", "Sources/AlbumThumbnails"] {
            for file in try Self.swiftFiles(under: module) {
                let code = Self.strippingCommentsAndStrings(try String(contentsOfFile: file, encoding: .utf8))
                named.formUnion(Self.matches(#"Errno\(rawValue: (E[A-Z0-9]+)\)"#, in: code))
                for name in Self.matches(#"(?:Errno)?\.([a-zA-Z]+)\b"#, in: code) { if let c = constants[name] { named.insert(c) } }
            }
        }
        named.subtract(["EINTR"])  // retried where it is met, never answered
        XCTAssertTrue(named.isSuperset(of: ["ENOENT", "EROFS", "EIO", "EDQUOT"]), "the errnos were found in the code: \(named.sorted())")
        let column = try Self.rows(of: Self.root.appendingPathComponent("docs/errno.md").path).map { $0.row.count > 2 ? $0.row[2] : "" }.joined(separator: " ")
        for errno in named.sorted() {
            XCTAssertNotNil(column.range(of: "\\b\(errno)\\b", options: .regularExpression), "\(errno) has no row in docs/errno.md")
        }
    }

    /// The checker itself: a row without a test, a test that is not there, one commented out, and
    /// one declared in another class are all caught.
    func testTheCheckerCatchesARowWithoutATestAndAMissingOne() throws {
        let doc = NSTemporaryDirectory() + "albumfs-contract-\(getpid()).md"
        defer { unlink(doc) }
        try "| a | b | test |\n| --- | --- | --- |\n| x | y | |\n| z | w | `Nope.testNothing` |\n".write(toFile: doc, atomically: true, encoding: .utf8)
        let rows = try Self.rows(of: doc)
        XCTAssertEqual(rows.map { Self.testNames(in: $0.row.last ?? "") }, [[], ["Nope.testNothing"]])
        let source = """
            final class Real: XCTestCase {
                // func testGhost() {}
                /* func testBlock() { } */
                let text = "func testInAString() {"
                func testHere() { if true { } }
                struct Inner { func testNested() {} }
            }
            final class Other: XCTestCase { func testThere() {} }
            extension Real { func testInExtension() {} }
            """
        XCTAssertEqual(Self.methods(in: source), ["Real.testHere", "Other.testThere", "Real.testInExtension"])
        XCTAssertFalse(try Self.testMethods().contains("Nope.testNothing"))
    }

    // MARK: reading the docs

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
        quoted(in: cell).filter { $0.contains(".test") }
    }

    /// What a cell holds in backticks.
    static func quoted(in cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    // MARK: reading the code

    static func source(_ path: String) throws -> String {
        try String(contentsOfFile: root.appendingPathComponent(path).path, encoding: .utf8)
    }

    static func swiftFiles(under folder: String) throws -> [String] {
        let base = root.appendingPathComponent(folder).path
        let files = FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return files.map { base + "/" + $0 }
    }

    /// Every `Class.testMethod` declared under Tests/.
    static func testMethods() throws -> Set<String> {
        Set(try swiftFiles(under: "Tests").flatMap { methods(in: try String(contentsOfFile: $0, encoding: .utf8)) })
    }

    /// The `func test…(` declared directly in the body of a class or an extension, as
    /// `Type.method`, in order; comments and string literals are not code, and a struct's or an
    /// enum's methods are no tests.
    static func methods(in source: String) -> [String] {
        let code = Array(strippingCommentsAndStrings(source).utf8)
        var found: [String] = []
        var depth = 0
        var bodies: [(type: String?, depth: Int)] = []  // each type body open, nil for no test container
        var pending: String??
        var i = 0
        while i < code.count {
            if code[i] == UInt8(ascii: "{") {
                depth += 1
                if let type = pending { bodies.append((type, depth)); pending = nil }
            } else if code[i] == UInt8(ascii: "}") {
                if bodies.last?.depth == depth { bodies.removeLast() }
                depth -= 1
            } else if isWordStart(code, i) {
                let word = wordAt(code, i)
                let next = nextWord(code, after: i + word.utf8.count)
                if ["class", "extension"].contains(word) {
                    pending = .some(next)
                } else if ["struct", "enum", "actor", "protocol"].contains(word) {
                    pending = .some(nil)
                } else if word == "func", let body = bodies.last, body.depth == depth, let type = body.type, let name = next, name.hasPrefix("test") {
                    found.append(type + "." + name)
                }
                i += word.utf8.count
                continue
            }
            i += 1
        }
        return found
    }

    private static func isWordStart(_ code: [UInt8], _ i: Int) -> Bool {
        isWordByte(code[i]) && (i == 0 || !isWordByte(code[i - 1]))
    }

    private static func isWordByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_")
    }

    private static func wordAt(_ code: [UInt8], _ i: Int) -> String {
        var j = i
        while j < code.count, isWordByte(code[j]) { j += 1 }
        return String(decoding: code[i..<j], as: UTF8.self)
    }

    private static func nextWord(_ code: [UInt8], after i: Int) -> String? {
        var j = i
        while j < code.count, code[j] == UInt8(ascii: " ") || code[j] == UInt8(ascii: "\n") || code[j] == UInt8(ascii: "\t") { j += 1 }
        guard j < code.count, isWordByte(code[j]) else { return nil }
        return wordAt(code, j)
    }

    /// `source` with its comments (line, block, nested) and the contents of its string literals
    /// (single- and multi-line) blanked; newlines kept, so lines still count.
    static func strippingCommentsAndStrings(_ source: String, keepingStrings: Bool = false) -> String {
        let s = Array(source.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = 0
        func at(_ k: Int, _ text: String) -> Bool { Array(text.utf8).enumerated().allSatisfy { k + $0.offset < s.count && s[k + $0.offset] == $0.element } }
        while i < s.count {
            if at(i, "//") {
                while i < s.count, s[i] != UInt8(ascii: "\n") { i += 1 }
            } else if at(i, "/*") {
                var nesting = 0
                repeat {
                    if at(i, "/*") { nesting += 1; i += 2 } else if at(i, "*/") { nesting -= 1; i += 2 } else {
                        if s[i] == UInt8(ascii: "\n") { out.append(s[i]) }
                        i += 1
                    }
                } while nesting > 0 && i < s.count
            } else if let hashes = rawStringHashes(s, i) {
                i += hashes
                let quote = at(i, "\"\"\"") ? "\"\"\"" : "\""
                let close = quote + String(repeating: "#", count: hashes)
                out.append(contentsOf: Array(quote.utf8))
                i += quote.utf8.count
                while i < s.count, !at(i, close) {
                    if hashes == 0, s[i] == UInt8(ascii: "\\") { if keepingStrings { out.append(s[i]) }; i += 1 }
                    if i < s.count, keepingStrings || s[i] == UInt8(ascii: "\n") { out.append(s[i]) }
                    i += 1
                }
                out.append(contentsOf: Array(quote.utf8))
                i += close.utf8.count
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// How many `#` open the string literal at `i` (0 for a plain one), or nil when none opens there.
    private static func rawStringHashes(_ s: [UInt8], _ i: Int) -> Int? {
        var j = i
        while j < s.count, s[j] == UInt8(ascii: "#") { j += 1 }
        return j < s.count && s[j] == UInt8(ascii: "\"") ? j - i : nil
    }

    /// The first capture group of every match of `pattern` in `text`.
    static func matches(_ pattern: String, in text: String) -> [String] {
        matches(pattern, in: text, groups: 1).map { $0[0] }
    }

    static func matches(_ pattern: String, in text: String, groups: Int) -> [[String]] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            (1...groups).map { m.range(at: $0).location == NSNotFound ? "" : ns.substring(with: m.range(at: $0)) }
        }
    }
}
