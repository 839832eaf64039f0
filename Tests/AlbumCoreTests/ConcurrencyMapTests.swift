import Foundation
import XCTest

/// docs/concurrency.md and docs/glossary.md are held by the code: every file under Sources/ that
/// starts a thread (`Threads.detach`) or makes a queue (`DispatchQueue(label:)`) is named in the
/// map of threads, pools and queues; every term of the glossary is declared in the file it says
/// it lives in; and every other name either page gives is declared somewhere (DesignMapTests'
/// checker).
final class ConcurrencyMapTests: XCTestCase {
    static let root = DocsContractTests.root
    static let map = "docs/concurrency.md"
    static let glossary = "docs/glossary.md"

    /// What starts a thread or makes a queue, in code (comments and strings left out): a
    /// `Threads.detach` call (a bare `detach {` inside `Threads` itself), a labelled queue, a
    /// pool, a pthread of its own.
    static let sitePatterns = [#"\bThreads\.detach\b"#, #"(?<![\w.])detach\s*\{"#, #"\bDispatchQueue\(label:"#, #"\bWorkerPool\(name:"#,
                               #"\bpthread_create\("#]

    /// GCD's mechanisms besides a labelled serial queue (a semaphore, a group, its global pool,
    /// `concurrentPerform`): each file that uses one is named in the map's "Mechanisms" section,
    /// with why.
    static let gcdPatterns = [#"\bDispatchSemaphore\("#, #"\bDispatchGroup\("#, #"\bDispatchQueue\.global\("#, #"\bconcurrentPerform\("#]

    /// Types the pages name that Dispatch declares, not albumfs.
    static let dispatchTypes: Set<String> = ["DispatchQueue", "DispatchSemaphore", "DispatchGroup"]

    func testEveryThreadAndQueueSiteIsNamedOnTheMap() throws {
        let section = try Self.threadsSection(of: Self.text(Self.map))
        let sites = try Self.siteFiles()
        XCTAssertGreaterThan(sites.count, 12, "the sites were found in the code: \(sites)")
        XCTAssertTrue(sites.contains("AlbumLive/FolderWatcher.swift") && sites.contains("AlbumLive/LibraryCoordinator.swift"),
                      "both kinds of site were found: \(sites)")
        for file in Self.unmapped(sites, in: section) {
            XCTFail("\(Self.map): \(file) starts a thread or makes a queue, and the table of threads, pools and queues does not name it")
        }
    }

    /// A semaphore, a group, GCD's global pool or `concurrentPerform` is used only where the map
    /// says why: `Promise`, `Places`, a `WorkerPool` or a serial owner are the house's ways.
    func testEveryUseOfGCDsOtherMechanismsIsNamedOnTheMap() throws {
        let page = try Self.text(Self.map)
        let section = try Self.section("## Mechanisms", of: page)
        let base = Self.root.appendingPathComponent("Sources").path + "/"
        let users = try DocsContractTests.swiftFiles(under: "Sources").filter { path in
            Self.uses(Self.gcdPatterns, in: try String(contentsOfFile: path, encoding: .utf8))
        }.map { String($0.dropFirst(base.count)) }.sorted()
        XCTAssertTrue(users.contains("AlbumSystem/Parallel.swift"), "the uses were found in the code: \(users)")
        for file in users {
            let type = String(file.split(separator: "/").last!.dropLast(".swift".count).prefix { $0 != "+" })
            if !section.contains("`\(type)") {
                XCTFail("\(Self.map): \(file) uses a semaphore, a group, GCD's global pool or concurrentPerform, and the Mechanisms section does not name `\(type)`")
            }
        }
    }

    func testEveryGlossaryTermIsDeclaredWhereItLives() throws {
        let rows = Self.glossaryRows(try Self.text(Self.glossary))
        XCTAssertGreaterThan(rows.count, 25, "the glossary's rows were read")
        XCTAssertTrue(rows.contains { $0.names == ["KnownMoves.minimumBatch"] }, "the glossary's terms were read")
        for row in rows {
            XCTAssertFalse(row.files.isEmpty, "\(Self.glossary): \(row.term) names no file it lives in")
            if let problem = try Self.problem(with: row) { XCTFail("\(Self.glossary): \(problem)") }
        }
    }

    func testEveryNameEitherPageGivesExists() throws {
        let sources = try DesignMapTests.declarations()
        for (page, least) in [(Self.map, 200), (Self.glossary, 60)] {
            let names = Self.names(in: try Self.text(page))
            XCTAssertGreaterThan(names.count, least, "\(page)'s names were read")
            for name in names {
                if let problem = DesignMapTests.problem(with: name, inRowOf: nil, sources: sources) { XCTFail("\(page): \(problem)") }
            }
        }
    }

    /// The checkers themselves: a new site, a term declared elsewhere or gone, a member gone, a
    /// file gone are each caught; what is there passes.
    func testTheCheckersCatchAnUnmappedSiteAndAVanishedName() throws {
        XCTAssertTrue(Self.hasSite("        Threads.detach { [self] in watch() }"))
        XCTAssertTrue(Self.hasSite("    let q = DispatchQueue(label: \"albumfs.new\")"))
        XCTAssertTrue(Self.hasSite("            detach {\n"))
        XCTAssertTrue(Self.hasSite("    private let pool = WorkerPool(name: \"albumfs-new\", width: 2, idleSeconds: 5)"))
        XCTAssertFalse(Self.hasSite("// Threads.detach in a comment\nlet s = \"DispatchQueue(label: x)\"\npthread_detach(thread)"))
        XCTAssertTrue(Self.uses(Self.gcdPatterns, in: "        let done = DispatchSemaphore(value: 0)"))
        XCTAssertTrue(Self.uses(Self.gcdPatterns, in: "DispatchQueue.global().async { go() }"))
        XCTAssertFalse(Self.uses(Self.gcdPatterns, in: "// DispatchSemaphore(value: 0) in a comment\nlet q = DispatchQueue(label: \"a\")"))
        let section = "| inotify | … | `AlbumLive/FolderWatcher.swift` |\n"
        XCTAssertEqual(Self.unmapped(["AlbumLive/FolderWatcher.swift", "AlbumLive/NewPool.swift"], in: section), ["AlbumLive/NewPool.swift"])

        let here = GlossaryRow(term: "`ScanRun`", files: ["AlbumLive/ScanRun.swift"])
        XCTAssertNil(try Self.problem(with: here))
        XCTAssertNil(try Self.problem(with: GlossaryRow(term: "`moveLookup(saving:)`", files: ["AlbumLive/ScanPipeline.swift"])))
        XCTAssertNil(try Self.problem(with: GlossaryRow(term: "`KnownMoves.minimumBatch`", files: ["AlbumMetadata/MoveLookup.swift"])))
        XCTAssertNotNil(try Self.problem(with: GlossaryRow(term: "`NoSuchWalk`", files: ["AlbumLive/ScanPipeline.swift"])), "a type gone")
        XCTAssertNotNil(try Self.problem(with: GlossaryRow(term: "`ScanRun`", files: ["AlbumCore/Photo.swift"])), "declared elsewhere")
        XCTAssertNotNil(try Self.problem(with: GlossaryRow(term: "`Held.nothingHere`", files: ["AlbumMetadata/LibraryScanner+Survey.swift"])),
                        "a member gone")
        XCTAssertNotNil(try Self.problem(with: GlossaryRow(term: "`ScanDelta`", files: ["AlbumMetadata/NoSuchDelta.swift"])), "a file gone")

        let sources = try DesignMapTests.declarations()
        XCTAssertEqual(Self.names(in: "the `SlowWork` and `DispatchQueue.asyncAfter`, `NoSuchPool`"), ["SlowWork", "NoSuchPool"])
        XCTAssertNotNil(DesignMapTests.problem(with: "NoSuchPool", inRowOf: nil, sources: sources))
    }

    // MARK: the map

    /// The files under Sources/ (as `Module/File.swift`) holding a site, sorted.
    static func siteFiles() throws -> [String] {
        let base = root.appendingPathComponent("Sources").path + "/"
        return try DocsContractTests.swiftFiles(under: "Sources").filter { hasSite(try String(contentsOfFile: $0, encoding: .utf8)) }
            .map { String($0.dropFirst(base.count)) }.sorted()
    }

    static func hasSite(_ source: String) -> Bool { uses(sitePatterns, in: source) }

    /// Whether the code of `source` (comments and strings left out) matches one of `patterns`.
    static func uses(_ patterns: [String], in source: String) -> Bool {
        let code = DocsContractTests.strippingCommentsAndStrings(source)
        return patterns.contains { code.range(of: $0, options: .regularExpression) != nil }
    }

    /// The map's table of threads, pools and queues: its section, up to the next one.
    static func threadsSection(of page: String) throws -> String { try section("## Threads, pools and queues", of: page) }

    /// A section of the map from its heading up to the next one.
    static func section(_ heading: String, of page: String) throws -> String {
        let start = try XCTUnwrap(page.range(of: "\n" + heading), "\(map) has its section \(heading)").upperBound
        let end = page.range(of: "\n## ", range: start..<page.endIndex)?.lowerBound ?? page.endIndex
        return String(page[start..<end])
    }

    /// The site files `section` does not name (in backticks, with their module).
    static func unmapped(_ files: [String], in section: String) -> [String] {
        let named = Set(section.split(separator: "\n").flatMap { DocsContractTests.quoted(in: String($0)) })
        return files.filter { !named.contains($0) }
    }

    // MARK: the glossary

    struct GlossaryRow {
        /// The first cell: the term, its code names in backticks.
        var term: String
        /// The last cell's files, as `Module/File.swift`.
        var files: [String]
        var names: [String] { DocsContractTests.quoted(in: term) }
    }

    /// The rows of the glossary's table.
    static func glossaryRows(_ page: String) -> [GlossaryRow] {
        page.split(separator: "\n").map(String.init).filter { $0.hasPrefix("| ") && !$0.hasPrefix("| term ") && !$0.hasPrefix("| ---") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            return GlossaryRow(term: cells.first ?? "", files: DocsContractTests.quoted(in: cells.last ?? ""))
        }
    }

    /// What is wrong with a row, or nil: each file it lives in must be there, and each part of
    /// each code name of its term (`Type`, `Type.member`, `function(label:)`) declared in them.
    static func problem(with row: GlossaryRow) throws -> String? {
        var code = ""
        for file in row.files {
            let path = root.appendingPathComponent("Sources/" + file).path
            guard FileManager.default.fileExists(atPath: path) else { return "\(file) is no file (\(row.term))" }
            code += DocsContractTests.strippingCommentsAndStrings(try String(contentsOfFile: path, encoding: .utf8)) + "\n"
        }
        for name in row.names {
            let bare = name.split(separator: "(").first.map(String.init) ?? name
            for part in bare.split(separator: ".").map(String.init) {
                let keywords = part.first?.isUppercase == true ? "class|struct|enum|protocol|actor|extension|typealias" : "func|var|let|case"
                guard code.range(of: "\\b(?:\(keywords))\\s+\(NSRegularExpression.escapedPattern(for: part))\\b", options: .regularExpression) != nil
                else { return "\(part) (of \(name)) is not declared in \(row.files.joined(separator: ", "))" }
            }
        }
        return nil
    }

    // MARK: both pages

    static func text(_ page: String) throws -> String {
        try String(contentsOfFile: root.appendingPathComponent(page).path, encoding: .utf8)
    }

    /// The names a page gives in backticks, but those Dispatch declares.
    static func names(in page: String) -> [String] {
        page.split(separator: "\n").flatMap { DocsContractTests.quoted(in: String($0)) }.filter { name in
            !dispatchTypes.contains(String(name.prefix { $0 != "." && $0 != "(" }))
        }
    }
}
