@testable import AlbumCore
import XCTest

final class EntryNamesTests: XCTestCase {
    func testSanitise() {
        XCTAssertEqual(EntryNames.sanitise("a/b"), "a_b")
        XCTAssertEqual(EntryNames.sanitise("a\0b"), "a_b")
        XCTAssertEqual(EntryNames.sanitise("."), "_.")
        XCTAssertEqual(EntryNames.sanitise(".."), "_..")
        XCTAssertEqual(EntryNames.sanitise(""), "_")
        let long = String(repeating: "é", count: 200) + ".jpg"
        let cut = EntryNames.sanitise(long)
        XCTAssertLessThanOrEqual(cut.utf8.count, 255)
        XCTAssertTrue(cut.hasSuffix(".jpg"))
        XCTAssertTrue(cut.hasPrefix("éé"))
    }

    func testCollisionsGetDeterministicSuffixes() {
        let wanted = [("IMG_1.JPG", "b/IMG_1.JPG"), ("IMG_1.JPG", "a/IMG_1.JPG"), ("IMG_2.JPG", "a/IMG_2.JPG")]
        let names = EntryNames.assign(wanted)
        XCTAssertEqual(names[1], "IMG_1.JPG", "the first source path keeps the plain name")
        XCTAssertEqual(names[0], "IMG_1~2cf121.JPG")
        XCTAssertEqual(names[2], "IMG_2.JPG")
        XCTAssertEqual(EntryNames.assign(wanted.reversed()).reversed(), names, "order of discovery does not matter")
        XCTAssertEqual(Set(names).count, 3)
    }

    func testSuffixNeverCollidesWithAnExistingName() {
        let clash = "IMG_1~2cf121.JPG"
        let names = EntryNames.assign([("IMG_1.JPG", "a/IMG_1.JPG"), ("IMG_1.JPG", "b/IMG_1.JPG"), (clash, "c/x")])
        XCTAssertEqual(Set(names).count, 3, "\(names)")
    }

    /// A photo's view name carries its format's extension: kept when right, put in place of
    /// another format's, added to a name with none or an unknown one.
    /// The listing's shortcut: a name ending in its format's extension, in any case, is told
    /// from its bytes; anything else takes the long way, which decides the same.
    func testAnExtensionIsToldFromTheBytesInAnyCase() {
        for (name, format, expected) in [("IMG.JPG", ImageFormat.jpeg, true), ("a.JpEg", .jpeg, true), ("é.jfif", .jpeg, true),
                                         ("x.png", .jpeg, false), (".jpg", .jpeg, false), ("noext", .jpeg, false),
                                         ("a.jpgx", .jpeg, false), ("a.jp", .jpeg, false), ("clip.MOV", .video, true),
                                         ("s.PNG", .png, true), ("h.HEIC", .heif, true), ("h.heic.", .heif, false)] {
            XCTAssertEqual(EntryNames.endsInExtension(of: format, name), expected, name)
            let (_, ext) = EntryNames.split(name)
            XCTAssertEqual(expected, format.extensions.contains(ext.dropFirst().lowercased()), "agrees with the long way: \(name)")
        }
    }

    func testViewNamesCarryTheFormatsExtension() {
        XCTAssertEqual(EntryNames.viewName(of: "IMG_1.JPG", format: .jpeg), "IMG_1.JPG")
        XCTAssertEqual(EntryNames.viewName(of: "a.jfif", format: .jpeg), "a.jfif")
        XCTAssertEqual(EntryNames.viewName(of: "b.avif", format: .heif), "b.avif")
        XCTAssertEqual(EntryNames.viewName(of: "mongolia", format: .jpeg), "mongolia.jpg")
        XCTAssertEqual(EntryNames.viewName(of: "x.jpeg", format: .png), "x.png")
        XCTAssertEqual(EntryNames.viewName(of: "y.PNG", format: .jpeg), "y.jpg")
        XCTAssertEqual(EntryNames.viewName(of: "z.png", format: .heif), "z.heic")
        XCTAssertEqual(EntryNames.viewName(of: "scan.v2", format: .jpeg), "scan.v2.jpg")
        XCTAssertEqual(EntryNames.viewName(of: ".hidden", format: .png), ".hidden.png")
        // A 254-byte name with no extension: the entry stays within 255 bytes, extension kept.
        let long = String(repeating: "n", count: 254)
        let entry = EntryNames.assign([(EntryNames.viewName(of: long, format: .jpeg), "a/" + long)])[0]
        XCTAssertLessThanOrEqual(entry.utf8.count, 255)
        XCTAssertTrue(entry.hasSuffix(".jpg"), entry)
    }

    /// The tag is FNV-1a 64's first hex digits: the published test vectors, and literal tags.
    func testTagIsStable() {
        XCTAssertEqual(EntryNames.tag(for: "", hexDigits: 16), "cbf29ce484222325")
        XCTAssertEqual(EntryNames.tag(for: "a", hexDigits: 16), "af63dc4c8601ec8c")
        XCTAssertEqual(EntryNames.tag(for: "foobar", hexDigits: 16), "85944171f73967e8")
        XCTAssertEqual(EntryNames.tag(for: "Trip/IMG_0001.JPG"), "e008fe")
        XCTAssertEqual(EntryNames.tag(for: "Trip/IMG_0001.JPG"), EntryNames.tag(for: "Trip/IMG_0001.JPG"))
        XCTAssertNotEqual(EntryNames.tag(for: "Trip/IMG_0001.JPG"), EntryNames.tag(for: "Trip/IMG_0002.JPG"))
        XCTAssertEqual(EntryNames.tag(for: "x").count, 6)
    }

    /// `assignAndOrder` finds clashes as neighbours in name order; checked against the plain
    /// map-of-every-name algorithm on random folders full of clashes, with and without an order hint.
    func testAssignMatchesTheMapAlgorithmAndOrdersByName() {
        func reference(_ wanted: [(name: String, sourcePath: String)]) -> [String] {
            var result = wanted.map { EntryNames.sanitise($0.name) }
            var taken: [String: Int] = [:]
            var groups: [String: [Int]] = [:]
            for (i, name) in result.enumerated() {
                if let first = taken[name] { groups[name, default: [first]].append(i) } else { taken[name] = i }
            }
            for (name, members) in groups.sorted(by: { $0.key < $1.key }) {
                let (stem, ext) = EntryNames.split(name)
                for i in members.sorted(by: { wanted[$0].sourcePath < wanted[$1].sourcePath }).dropFirst() {
                    var digits = 6
                    var candidate: String
                    repeat {
                        candidate = EntryNames.bounded(stem, maxBytes: EntryNames.maxBytes - ext.utf8.count - digits - 1) + "~"
                            + EntryNames.tag(for: wanted[i].sourcePath, hexDigits: digits) + ext
                        digits += 2
                    } while taken[candidate] != nil && digits <= 16
                    var n = 2
                    let base = candidate
                    while taken[candidate] != nil {
                        let (s, e) = EntryNames.split(base)
                        candidate = "\(s)-\(n)\(e)"
                        n += 1
                    }
                    taken[candidate] = i
                    result[i] = candidate
                }
            }
            return result
        }
        for round in 0..<50 {
            let stems = ["IMG_1", "IMG_2", "a", "a/b", "Été", "e\u{301}té", "x~" + EntryNames.tag(for: "d3/p0")]
            let wanted = (0..<Int.random(in: 1...60)).map { k -> (name: String, sourcePath: String) in
                (stems.randomElement()! + [".JPG", ".jpg", ".png", ""].randomElement()!, "d\(k % 4)/p\(k)")
            }
            let expected = reference(wanted)
            let hint = round % 2 == 0 ? nil : Array(wanted.indices.shuffled())
            let (names, byName) = EntryNames.assignAndOrder(wanted.map(\.name), nearlyByName: hint) { wanted[$0].sourcePath }
            XCTAssertEqual(names, expected)
            XCTAssertEqual(Set(names).count, names.count, "unique")
            XCTAssertEqual(byName.map { names[$0] }, names.sorted(), "positions in name order")
            XCTAssertEqual(Set(byName), Set(names.indices))
        }
    }
}
