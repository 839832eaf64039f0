/// How much metadata one file may bring into memory while its header is read.
///
/// Real metadata is kilobytes (an iPhone's EXIF ~3 KiB, its XMP ~2 KiB; a JPEG's APP1 is at most
/// 64 KiB by its format); a hostile file can declare or inflate to gigabytes, and the scan reads
/// many files at once on every core. An EXIF or XMP block over the cap is read as far as the cap
/// (IFDs come first, an embedded thumbnail last), other parts over it are skipped; either is
/// named among the file's problems (`.albumfs/errors`) when something the rules use was left
/// unread. Decompression stops at the cap, not after it.
public enum MetadataLimits {
    /// Bytes of metadata kept per file: PNG text and `eXIf`, a HEIF file's EXIF and XMP items.
    public static let perFile = 256 << 10

    /// The problem a file is named with for a part skipped at the cap.
    static func overCapProblem(_ part: String) -> String { "metadata over the \(perFile >> 10) KiB cap skipped (\(part))" }

    /// The problem a file is named with for a part read only as far as the cap, when the rest
    /// held something the rules use (`unread`: what, as far as the part tells).
    static func cutProblem(_ part: String, unread: [String]) -> String {
        "metadata over the \(perFile >> 10) KiB cap read only as far as the cap (\(part)"
            + (unread.isEmpty ? ")" : ": \(unread.joined(separator: ", ")) unread)")
    }
}
