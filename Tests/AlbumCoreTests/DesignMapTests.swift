import Foundation
import XCTest

/// docs/design.md's map is held by the code: every file, type and function its data flow, module
/// table and newcomer's map name exists, and a type a module's row names is declared (or
/// extended) in that module.
final class DesignMapTests: XCTestCase {
    static let root = DocsContractTests.root

    func testEveryPathAndTypeTheMapNamesExists() throws {
        let design = try String(contentsOfFile: Self.root.appendingPathComponent("docs/design.md").path, encoding: .utf8)
        let map = String(design[..<(design.range(of: "\n## Decisions")?.lowerBound ?? design.endIndex)])
        let sources = try Self.declarations()
        var checked = 0
        for line in map.split(separator: "\n").map(String.init) {
            let module = Self.moduleOfRow(line, modules: Set(sources.keys))
            for name in DocsContractTests.quoted(in: line) + Self.qualifiedNames(in: line) {
                guard let problem = Self.problem(with: name, inRowOf: module, sources: sources) else {
                    checked += 1
                    continue
                }
                XCTFail("docs/design.md: \(problem)\n  in: \(line.prefix(160))")
            }
        }
        XCTAssertGreaterThan(checked, 80, "the map's names were read")
    }

    /// The checker: a file, a type and a module's type that are not there are each caught.
    func testTheCheckerCatchesWhatIsNotThere() throws {
        let sources = try Self.declarations()
        XCTAssertNil(Self.problem(with: "AlbumCore/CaptureDateRules.swift", inRowOf: nil, sources: sources))
        XCTAssertNotNil(Self.problem(with: "AlbumCore/NoSuchRules.swift", inRowOf: nil, sources: sources))
        XCTAssertNil(Self.problem(with: "LibraryIndex", inRowOf: "AlbumIndex", sources: sources))
        XCTAssertNotNil(Self.problem(with: "PhotoIndex", inRowOf: nil, sources: sources))
        XCTAssertNotNil(Self.problem(with: "LibraryIndex", inRowOf: "AlbumCore", sources: sources), "declared in another module")
        XCTAssertNil(Self.problem(with: "AlbumIndex.LibraryIndex", inRowOf: nil, sources: sources))
        XCTAssertNotNil(Self.problem(with: "AlbumCore.LibraryIndex", inRowOf: nil, sources: sources))
    }

    /// What is wrong with a name the map gives, or nil: a path (`Module/File.swift`, a `*`
    /// pattern) must match a file; a `Module.Type` must be that module's; a `Type` (CamelCase)
    /// or a `Type.member` must be declared, in the row's module when the row is a module's; a
    /// lower-case name must be a function or property somewhere. Options, shell words and
    /// prose in backticks are not names.
    static func problem(with name: String, inRowOf module: String?, sources: [String: Declarations]) -> String? {
        if name.hasSuffix(".swift") {
            // A bare file name is one of any module's (a cell names its module once, first).
            let patterns = name.contains("/") ? [name.hasPrefix("Tests/") ? name : "Sources/" + name]
                : sources.keys.flatMap { ["Sources/\($0)/" + name, "Tests/\($0)/" + name] }
            return patterns.contains(where: matchesAFile) ? nil : "\(name) is no file"
        }
        if name.contains("/") { return nil }  // a folder users see, a command line
        let parts = name.split(separator: ".").map(String.init)
        guard !parts.isEmpty, parts.allSatisfy({ $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !$0.isEmpty }) else { return nil }
        if parts.count == 2, let types = sources[parts[0]] {
            return types.types.contains(parts[1]) || types.members.contains(parts[1]) ? nil : "\(parts[1]) is not in \(parts[0])"
        }
        let head = parts[0]
        guard head.first?.isUppercase == true, head.contains(where: \.isLowercase), !sources.keys.contains(head) else {
            if head.first?.isLowercase == true, parts.count == 1, head.count > 3, head.contains(where: \.isUppercase) {
                return sources.values.contains { $0.members.contains(head) } ? nil : "\(head) is no function or property"
            }
            return nil
        }
        if Self.standardLibrary.contains(head) { return nil }
        if let module, let own = sources[module], !own.types.isEmpty {
            return own.types.contains(head) ? nil : "\(head) is not declared in \(module), whose row names it"
        }
        return sources.values.contains { $0.types.contains(head) } ? nil : "\(head) is no type"
    }

    /// Types the map names that Swift's standard library declares.
    static let standardLibrary: Set<String> = ["Mutex", "Atomic", "Result"]

    /// The module a module-table row is about (its first cell, when that is one module).
    static func moduleOfRow(_ line: String, modules: Set<String>) -> String? {
        guard line.hasPrefix("| `") else { return nil }
        let first = line.split(separator: "|").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let names = DocsContractTests.quoted(in: first)
        return names.count == 1 && modules.contains(names[0]) ? names[0] : nil
    }

    /// `Module.Type` names written without backticks in the data-flow picture.
    static func qualifiedNames(in line: String) -> [String] {
        guard !line.hasPrefix("|") else { return [] }
        return DocsContractTests.matches(#"\b(Album[A-Za-z]+\.[A-Z][A-Za-z]+)\b"#, in: line)
    }

    struct Declarations {
        var types = Set<String>()
        var members = Set<String>()
    }

    /// Per Swift module under Sources/, the types it declares or extends and the functions and
    /// properties it declares.
    static func declarations() throws -> [String: Declarations] {
        var out: [String: Declarations] = [:]
        for folder in ["Sources", "Tests"] {
            let base = root.appendingPathComponent(folder).path
            for module in try FileManager.default.contentsOfDirectory(atPath: base) {
                out[module] = try declarations(in: folder + "/" + module)
            }
        }
        return out
    }

    static func declarations(in folder: String) throws -> Declarations {
        var d = Declarations()
        for file in try DocsContractTests.swiftFiles(under: folder) {
            let code = DocsContractTests.strippingCommentsAndStrings(try String(contentsOfFile: file, encoding: .utf8))
            d.types.formUnion(DocsContractTests.matches(#"\b(?:class|struct|enum|protocol|actor|extension|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)"#, in: code))
            d.members.formUnion(DocsContractTests.matches(#"\b(?:func|var|let|case)\s+([A-Za-z_][A-Za-z0-9_]*)"#, in: code))
        }
        return d
    }

    /// Whether a path under the repository, `*` standing for any characters, names a file.
    static func matchesAFile(_ pattern: String) -> Bool {
        let folder = (pattern as NSString).deletingLastPathComponent
        let last = (pattern as NSString).lastPathComponent
        if pattern.hasSuffix("/") { return FileManager.default.fileExists(atPath: root.appendingPathComponent(pattern).path) }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path) else { return false }
        let regex = "^" + NSRegularExpression.escapedPattern(for: last).replacingOccurrences(of: "\\*", with: ".*") + "$"
        return names.contains { $0.range(of: regex, options: .regularExpression) != nil }
    }
}

/// docs/design.md's decisions in go-fuse's form: each a few lines that link to the section of a
/// topic page holding its reasoning, and every such link lands on a heading of that page.
extension DesignMapTests {
    func testEachDecisionIsShortAndLinksToASectionThatExists() throws {
        let design = try DocsContractTests.source("docs/design.md")
        let decisions = Self.decisions(in: design)
        XCTAssertGreaterThan(decisions.count, 30, "the decisions were read")
        for decision in decisions {
            let title = decision.first.map { String($0.prefix(90)) } ?? ""
            XCTAssertLessThanOrEqual(decision.count, Self.decisionLines, "a decision longer than \(Self.decisionLines) lines: \(title)")
            let links = Self.links(in: decision.joined(separator: " "))
            XCTAssertFalse(links.isEmpty, "a decision that links to no topic page: \(title)")
            for link in links {
                if let problem = try Self.problem(withLink: link) { XCTFail("docs/design.md: \(problem)\n  in: \(title)") }
            }
        }
    }

    /// The checker: a decision's lines are counted to the next one, a page or a heading that is
    /// not there is caught, and headings become GitHub's anchors.
    func testTheDecisionCheckerCatchesALongDecisionAndABrokenLink() throws {
        let text = "# x\n\n## Decisions\n\n### Group\n\n- **One** a\n  b\n- **Two** a\n  b\n  c\n  d\n  e\n\n## Known limits\n\n- **Not one** a\n"
        XCTAssertEqual(Self.decisions(in: text).map(\.count), [2, 5])
        XCTAssertEqual(Self.links(in: "see [x](scanning.md#the-walk) and [y](https://e.org/a.md#b)").map { "\($0.page)#\($0.anchor)" }, ["scanning.md#the-walk"])
        XCTAssertEqual(Self.anchor(of: "No request waits on another's I/O"), "no-request-waits-on-anothers-io")
        XCTAssertEqual(Self.anchor(of: "`statfs`"), "statfs")
        XCTAssertEqual(Self.anchor(of: "HEIF: container walked here, pixels by libheif"), "heif-container-walked-here-pixels-by-libheif")
        XCTAssertNil(try Self.problem(withLink: ("security.md", "names-are-bytes")))
        XCTAssertNotNil(try Self.problem(withLink: ("security.md", "no-such-section")))
        XCTAssertNotNil(try Self.problem(withLink: ("no-such-page.md", "names-are-bytes")))
    }

    /// go-fuse's Decisions: a bold title and what was decided, with its reason, in one breath.
    static let decisionLines = 4

    /// The lines of each `- **Title**` item of the `## Decisions` section, to the next item.
    static func decisions(in design: String) -> [[String]] {
        var out: [[String]] = []
        var inDecisions = false
        for line in design.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("## ") { inDecisions = line == "## Decisions" }
            guard inDecisions else { continue }
            if line.hasPrefix("- **") {
                out.append([line])
            } else if line.hasPrefix("  "), !line.trimmingCharacters(in: .whitespaces).isEmpty, !out.isEmpty {
                out[out.count - 1].append(line)
            }
        }
        return out
    }

    /// The `[text](page.md#anchor)` links to pages beside docs/design.md.
    static func links(in text: String) -> [(page: String, anchor: String)] {
        DocsContractTests.matches(#"\]\(([a-z0-9-]+\.md)#([^)\s]+)\)"#, in: text, groups: 2).map { ($0[0], $0[1]) }
    }

    /// What is wrong with a link, or nil: its page must be in docs/ and hold a heading whose
    /// anchor is the link's.
    static func problem(withLink link: (page: String, anchor: String)) throws -> String? {
        let path = root.appendingPathComponent("docs/" + link.page).path
        guard FileManager.default.fileExists(atPath: path) else { return "docs/\(link.page) is no page" }
        let headings = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("#") }.map { String($0.drop { $0 == "#" }).trimmingCharacters(in: .whitespaces) }
        return headings.map(anchor(of:)).contains(link.anchor) ? nil : "docs/\(link.page) has no heading #\(link.anchor)"
    }

    /// A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens.
    static func anchor(of heading: String) -> String {
        String(heading.lowercased().filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" })
            .replacingOccurrences(of: " ", with: "-")
    }
}
