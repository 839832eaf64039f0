import AlbumCore
import AlbumSystem
import Glibc

/// Lines on stderr (fd 2: Glibc's `stderr` global is not usable from Swift 6).
enum Log {
    /// One line, whatever `text` holds: a line break in it a space, another control character
    /// (a file name's escape sequence) octal (`OneLine.cleaned`).
    static func line(_ text: String) { write(OneLine.cleaned(text) + "\n") }

    /// Text as it is, no newline added (progress lines redraw with `\r`).
    static func write(_ text: String) {
        // (Nothing to do when stderr cannot take it: there is nowhere else to say so.)
        _ = WholeWrite.write(2, Array(text.utf8))
    }
}
