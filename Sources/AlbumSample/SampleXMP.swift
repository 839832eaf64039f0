/// XMP packets for fixtures, as cameras, phones and editors write them.
public enum SampleXMP {
    /// An XMP packet carrying the given properties (`photoshop:DateCreated`, …).
    public static func xmpPacket(_ properties: [(String, String)]) -> String {
        let attrs = properties.filter { $0.0 != "exif:UserComment" }.map { " \($0.0)=\"\($0.1)\"" }.joined()
        let comment = properties.first { $0.0 == "exif:UserComment" }.map {
            "<exif:UserComment><rdf:Alt><rdf:li xml:lang=\"x-default\">\($0.1)</rdf:li></rdf:Alt></exif:UserComment>"
        } ?? ""
        // Google's namespaces only where their properties are: the other packets stay as they are.
        let google = [("GCamera", "http://ns.google.com/photos/1.0/camera/"), ("GPano", "http://ns.google.com/photos/1.0/panorama/")]
            .filter { ns in properties.contains { $0.0.hasPrefix(ns.0 + ":") } }.map { " xmlns:\($0.0)=\"\($0.1)\"" }.joined()
        return """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"\(google)\(attrs)>\(comment)</rdf:Description>
        </rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """
    }

    /// An XMP packet with `xmp:Rating`, as Lightroom, digiKam, darktable and Windows write it.
    public static func ratingXMP(_ rating: String) -> String {
        """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="\(rating)"/>
        </rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """
    }

    /// A JPEG's XMP APP1 payload: Adobe's namespace, then the packet (`SampleJPEG.insertingAPP1`).
    public static func xmpAPP1(_ packet: String) -> [UInt8] {
        Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(packet.utf8)
    }
}
