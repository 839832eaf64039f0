import AlbumCore

/// Where an Android motion photo keeps its video: a byte range of the JPEG's own file.
///
/// Two layouts exist, and a phone may write both for one video:
/// - Google's (`GoogleMotionPhoto`): XMP in the still names the video's length counted from the
///   end of the file, by `GCamera:MicroVideoOffset` or by a `Container:Directory` item whose
///   semantic is `MotionPhoto`;
/// - Samsung's (`SamsungTrailer`): a trailer after the image whose directory (`SEFH` … `SEFT`,
///   at the very end) places a `MotionPhoto_Data` block holding the video.
/// A range is taken only when the bytes agree: it lies within the file and starts with an ISO
/// base media `ftyp` box. Otherwise the photo is a still without motion, said in `refusal`.
public struct MotionPhoto: Sendable, Equatable {
    /// What marked the video.
    public enum Layout: String, Sendable {
        case samsungTrailer = "samsung MotionPhoto_Data"
        case googleContainer = "xmp Container:Directory"
        case googleMicroVideo = "xmp GCamera:MicroVideoOffset"
    }

    /// The range found, or nil.
    public var video: ByteRange?
    public var layout: Layout?
    /// Why a video that a marker announces was not taken (nil: found, or none announced).
    public var refusal: String?

    /// No video announced.
    public static let absent = MotionPhoto(video: nil, layout: nil, refusal: nil)

    /// Finds the video of a JPEG of `size` bytes, from its XMP packet and, for a Samsung
    /// phone's photo (`make`) whose XMP names none, its trailer (the last bytes, one small read;
    /// no other JPEG pays it).
    public static func locate<E: Error>(xmp: String?, make: String?, size: Int64,
                                        read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> MotionPhoto {
        var refusal: String?
        if let xmp, let claim = GoogleMotionPhoto.claim(xmp: xmp, size: size) {
            switch try validated(claim.range, size: size, read: read) {
            case .success(let range): return MotionPhoto(video: range, layout: claim.layout, refusal: nil)
            case .failure(let why): refusal = "\(claim.layout.rawValue): \(why.text)"
            }
        }
        if isSamsung(make) || refusal != nil, let claim = try SamsungTrailer.claim(size: size, read: read) {
            switch claim {
            case .success(let announced):
                switch try validated(announced, size: size, read: read) {
                case .success(let range): return MotionPhoto(video: range, layout: .samsungTrailer, refusal: nil)
                case .failure(let why): refusal = refusal ?? "\(Layout.samsungTrailer.rawValue): \(why.text)"
                }
            case .failure(let why): refusal = refusal ?? "\(Layout.samsungTrailer.rawValue): \(why.text)"
            }
        }
        return MotionPhoto(video: nil, layout: nil, refusal: refusal)
    }

    /// The problem a still is named with when its video is refused.
    public static func problem(_ refusal: String) -> String { "motion photo without its video (\(refusal))" }

    /// (Compared as bytes in place, ASCII case folded: every JPEG with a maker is asked.)
    static func isSamsung(_ make: String?) -> Bool {
        guard var make, make.utf8.count >= samsung.count else { return false }
        return make.withUTF8 { bytes in
            func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0 }
            var low = 0, high = bytes.count
            while low < high, isBlank(bytes[low]) { low += 1 }
            while high > low, isBlank(bytes[high - 1]) { high -= 1 }
            guard high - low == samsung.count else { return false }
            for i in 0..<samsung.count where bytes[low + i] | 0x20 != samsung[i] { return false }
            return true
        }
    }
    private static let samsung: [UInt8] = Array("samsung".utf8)

    /// Why an announced range is not a video.
    public struct Refusal: Error, Equatable {
        public let text: String
        static let pastEnd = Refusal(text: "video range outside the file")
        static let notISOMedia = Refusal(text: "no ftyp box where the video should start")
        static let tooShort = Refusal(text: "video range too short")
        static let badTrailer = Refusal(text: "damaged trailer directory")
        static let tooFar = Refusal(text: "video over 1 TiB or more than 8 MiB before the file's end")
    }

    /// `range` if it lies within the file and starts with an `ftyp` box (one 8-byte read).
    static func validated<E: Error>(_ range: ByteRange, size: Int64,
                                    read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> Result<ByteRange, Refusal> {
        guard range.offset >= 0, range.length >= 0, range.offset <= size, range.length <= size - range.offset else {
            return .failure(.pastEnd)
        }
        guard range.length >= 16 else { return .failure(.tooShort) }
        guard MotionVideoBits.fits(range, fileSize: size) else { return .failure(.tooFar) }
        let head = try read(range.offset, 8)
        guard head.count == 8, let boxSize = head.be32(0), head.starts(with: Array("ftyp".utf8), at: 4),
              boxSize >= 8, Int64(boxSize) <= range.length else { return .failure(.notISOMedia) }
        return .success(range)
    }
}

/// Google's motion photo XMP (the Camera XMP "Motion Photo format 1.0", and the older
/// MicroVideo properties Pixel phones wrote until 2021).
enum GoogleMotionPhoto {
    /// The range the XMP announces, counted from the end of a file of `size` bytes.
    static func claim(xmp: String, size: Int64) -> (range: ByteRange, layout: MotionPhoto.Layout)? {
        if XMPProperties.value(of: "GCamera:MotionPhoto", in: xmp)?.trimmedValue == "1",
           let length = motionItemLength(xmp) {
            return (lastBytes(length, of: size), .googleContainer)
        }
        if XMPProperties.value(of: "GCamera:MicroVideo", in: xmp)?.trimmedValue == "1",
           let text = XMPProperties.value(of: "GCamera:MicroVideoOffset", in: xmp), let length = Int64(text.trimmedValue) {
            return (lastBytes(length, of: size), .googleMicroVideo)
        }
        return nil
    }

    /// The last `length` bytes of a file of `size`; a length that is negative or longer than the
    /// file gives an offset of -1, which no range check passes (and `size - length` could overflow).
    static func lastBytes(_ length: Int64, of size: Int64) -> ByteRange {
        ByteRange(offset: length >= 0 && length <= size ? size - length : -1, length: length)
    }

    /// The `Item:Length` of the directory's item whose `Item:Semantic` is `MotionPhoto`: each
    /// item is one `Container:Item` element, its properties as attributes.
    static func motionItemLength(_ xmp: String) -> Int64? {
        var rest = xmp[...]
        while let open = rest.utf8.firstRange(of: "<Container:Item".utf8) {
            let item = rest[open.upperBound...]
            let end = item.firstIndex(of: ">") ?? item.endIndex
            let attributes = " " + String(item[..<end])
            rest = item[end...]
            guard XMPProperties.attribute("Item:Semantic", quote: "\"", in: attributes) == "MotionPhoto" else { continue }
            return XMPProperties.attribute("Item:Length", quote: "\"", in: attributes).flatMap { Int64($0.trimmedValue) }
        }
        return nil
    }
}

/// Samsung's trailer ("SEF"): blocks after the image, then a directory `SEFH`, version, count,
/// and per block its type, its distance back from `SEFH` and its length (little-endian), then
/// the directory's length and `SEFT`, the file's last 8 bytes.
enum SamsungTrailer {
    static let videoType: [UInt8] = [0x00, 0x00, 0x30, 0x0A]
    static let videoName = Array("MotionPhoto_Data".utf8)
    /// A directory longer than this is no phone's (a few dozen blocks at most).
    static let directoryLimit = 4096

    /// The range the trailer announces for the video; nil when the file has no trailer.
    static func claim<E: Error>(size: Int64, read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> Result<ByteRange, MotionPhoto.Refusal>? {
        guard size >= 8 else { return nil }
        let tail = try read(size - 8, 8)
        guard tail.count == 8, tail.starts(with: Array("SEFT".utf8), at: 4) else { return nil }
        let length = Int64(le32(tail, 0))
        guard length >= 12, length <= Int64(directoryLimit), length <= size - 8 else { return .failure(.badTrailer) }
        let headAt = size - 8 - length
        let directory = try read(headAt, Int(length))
        guard directory.count == Int(length), directory.starts(with: Array("SEFH".utf8), at: 0) else { return .failure(.badTrailer) }
        let count = le32(directory, 8)
        for k in 0..<min(count, (directory.count - 12) / 12) {
            let at = 12 + 12 * k
            guard directory.starts(with: videoType, at: at) else { continue }
            let back = Int64(le32(directory, at + 4)), blockLength = Int64(le32(directory, at + 8))
            return try video(inBlockAt: headAt - back, length: blockLength, size: size, read: read)
        }
        return nil
    }

    /// The video inside the block at `start`: after its type, its name's length and its name.
    static func video<E: Error>(inBlockAt start: Int64, length: Int64, size: Int64,
                                read: (Int64, Int) throws(E) -> [UInt8]) throws(E) -> Result<ByteRange, MotionPhoto.Refusal> {
        let headerLength = Int64(8 + videoName.count)
        guard start >= 0, start <= size, length >= headerLength else { return .failure(.pastEnd) }
        let header = try read(start, Int(headerLength))
        guard header.starts(with: videoType, at: 0), le32(header, 4) == videoName.count,
              header.starts(with: videoName, at: 8) else { return .failure(.badTrailer) }
        return .success(ByteRange(offset: start + headerLength, length: length - headerLength))
    }

    static func le32(_ bytes: [UInt8], _ at: Int) -> Int {
        guard at >= 0, at + 4 <= bytes.count else { return 0 }
        return Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
    }
}
