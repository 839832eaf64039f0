import AlbumSystem

/// The text of `.albumfs/status` and `.albumfs/errors` as opens get it: made anew at each open
/// (it changes as the mount works), cut to `maxBytes`, and shared by every open while it is
/// unchanged, so a thousand opens held by anyone hold one copy, not a thousand.
final class ControlTexts: Sendable {
    /// The most a control file shows: past it, a line says how many lines were left out.
    static let maxBytes = 1 << 20
    // Protects the last text of each file; never held across I/O.
    private let last = Locked<[String: [UInt8]]>([:])

    /// `text`, cut to `maxBytes`, as the bytes shown last for `name` when it is the same.
    /// `rest`: where the lines cut off are found whole.
    func shared(_ name: String, _ text: String, rest: String = defaultRest) -> [UInt8] {
        let bytes = Self.bounded(Array(text.utf8), rest: rest)
        return last.withLock { last in
            if let kept = last[name], kept == bytes { return kept }
            last[name] = bytes
            return bytes
        }
    }

    /// Where the lines of `status` and `errors` cut off are found.
    static let defaultRest = "the daemon's log has each"
    /// Where those of `not-shown` are counted (they are not logged).
    static let notShownRest = "not_shown_by_reason in .albumfs/status counts them all"

    /// `bytes` whole when within `maxBytes`; else its lines that fit, and one saying how many more
    /// there are and where they are (`rest`).
    static func bounded(_ bytes: [UInt8], maxBytes: Int = maxBytes, rest: String = defaultRest) -> [UInt8] {
        guard bytes.count > maxBytes else { return bytes }
        let cut = bytes[..<maxBytes].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let more = bytes[cut...].reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        return Array(bytes[..<cut]) + Array("… and \(more) more lines (\(rest))\n".utf8)
    }
}
