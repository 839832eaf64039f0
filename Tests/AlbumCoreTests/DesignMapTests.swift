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
