/// Text from outside made into one line: a line of `.albumfs/errors` (`path: why`), a line of the
/// daemon's log.
///
/// Both hold what comes from outside: Linux allows any byte but `/` and NUL in a name, and a
/// message may quote a damaged file (a PNG text chunk's keyword, a box type) or a C library's
/// text. A line must stay one line for `wc -l`, `grep` and Python's `splitlines()` (which also
/// breaks at `\v`, `\f`, `\x1c`…`\x1e`, U+0085, U+2028 and U+2029), and `cat` or a terminal
/// running the daemon in the foreground must not be handed the escape sequences a crafted file
/// name could carry.
public enum OneLine {
    /// A line of `.albumfs/errors`, newline included.
    public static func problem(path: String, message: String) -> String {
        "\(escapedPath(path)): \(cleaned(message))\n"
    }

    /// The path as `ls -b` writes it: `\\` for a backslash, `\n`, `\t` and the other C escapes,
    /// and `\ooo` (octal, per byte) for any other control character, so it reads back exactly.
    public static func escapedPath(_ path: String) -> String {
        guard needsWork(path, backslash: true) else { return path }
        var out = ""
        for scalar in path.unicodeScalars {
            if scalar == "\\" {
                out += "\\\\"
            } else if let letter = cEscapes[scalar.value] {
                out += "\\" + letter
            } else if isControl(scalar) {
                out += octal(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The message on one line: each run of line breaks inside it a space, at its ends nothing
    /// (a C library's message may end in one, or hold several), any other control character
    /// `\ooo`.
    public static func cleaned(_ message: String) -> String {
        guard needsWork(message, backslash: false) else { return message }
        var out = "", breakPending = false
        for scalar in message.unicodeScalars {
            if isLineBreak(scalar) {
                breakPending = !out.isEmpty
                continue
            }
            if breakPending { out += " " }
            breakPending = false
            if isControl(scalar) { out += octal(scalar) } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    private static let cEscapes: [UInt32: String] = [0x07: "a", 0x08: "b", 0x09: "t", 0x0A: "n", 0x0B: "v", 0x0C: "f", 0x0D: "r"]

    /// Whether any byte could need escaping (one pass over UTF-8; the usual line has none):
    /// ASCII controls and DEL, a backslash, and the lead bytes of U+0080…U+009F (0xC2) and of
    /// U+2028/U+2029 (0xE2).
    private static func needsWork(_ s: String, backslash: Bool) -> Bool {
        s.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 || (backslash && $0 == 0x5C) }
    }

    private static func isLineBreak(_ s: Unicode.Scalar) -> Bool {
        (0x0A...0x0D).contains(s.value) || s.value == 0x85 || s.value == 0x2028 || s.value == 0x2029
    }

    /// C0, DEL and C1 controls, and the two Unicode line and paragraph separators.
    private static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029
    }

    private static func octal(_ s: Unicode.Scalar) -> String {
        String(s).utf8.map { "\\" + $0.zeroPadded(3, radix: 8) }.joined()
    }
}
