import AlbumCore

extension SampleVideo {
    /// How a Live Photo's still-image-time sample is put at its moment on the movie's timeline.
    public enum StillTimePlacement: Sendable {
        /// An empty edit as long as the moment, before the track's one sample (what an edit list
        /// does for a track that starts late).
        case editList
        /// A sample holding nothing as long as the moment, then the sample.
        case emptySample
    }

    /// `movie` with a Live Photo's still-image-time track added, as an iPhone writes one: a
    /// timed-metadata track (`mebx`, its one key `mdta` `com.apple.quicktime.still-image-time`,
    /// type int8) whose sample holds -1 at `seconds`. The movie box must be the file's last box
    /// (FFmpeg's muxer writes it last); the sample goes in a media data box after it.
    public static func addingStillImageTime(seconds: Double, placement: StillTimePlacement = .editList,
                                            to movie: [UInt8]) throws(EncodeError) -> [UInt8] {
        guard let moov = MovieBoxes.last(of: movie), moov.type == "moov", moov.end == movie.count else {
            throw EncodeError(description: "the movie box is not the file's last box")
        }
        var children = MovieBoxes.children(movie, moov.bodyStart..<moov.end)
        guard let mvhdIndex = children.firstIndex(where: { $0.type == "mvhd" }) else { throw EncodeError(description: "no movie header") }
        var mvhd = children[mvhdIndex].bytes
        let wide = mvhd[8] == 1
        let scale = MovieBoxes.be32(mvhd, wide ? 28 : 20)
        let nextTrackAt = wide ? 116 : 104
        let trackID = MovieBoxes.be32(mvhd, nextTrackAt)
        mvhd.replaceSubrange(nextTrackAt..<(nextTrackAt + 4), with: MovieBoxes.be32(trackID + 1))
        children[mvhdIndex].bytes = mvhd
        let track = StillImageTimeTrack(trackID: trackID, movieScale: scale, seconds: seconds, placement: placement)
        // The sample data's box follows the new movie box: its offset is known before the box is made.
        let newMoovSize = 8 + children.reduce(0) { $0 + $1.bytes.count } + track.trak(chunkOffset: 0).count
        let trak = track.trak(chunkOffset: moov.offset + newMoovSize + 8)
        let moovBytes = MovieBoxes.box("moov", children.flatMap(\.bytes) + trak)
        return Array(movie[..<moov.offset]) + moovBytes + MovieBoxes.box("mdat", track.sampleData)
    }
}

/// The track `addingStillImageTime` writes.
struct StillImageTimeTrack {
    let trackID: Int
    let movieScale: Int
    let seconds: Double
    let placement: SampleVideo.StillTimePlacement
    /// The media's timescale (Apple's for metadata tracks).
    let mediaScale = 600
    /// How long the still's sample lasts, in the media's timescale.
    let sampleDuration = 60

    var momentInMedia: Int { Int((seconds * Double(mediaScale)).rounded()) }
    var momentInMovie: Int { Int((seconds * Double(movieScale)).rounded()) }

    /// The sample: one box whose type is the key's local identifier (1), holding -1.
    var sampleData: [UInt8] { MovieBoxes.be32(9) + MovieBoxes.be32(1) + [0xFF] }

    func trak(chunkOffset: Int) -> [UInt8] {
        let b = MovieBoxes.self
        let fullBox = b.be32(0)
        let movieDuration = momentInMovie + sampleDuration * movieScale / mediaScale
        let identity = [0x1_0000, 0, 0, 0, 0x1_0000, 0, 0, 0, 0x4000_0000].flatMap(b.be32)
        let tkhd = b.box("tkhd", b.be32(1) + b.be32(0) + b.be32(0) + b.be32(trackID) + b.be32(0) + b.be32(movieDuration)
                         + [UInt8](repeating: 0, count: 16) + identity + b.be32(0) + b.be32(0))
        var edits: [UInt8] = []
        if placement == .editList {
            let elst = fullBox + b.be32(2) + b.be32(momentInMovie) + b.be32(-1) + b.be32(0x1_0000)
                + b.be32(sampleDuration * movieScale / mediaScale) + b.be32(0) + b.be32(0x1_0000)
            edits = b.box("edts", b.box("elst", elst))
        }
        let mediaDuration = (placement == .editList ? 0 : momentInMedia) + sampleDuration
        let mdhd = b.box("mdhd", fullBox + b.be32(0) + b.be32(0) + b.be32(mediaScale) + b.be32(mediaDuration) + [0x55, 0xC4, 0, 0])
        let hdlr = b.box("hdlr", fullBox + Array("mhlrmeta".utf8) + [UInt8](repeating: 0, count: 12) + [0])
        let dinf = b.box("dinf", b.box("dref", fullBox + b.be32(1) + b.box("url ", b.be32(1))))
        let minf = b.box("minf", b.box("nmhd", fullBox) + dinf + sampleTable(chunkOffset: chunkOffset))
        return b.box("trak", tkhd + edits + b.box("mdia", mdhd + hdlr + minf))
    }

    /// The sample description (`mebx` declaring the key) and where and when the samples lie.
    func sampleTable(chunkOffset: Int) -> [UInt8] {
        let b = MovieBoxes.self
        let fullBox = b.be32(0)
        let keyd = b.box("keyd", Array("mdta".utf8) + Array(Self.key.utf8))
        let dtyp = b.box("dtyp", b.be32(0) + b.be32(65))  // well-known type 65: signed 8-bit integer
        // The key's box: its type is the key's local identifier, 1.
        let keys = b.box("keys", b.be32(8 + keyd.count + dtyp.count) + b.be32(1) + keyd + dtyp)
        let mebx = b.box("mebx", [0, 0, 0, 0, 0, 0] + [0, 1] + keys)
        let stsd = b.box("stsd", fullBox + b.be32(1) + mebx)
        // With an empty sample first: two samples in the one chunk, the empty one lasting until the moment.
        let empty = placement == .emptySample
        let stts = b.box("stts", fullBox + (empty ? b.be32(2) + b.be32(1) + b.be32(momentInMedia) : b.be32(1))
                         + b.be32(1) + b.be32(sampleDuration))
        let samples = empty ? 2 : 1
        let stsc = b.box("stsc", fullBox + b.be32(1) + b.be32(1) + b.be32(samples) + b.be32(1))
        let stsz = b.box("stsz", fullBox + b.be32(0) + b.be32(samples) + (empty ? b.be32(0) : []) + b.be32(sampleData.count))
        let stco = b.box("stco", fullBox + b.be32(1) + b.be32(chunkOffset))
        return b.box("stbl", stsd + stts + stsc + stsz + stco)
    }

    static let key = "com.apple.quicktime.still-image-time"
}
