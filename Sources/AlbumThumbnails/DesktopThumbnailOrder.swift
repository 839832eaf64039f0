/// The order pcmanfm, Thunar and GNOME Files show a folder in by default: by name, letters
/// without case and runs of digits by their value (GLib's `g_utf8_collate_key_for_filename`, as
/// near as plain code gets without the locale's collation): `base.jpg` before `IMG_2.jpg` before
/// `IMG_10.jpg`.
enum FileManagerOrder {
    static func sorted(_ items: [Int], name: (Int) -> String) -> [(item: Int, name: String)] {
        items.map { ($0, name($0)) }.map { ($0.0, $0.1, key($0.1)) }.sorted { precedes($0.2, $1.2) }.map { ($0.0, $0.1) }
    }

    /// A name as runs: letters lowercased, each run of digits as its number.
    enum Run: Equatable { case text(String), number(UInt64, digits: Int) }

    static func key(_ name: String) -> [Run] {
        var runs: [Run] = []
        var text = "", digits = ""
        func flush() {
            if !text.isEmpty { runs.append(.text(text)); text = "" }
            if !digits.isEmpty { runs.append(.number(UInt64(digits.suffix(19)) ?? 0, digits: digits.count)); digits = "" }
        }
        for c in name.lowercased() {
            if c.isASCII && c.isNumber { if !text.isEmpty { flush() }; digits.append(c) } else { if !digits.isEmpty { flush() }; text.append(c) }
        }
        flush()
        return runs
    }

    static func precedes(_ a: [Run], _ b: [Run]) -> Bool {
        for (x, y) in zip(a, b) where x != y {
            switch (x, y) {
            case (.number(let m, let dm), .number(let n, let dn)): return m != n ? m < n : dm < dn
            case (.number, .text): return true
            case (.text, .number): return false
            case (.text(let s), .text(let t)): return s < t
            }
        }
        return a.count < b.count
    }
}
