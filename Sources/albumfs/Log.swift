import Glibc

/// Lines on stderr (fd 2: Glibc's `stderr` global is not usable from Swift 6).
enum Log {
    static func line(_ text: String) { write(text + "\n") }

    /// Text as it is, no newline added (progress lines redraw with `\r`).
    static func write(_ text: String) {
        let bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            off += n
        }
    }
}
