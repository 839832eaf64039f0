import AlbumCore

/// Recognises image formats by their first bytes, never by extension.
public enum FormatSniffer {
    /// How many leading bytes `sniff` needs.
    public static let headerLength = 8

    public static func sniff(_ header: some Collection<UInt8>) -> ImageFormat? {
        let b = Array(header.prefix(headerLength))
        if b.count >= 3, b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF { return .jpeg }
        if b.count >= 8, b == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        return nil
    }
}
