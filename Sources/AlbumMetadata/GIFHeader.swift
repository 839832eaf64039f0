/// The parts of a GIF that albumfs reads: its size, from the logical screen descriptor.
///
/// A GIF carries no date (no EXIF; XMP in an application extension is rare and not read): one is
/// dated by its file name, else its mtime. Its first image is its thumbnail.
public struct GIFHeader {
    public var width: Int?
    public var height: Int?
    public var truncated = false
    public var exif: [UInt8]? { nil }

    /// `GIF87a` or `GIF89a`, then the logical screen's width and height (little-endian 16-bit).
    public static let signatureLength = 6
    public static func isGIF(_ b: some Collection<UInt8>) -> Bool {
        let head = Array(b.prefix(signatureLength))
        return head.elementsEqual("GIF87a".utf8) || head.elementsEqual("GIF89a".utf8)
    }

    public init(read: (Int64, Int) throws -> [UInt8]) rethrows {
        let head = try read(0, 13)
        guard head.count == 13 else { truncated = true; return }
        width = Int(head[6]) | Int(head[7]) << 8
        height = Int(head[8]) | Int(head[9]) << 8
    }
}
