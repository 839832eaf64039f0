/// Android motion photos: a JPEG still with its video appended, as Pixel and Samsung phones write them.
public enum SampleMotionPhoto {
    /// How the still says where its video is.
    public enum MotionPhotoLayout: Sendable, CaseIterable {
        /// Google's Motion Photo format 1.0 (Pixel phones since 2021): XMP `GCamera:MotionPhoto`
        /// and a `Container:Directory` whose `MotionPhoto` item gives the video's length.
        case googleContainer
        /// Google's older MicroVideo XMP: `GCamera:MicroVideoOffset`, the video's length.
        case googleMicroVideo
        /// Samsung's trailer: a `MotionPhoto_Data` block holding the video, then its directory
        /// (`SEFH` … `SEFT`) at the very end; no XMP.
        case samsungTrailer
    }

    /// `still` with `video` after its image, marked as `layout` marks it.
    public static func motionPhoto(_ still: [UInt8], video: [UInt8], layout: MotionPhotoLayout = .googleMicroVideo) -> [UInt8] {
        switch layout {
        case .googleContainer:
            return SampleJPEG.insertingAPP1(SampleXMP.xmpAPP1(googleMotionXMP(containerVideoLength: video.count)), into: still) + video
        case .googleMicroVideo:
            return SampleJPEG.insertingAPP1(SampleXMP.xmpAPP1(googleMotionXMP(microVideoOffset: video.count)), into: still) + video
        case .samsungTrailer:
            return still + samsungTrailer(video: video)
        }
    }

    /// The XMP packet of a Google motion photo: the older MicroVideo properties, or the
    /// container directory (a primary item of length 0, the image itself, then the video).
    static func googleMotionXMP(microVideoOffset: Int? = nil, containerVideoLength: Int? = nil) -> String {
        let properties: String
        var body = ""
        if let microVideoOffset {
            properties = "GCamera:MicroVideo=\"1\" GCamera:MicroVideoVersion=\"1\" GCamera:MicroVideoOffset=\"\(microVideoOffset)\" "
                + "GCamera:MicroVideoPresentationTimestampUs=\"200000\""
        } else {
            properties = "GCamera:MotionPhoto=\"1\" GCamera:MotionPhotoVersion=\"1\" GCamera:MotionPhotoPresentationTimestampUs=\"200000\""
            body = """
            <Container:Directory><rdf:Seq>
            <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/></rdf:li>
            <rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="\(containerVideoLength ?? 0)" Item:Padding="0"/></rdf:li>
            </rdf:Seq></Container:Directory>
            """
        }
        return """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" \
        xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/" \
        \(properties)>\(body)</rdf:Description>
        </rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """
    }

    /// Samsung's trailer around `video`: the block (type 0x0A30 little-endian, its name's length,
    /// `MotionPhoto_Data`, the video), then the directory: `SEFH`, version 106, one entry (type,
    /// distance back from `SEFH` to the block, the block's length), the directory's length, `SEFT`.
    public static func samsungTrailer(video: [UInt8]) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        let type: [UInt8] = [0x00, 0x00, 0x30, 0x0A]
        let name = Array("MotionPhoto_Data".utf8)
        let block = type + le32(name.count) + name + video
        let directory = Array("SEFH".utf8) + le32(106) + le32(1) + type + le32(block.count) + le32(block.count)
        return block + directory + le32(directory.count) + Array("SEFT".utf8)
    }
}
