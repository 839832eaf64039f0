import AlbumCore
import AlbumThumbnails
import CFFmpeg
import Glibc

/// Video encoding for fixtures (FFmpeg's libraries: x264, x265, AAC), as phones write their
/// clips, and the boxes they add: QuickTime Keys metadata, XMP, a Live Photo's still-image time.
public enum SampleVideo {
    /// How a sample video is written: QuickTime as iPhones write it, or MP4 as Android phones do.
    public enum VideoContainer: String, Sendable {
        case mov, mp4
    }

    /// The codec a sample video is encoded in: H.264 (x264), or HEVC (x265) as iPhones record
    /// by default. A missing encoder is an error, never another codec in its place.
    public enum VideoCodec: String, Sendable {
        case h264 = "libx264", hevc = "libx265"

        var encoder: UnsafePointer<AVCodec>? { avcodec_find_encoder_by_name(rawValue) }
    }

    /// A short video of `image` (`frames` frames at 10 a second, one keyframe first), encoded with
    /// FFmpeg's libraries in `codec` (H.264 by default).
    /// `metadata` goes into the movie: `creation_time` (ISO 8601) becomes the movie header's
    /// time, and every other key (`com.apple.quicktime.creationdate`,
    /// `com.apple.quicktime.content.identifier`) QuickTime Keys metadata, as iPhones write it.
    /// `rotation` (clockwise degrees) goes into the track's matrix: `image` is then the stored
    /// frame, shown turned.
    public static func video(_ image: SampleImage, container: VideoContainer = .mov, frames: Int = 5,
                             metadata: [(String, String)] = [], rotation: Int = 0, codec: VideoCodec = .h264) throws(EncodeError) -> [UInt8] {
        try video(of: Array(repeating: image, count: frames), container: container, metadata: metadata, rotation: rotation, codec: codec)
    }

    /// The frames of a Live Photo's motion part: `opening` for its first `stillFrame` frames (the
    /// keyframe among them), then `still` from the moment the still was taken, `count` in all.
    public struct LivePhotoFrames: Sendable {
        public var opening: SampleImage
        public var still: SampleImage
        public var stillFrame: Int
        public var count: Int

        public init(opening: SampleImage, still: SampleImage, stillFrame: Int, count: Int = 5) {
            (self.opening, self.still, self.stillFrame, self.count) = (opening, still, stillFrame, count)
        }

        var images: [SampleImage] { Array(repeating: opening, count: stillFrame) + Array(repeating: still, count: count - stillFrame) }
    }

    /// A Live Photo's motion part as an iPhone writes it: `frames`, with the moment of its still
    /// named by its still-image-time track (`addingStillImageTime`).
    public static func livePhotoMotion(_ frames: LivePhotoFrames, metadata: [(String, String)], placement: StillTimePlacement = .editList,
                                       codec: VideoCodec = .h264) throws(EncodeError) -> [UInt8] {
        let images = frames.images
        let stillFrame = frames.stillFrame
        let movie = try video(of: images, container: .mov, metadata: metadata, rotation: 0, codec: codec)
        return try addingStillImageTime(seconds: Double(stillFrame) / 10, placement: placement, to: movie)
    }

    /// The frames `images` at 10 a second, one keyframe first (no other: x264's scene cuts off).
    public static func video(of images: [SampleImage], container: VideoContainer, metadata: [(String, String)],
                      rotation: Int, codec videoCodec: VideoCodec = .h264) throws(EncodeError) -> [UInt8] {
        let image = images[0]
        if let failure = FFmpegLibrary.setupFailure { throw EncodeError(description: "FFmpeg: " + failure) }
        guard let codec = videoCodec.encoder else {
            throw EncodeError(description: "FFmpeg has no \(videoCodec.rawValue) encoder (Debian's libavcodec59 has it)")
        }
        let muxer = try Muxer(container.rawValue, metadata: metadata)
        var encoder = try CodecContext(codec) { c in
            c.pointee.width = Int32(image.width)
            c.pointee.height = Int32(image.height)
            c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            c.pointee.time_base = AVRational(num: 1, den: 10)
            c.pointee.framerate = AVRational(num: 10, den: 1)
            c.pointee.gop_size = Int32(images.count)
            c.pointee.max_b_frames = 0
            c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
            _ = av_opt_set(c.pointee.priv_data, "preset", "ultrafast", 0)
            _ = av_opt_set(c.pointee.priv_data, "x264-params", "scenecut=0", 0)
            _ = av_opt_set(c.pointee.priv_data, "x265-params", "scenecut=0:log-level=error", 0)
        }
        let stream = try muxer.add(encoder)
        if rotation != 0, let matrix = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 36) {
            matrix.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_set($0, Double(rotation)) }
        }
        try muxer.start()
        for (index, frame) in images.enumerated() {
            try encoder.send(try Self.yuvFrame(frame, pts: Int64(index)), to: muxer, stream: stream)
        }
        try encoder.send(nil, to: muxer, stream: stream)
        return try muxer.finish()
    }

    /// One track of `clip(tracks:)`: AAC silence, or 5 frames of an image in H.264.
    public enum Track: Sendable {
        case sound
        case video(SampleImage)
    }

    /// A clip with `tracks` in this order (a phone's `.3gp` with its sound first; a file with
    /// two video tracks), every track enabled.
    public static func clip(tracks: [Track], container: String = "3gp") throws(EncodeError) -> [UInt8] {
        if let failure = FFmpegLibrary.setupFailure { throw EncodeError(description: "FFmpeg: " + failure) }
        guard let aac = avcodec_find_encoder(AV_CODEC_ID_AAC) else { throw EncodeError(description: "FFmpeg has no AAC encoder") }
        guard let h264 = VideoCodec.h264.encoder else {
            throw EncodeError(description: "FFmpeg has no libx264 encoder (Debian's libavcodec59 has it)")
        }
        let muxer = try Muxer(container, metadata: [])
        var encoders: [(CodecContext, UnsafeMutablePointer<AVStream>, Track)] = []
        for track in tracks {
            let encoder: CodecContext
            switch track {
            case .sound:
                encoder = try CodecContext(aac) { c in
                    c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
                    c.pointee.sample_rate = 44_100
                    av_channel_layout_default(&c.pointee.ch_layout, 1)
                    c.pointee.time_base = AVRational(num: 1, den: 44_100)
                    c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
                }
            case .video(let image):
                encoder = try CodecContext(h264) { c in
                    c.pointee.width = Int32(image.width)
                    c.pointee.height = Int32(image.height)
                    c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
                    c.pointee.time_base = AVRational(num: 1, den: 10)
                    c.pointee.framerate = AVRational(num: 10, den: 1)
                    c.pointee.gop_size = 5
                    c.pointee.max_b_frames = 0
                    c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
                    _ = av_opt_set(c.pointee.priv_data, "preset", "ultrafast", 0)
                }
            }
            let stream = try muxer.add(encoder)
            // Every track enabled, as some editors write them (FFmpeg's muxer enables the first
            // of each kind alone): a reader's choice of track is then its own.
            stream.pointee.disposition = AV_DISPOSITION_DEFAULT
            encoders.append((encoder, stream, track))
        }
        try muxer.start()
        for (var encoder, stream, track) in encoders {
            switch track {
            case .sound:
                try Self.sendSilence(&encoder, to: muxer, stream: stream)
            case .video(let image):
                for index in 0..<5 { try encoder.send(try Self.yuvFrame(image, pts: Int64(index)), to: muxer, stream: stream) }
            }
            try encoder.send(nil, to: muxer, stream: stream)
        }
        return try muxer.finish()
    }

    public static func soundOnly() throws(EncodeError) -> [UInt8] {
        if let failure = FFmpegLibrary.setupFailure { throw EncodeError(description: "FFmpeg: " + failure) }
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC) else { throw EncodeError(description: "FFmpeg has no AAC encoder") }
        let muxer = try Muxer("ipod", metadata: [])
        var encoder = try CodecContext(codec) { c in
            c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            c.pointee.sample_rate = 44_100
            av_channel_layout_default(&c.pointee.ch_layout, 1)
            c.pointee.time_base = AVRational(num: 1, den: 44_100)
            c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        let stream = try muxer.add(encoder)
        try muxer.start()
        try Self.sendSilence(&encoder, to: muxer, stream: stream)
        try encoder.send(nil, to: muxer, stream: stream)
        return try muxer.finish()
    }

    /// Four frames of mono silence at 44.1 kHz (a tenth of a second) through an AAC `encoder`.
    private static func sendSilence(_ encoder: inout CodecContext, to muxer: Muxer, stream: UnsafeMutablePointer<AVStream>) throws(EncodeError) {
        for index in 0..<4 {
            guard let frame = av_frame_alloc() else { throw EncodeError(description: "out of memory") }
            frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
            frame.pointee.nb_samples = encoder.context.pointee.frame_size
            frame.pointee.sample_rate = 44_100
            av_channel_layout_default(&frame.pointee.ch_layout, 1)
            frame.pointee.pts = Int64(index) * Int64(encoder.context.pointee.frame_size)
            try check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer")
            if let samples = frame.pointee.data.0 { memset(samples, 0, Int(frame.pointee.linesize.0)) }
            try encoder.send(frame, to: muxer, stream: stream)
        }
    }

    /// `movie` with every `stco` entry moved `delta` bytes on (as a file whose media data was
    /// cut off after its movie box was written for it).
    public static func movingChunks(of movie: [UInt8], by delta: UInt32) -> [UInt8] {
        var bytes = movie
        guard let at = (4..<(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual("stco".utf8) }) else { return bytes }
        func be32(_ i: Int) -> UInt32 { bytes[i..<(i + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
        let count = Int(be32(at + 8))
        for k in 0..<count {
            let i = at + 12 + 4 * k
            let moved = be32(i) &+ delta
            for b in 0..<4 { bytes[i + b] = UInt8(truncatingIfNeeded: moved >> (24 - 8 * b)) }
        }
        return bytes
    }

    /// A top-level XMP box (`uuid` with XMP's identifier) appended to an ISO media file: where
    /// MP4 writers (Adobe's, exiftool) keep XMP.
    public static func appendingXMP(_ properties: [(String, String)], to file: [UInt8]) -> [UInt8] {
        let packet = Array(SampleXMP.xmpPacket(properties).utf8)
        let uuid: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]
        let size = 8 + uuid.count + packet.count
        return file + [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + Array("uuid".utf8) + uuid + packet
    }

    /// One RGB image as a YUV 4:2:0 frame (BT.601, limited range: what encoders assume untold).
    static func yuvFrame(_ image: SampleImage, pts: Int64) throws(EncodeError) -> UnsafeMutablePointer<AVFrame> {
        guard let frame = av_frame_alloc() else { throw EncodeError(description: "out of memory") }
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(image.width)
        frame.pointee.height = Int32(image.height)
        frame.pointee.pts = pts
        try check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer")
        guard let scaler = sws_getContext(Int32(image.width), Int32(image.height), AV_PIX_FMT_RGB24, Int32(image.width),
                                          Int32(image.height), AV_PIX_FMT_YUV420P, SWS_BICUBIC, nil, nil, nil) else {
            throw EncodeError(description: "sws_getContext failed")
        }
        defer { sws_freeContext(scaler) }
        var planes = frame.pointee.data
        var strides = frame.pointee.linesize
        let rows = image.pixels.withUnsafeBufferPointer { rgb in
            withUnsafePointer(to: &planes) { planes in
                withUnsafePointer(to: &strides) { strides in
                    planes.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: Int(AV_NUM_DATA_POINTERS)) { dst in
                        strides.withMemoryRebound(to: Int32.self, capacity: Int(AV_NUM_DATA_POINTERS)) { dstStride in
                            var src: UnsafePointer<UInt8>? = rgb.baseAddress
                            var srcStride = Int32(image.width * 3)
                            return sws_scale(scaler, &src, &srcStride, 0, Int32(image.height), dst, dstStride)
                        }
                    }
                }
            }
        }
        guard rows == Int32(image.height) else { throw EncodeError(description: "sws_scale failed") }
        return frame
    }

    static func check(_ code: Int32, _ what: String) throws(EncodeError) {
        guard code >= 0 else { throw EncodeError(description: "\(what): FFmpeg error \(code)") }
    }
}

/// An output file being muxed into memory (a dynamic buffer: the sample's items are bytes).
private final class Muxer {
    let context: UnsafeMutablePointer<AVFormatContext>

    init(_ name: String, metadata: [(String, String)]) throws(EncodeError) {
        var made: UnsafeMutablePointer<AVFormatContext>?
        try SampleVideo.check(avformat_alloc_output_context2(&made, nil, name, nil), "no \(name) muxer")
        guard let made else { throw EncodeError(description: "no \(name) muxer") }
        context = made
        for (key, value) in metadata { _ = av_dict_set(&context.pointee.metadata, key, value, 0) }
        // Keys metadata (`mdta`) for every key not in QuickTime's fixed list: Apple's own keys.
        _ = av_opt_set(context.pointee.priv_data, "movflags", "use_metadata_tags", 0)
        try SampleVideo.check(avio_open_dyn_buf(&context.pointee.pb), "avio_open_dyn_buf")
    }

    deinit {
        if context.pointee.pb != nil {
            var bytes: UnsafeMutablePointer<UInt8>?
            _ = avio_close_dyn_buf(context.pointee.pb, &bytes)
            av_free(bytes)
        }
        avformat_free_context(context)
    }

    func add(_ encoder: CodecContext) throws(EncodeError) -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else { throw EncodeError(description: "avformat_new_stream failed") }
        try SampleVideo.check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context), "codec parameters")
        stream.pointee.time_base = encoder.context.pointee.time_base
        return stream
    }

    func start() throws(EncodeError) { try SampleVideo.check(avformat_write_header(context, nil), "avformat_write_header") }

    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws(EncodeError) {
        try SampleVideo.check(av_interleaved_write_frame(context, packet), "av_interleaved_write_frame")
    }

    /// Writes the trailer (the movie box) and gives the file's bytes.
    func finish() throws(EncodeError) -> [UInt8] {
        try SampleVideo.check(av_write_trailer(context), "av_write_trailer")
        var bytes: UnsafeMutablePointer<UInt8>?
        let count = avio_close_dyn_buf(context.pointee.pb, &bytes)
        context.pointee.pb = nil
        defer { av_free(bytes) }
        guard let bytes, count > 0 else { throw EncodeError(description: "nothing was written") }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(count)))
    }
}

/// An encoder, opened.
private struct CodecContext {
    var context: UnsafeMutablePointer<AVCodecContext>
    private let owner: Owner

    /// Frees the context with the last copy of the struct.
    private final class Owner {
        var context: UnsafeMutablePointer<AVCodecContext>?
        init(_ context: UnsafeMutablePointer<AVCodecContext>) { self.context = context }
        deinit { avcodec_free_context(&context) }
    }

    init(_ codec: UnsafePointer<AVCodec>, setUp: (UnsafeMutablePointer<AVCodecContext>) -> Void) throws(EncodeError) {
        guard let context = avcodec_alloc_context3(codec) else { throw EncodeError(description: "out of memory") }
        self.context = context
        owner = Owner(context)
        setUp(context)
        try SampleVideo.check(avcodec_open2(context, codec, nil), "avcodec_open2")
    }

    /// Encodes `frame` (nil: the end, flushing the encoder; freed here) and writes its packets.
    mutating func send(_ frame: UnsafeMutablePointer<AVFrame>?, to muxer: Muxer, stream: UnsafeMutablePointer<AVStream>) throws(EncodeError) {
        var owned = frame
        defer { av_frame_free(&owned) }
        try SampleVideo.check(avcodec_send_frame(context, frame), "avcodec_send_frame")
        var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet else { throw EncodeError(description: "out of memory") }
        while avcodec_receive_packet(context, packet) == 0 {
            av_packet_rescale_ts(packet, context.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            try muxer.write(packet)
        }
    }
}
