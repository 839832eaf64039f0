import AlbumCore
import FoundationEssentials

/// Google Takeout's JSON sidecar: `photoTakenTime`, `geoData`, `favorited`, `description`.
///
/// Takeout writes one small object per photo (1–3 KiB): `photoTakenTime.timestamp` is a string of
/// seconds since 1970 UTC, `geoData` is `0.0, 0.0` when the photo has no place.
public enum TakeoutSidecar {
    /// A Takeout sidecar is a few KiB; the cap bounds what a hostile `.json` costs to decode.
    public static let sizeLimit = 64 * 1024

    public static func parse(_ bytes: [UInt8], relativePath: String) -> Result<SidecarEvidence, SidecarFailure> {
        guard bytes.count <= sizeLimit else { return .failure(.tooBig(size: bytes.count, limit: sizeLimit)) }
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(bytes))
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty { return .failure(.notJSON) }
            return .failure(.notTakeout)
        } catch {
            return .failure(.notJSON)
        }
        guard document.photoTakenTime != nil || document.geoData != nil || document.title != nil else { return .failure(.notTakeout) }
        var s = SidecarEvidence(kind: .takeout, relativePath: relativePath)
        s.takenTime = document.photoTakenTime?.seconds
        if let place = [document.geoData, document.geoDataExif].lazy.compactMap({ $0 }).first(where: \.isPlace) {
            s.latitude = place.latitude
            s.longitude = place.longitude
        }
        s.favorited = document.favorited
        s.description = document.description.flatMap { $0.isEmpty ? nil : $0 }
        return .success(s)
    }

    /// The fields read; any other is ignored, and a field of another type than Takeout writes
    /// is taken as absent rather than failing the whole sidecar.
    struct Document: Decodable {
        var title: String?
        var description: String?
        var photoTakenTime: Time?
        var geoData: Place?
        var geoDataExif: Place?
        var favorited: Bool?

        enum CodingKeys: String, CodingKey { case title, description, photoTakenTime, geoData, geoDataExif, favorited }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            title = try? c.decodeIfPresent(String.self, forKey: .title)
            description = try? c.decodeIfPresent(String.self, forKey: .description)
            photoTakenTime = try? c.decodeIfPresent(Time.self, forKey: .photoTakenTime)
            geoData = try? c.decodeIfPresent(Place.self, forKey: .geoData)
            geoDataExif = try? c.decodeIfPresent(Place.self, forKey: .geoDataExif)
            favorited = try? c.decodeIfPresent(Bool.self, forKey: .favorited)
        }
    }

    /// `{"timestamp": "1560000000", "formatted": "…"}`: the string Takeout writes, or a number.
    struct Time: Decodable {
        var seconds: Int64?

        enum CodingKeys: String, CodingKey { case timestamp }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            if let text = try? c.decode(String.self, forKey: .timestamp) {
                seconds = Int64(text)
            } else {
                seconds = try? c.decode(Int64.self, forKey: .timestamp)
            }
        }
    }

    struct Place: Decodable {
        var latitude: Double?
        var longitude: Double?

        /// Takeout writes `0.0, 0.0` for a photo without a place.
        var isPlace: Bool {
            guard let latitude, let longitude, latitude.isFinite, longitude.isFinite,
                  abs(latitude) <= 90, abs(longitude) <= 180 else { return false }
            return latitude != 0 || longitude != 0
        }
    }
}
