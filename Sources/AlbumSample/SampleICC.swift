import AlbumThumbnails

/// ICC profiles for fixtures.
public enum SampleICC {
    /// A small ICC version 2 display profile (`ColorProfile.display`): Display P3's primaries
    /// (adapted to D50), a 2.2 gamma, `description` as its name. `colourSpace` other than `RGB `
    /// (`CMYK`, `GRAY`) makes a header of that kind for tests, with the same (then meaningless) tags.
    public static func iccProfile(description: String, colourSpace: String = "RGB ") -> [UInt8] {
        var bytes = ColorProfile.display(description: description, white: (0.9642, 1, 0.8249), red: (0.5151, 0.2412, -0.0011),
                                         green: (0.2920, 0.6922, 0.0419), blue: (0.1571, 0.0666, 0.7841), gamma: 0x0233).bytes
        bytes.replaceSubrange(16..<20, with: Array(colourSpace.utf8.prefix(4)))
        return bytes
    }
}
