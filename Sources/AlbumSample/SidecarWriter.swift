/// Writes the sidecars of sample photos: an XMP sidecar as darktable and Lightroom write one, and
/// Google Takeout's JSON.
///
/// Only for writing fixtures: an outside reader (exiftool) checks what these write, so a bug here
/// cannot hide one in albumfs's readers.
public enum SidecarWriter {
    /// The dates an XMP sidecar may carry, as editors write them (nil ones left out):
    /// `photoshop:DateCreated`, `exif:DateTimeOriginal`, `xmp:CreateDate`.
    public struct Dates: Sendable {
        public var dateCreated: String?
        public var dateTimeOriginal: String?
        public var createDate: String?

        public init(dateCreated: String? = nil, dateTimeOriginal: String? = nil, createDate: String? = nil) {
            (self.dateCreated, self.dateTimeOriginal, self.createDate) = (dateCreated, dateTimeOriginal, createDate)
        }
    }

    /// An XMP sidecar with the properties given (nil ones left out); `keywords` as a `dc:subject`
    /// bag, GPS as XMP's `DDD,MM.mmmmk`.
    public static func xmp(dates: Dates = Dates(), latitude: Double? = nil, longitude: Double? = nil, rating: Int? = nil,
                           keywords: [String] = [], description: String? = nil) -> String {
        let (dateCreated, dateTimeOriginal, createDate) = (dates.dateCreated, dates.dateTimeOriginal, dates.createDate)
        var attributes: [String] = []
        if let dateCreated { attributes.append("photoshop:DateCreated=\"\(escaped(dateCreated))\"") }
        if let dateTimeOriginal { attributes.append("exif:DateTimeOriginal=\"\(escaped(dateTimeOriginal))\"") }
        if let createDate { attributes.append("xmp:CreateDate=\"\(escaped(createDate))\"") }
        if let latitude { attributes.append("exif:GPSLatitude=\"\(coordinate(latitude, "N", "S"))\"") }
        if let longitude { attributes.append("exif:GPSLongitude=\"\(coordinate(longitude, "E", "W"))\"") }
        if let rating { attributes.append("xmp:Rating=\"\(rating)\"") }
        var elements = ""
        if !keywords.isEmpty {
            let items = keywords.map { "      <rdf:li>\(escaped($0))</rdf:li>\n" }.joined()
            elements += "    <dc:subject>\n     <rdf:Bag>\n\(items)     </rdf:Bag>\n    </dc:subject>\n"
        }
        if let description {
            elements += "    <dc:description>\n     <rdf:Alt>\n      <rdf:li xml:lang=\"x-default\">\(escaped(description))</rdf:li>\n"
                + "     </rdf:Alt>\n    </dc:description>\n"
        }
        return """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="albumfs sample">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about=""
                xmlns:xmp="http://ns.adobe.com/xap/1.0/"
                xmlns:exif="http://ns.adobe.com/exif/1.0/"
                xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
                xmlns:dc="http://purl.org/dc/elements/1.1/"
                \(attributes.joined(separator: "\n    "))>
            \(elements)  </rdf:Description>
             </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="w"?>

            """
    }

    /// A Google Takeout sidecar as Takeout writes one (`photoTakenTime.timestamp` a string of
    /// seconds since 1970 UTC; `geoData` zeros when there is no place).
    public static func takeout(title: String, takenTime: Int64, latitude: Double = 0, longitude: Double = 0,
                               favorited: Bool? = nil, description: String = "") -> String {
        let favourite = favorited.map { ",\n  \"favorited\": \($0)" } ?? ""
        return """
            {
              "title": "\(jsonEscaped(title))",
              "description": "\(jsonEscaped(description))",
              "imageViews": "3",
              "creationTime": {"timestamp": "\(takenTime + 86_400)", "formatted": "later"},
              "photoTakenTime": {"timestamp": "\(takenTime)", "formatted": "sample"},
              "geoData": {"latitude": \(latitude), "longitude": \(longitude), "altitude": 0.0, "latitudeSpan": 0.0, "longitudeSpan": 0.0},
              "geoDataExif": {"latitude": \(latitude), "longitude": \(longitude), "altitude": 0.0, "latitudeSpan": 0.0, "longitudeSpan": 0.0},
              "url": "https://photos.google.com/photo/sample"\(favourite),
              "googlePhotosOrigin": {"mobileUpload": {"deviceType": "ANDROID_PHONE"}}
            }

            """
    }

    /// `48.857` as `48,51.42N`: degrees, then minutes with decimals, then the hemisphere.
    static func coordinate(_ value: Double, _ positive: String, _ negative: String) -> String {
        let degrees = Int(abs(value))
        let minutes = (abs(value) - Double(degrees)) * 60
        let hundredths = Int((minutes * 10_000).rounded())
        let fraction = String(hundredths % 10_000)
        let text = "\(hundredths / 10_000)." + String(repeating: "0", count: 4 - fraction.count) + fraction
        return "\(degrees),\(text)\(value < 0 ? negative : positive)"
    }

    static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing("\"", with: "&quot;")
    }

    static func jsonEscaped(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
    }
}
