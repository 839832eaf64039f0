import AlbumCore

/// Why a sidecar beside a photo says nothing: the line `.albumfs/errors` shows for it. The photo
/// stays dated by its own evidence.
public enum SidecarFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// Larger than the kind's cap (`XMPSidecar.sizeLimit`, `TakeoutSidecar.sizeLimit`): not read.
    /// (`size` is what was read: the cap and one byte, when read from a file.)
    case tooBig(size: Int, limit: Int)
    /// Not JSON, or JSON too deeply nested.
    case notJSON
    /// JSON, but no Takeout sidecar (no object with `photoTakenTime`, `geoData` or `title`).
    case notTakeout
    /// No XMP packet (`x:xmpmeta` or `rdf:RDF`) in it.
    case notXMP

    public var description: String {
        switch self {
        case .tooBig(_, let limit): "sidecar larger than the \(limit / 1024) KiB cap, not read"
        case .notJSON: "sidecar is not valid JSON, not read"
        case .notTakeout: "JSON sidecar holds no Google Takeout metadata (photoTakenTime, geoData), not read"
        case .notXMP: "XMP sidecar holds no XMP packet, not read"
        }
    }
}

/// Reads a sidecar's bytes as its kind says, within the kind's cap.
public enum SidecarReading {
    public static func evidence(_ bytes: [UInt8], kind: SidecarEvidence.Kind, relativePath: String) -> Result<SidecarEvidence, SidecarFailure> {
        switch kind {
        case .xmp: XMPSidecar.parse(bytes, relativePath: relativePath)
        case .takeout: TakeoutSidecar.parse(bytes, relativePath: relativePath)
        }
    }

    /// The largest sidecar of `kind` read.
    public static func sizeLimit(_ kind: SidecarEvidence.Kind) -> Int {
        switch kind {
        case .xmp: XMPSidecar.sizeLimit
        case .takeout: TakeoutSidecar.sizeLimit
        }
    }
}
