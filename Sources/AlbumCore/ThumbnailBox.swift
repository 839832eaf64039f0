/// A thumbnail size, `WxH`: every thumbnail is exactly this, scaled to cover and centre-cropped.
public struct ThumbnailBox: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let width: Int
    public let height: Int

    /// The largest side accepted: beyond it a "thumbnail" is a second copy of the library.
    public static let maxSide = 2048
    /// At most this many sizes (`thumbnails/WxH/` folders) per mount.
    public static let maxFolders = 8
    public static let `default` = ThumbnailBox(width: 200, height: 200)!

    public init?(width: Int, height: Int) {
        guard (16...Self.maxSide).contains(width), (16...Self.maxSide).contains(height) else { return nil }
        self.width = width
        self.height = height
    }

    /// Parses `200x200`.
    public init?(_ text: String) {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let w = Int(parts[0]), let h = Int(parts[1]) else { return nil }
        self.init(width: w, height: h)
    }

    public var description: String { "\(width)x\(height)" }

    public static func < (a: ThumbnailBox, b: ThumbnailBox) -> Bool { (a.width, a.height) < (b.width, b.height) }
}
