import AlbumCore
import AlbumMetadata
import AlbumSystem
import CFFmpeg
import Glibc

/// FFmpeg's libraries, loaded once for the process on first use (`CFFmpeg.h` says why).
public enum FFmpegLibrary {
    /// Nil once FFmpeg is ready; else why not. (A `static let` is initialised once.)
    public static let setupFailure: String? = albumfs_ffmpeg_load().map { String(cString: $0) }

    /// FFmpeg's words for an error code.
    static func message(_ code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 128)
        let known = buffer.withUnsafeMutableBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { av_strerror(code, $0.baseAddress, $0.count) }
        }
        guard known == 0 else { return "error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// A video's poster frame: its first keyframe, or for a Live Photo's motion part the frame at the
/// moment its still was taken (`StillImageTime`), decoded with FFmpeg (H.264, HEVC, ProRes,
/// MPEG-4: whatever Debian's libavcodec decodes) from the open original, never by path.
///
/// Only the QuickTime/MP4 demuxer is used (the file was recognised as one: nothing else of
/// FFmpeg's hundreds of demuxers sees its bytes); only keyframes are decoded (`skip_frame`), at a
/// reduced size where the codec can (`lowres`), and at most `maxPackets` packets are read for
/// one: the time and memory a clip takes do not grow with its length. A Live Photo's frame is
/// reached by seeking to the keyframe before it and decoding every frame from there (a phone's
/// keyframes are a second or two apart). The frame comes as stored;
/// the track's rotation is the photo's orientation, applied by the renderer.
final class VideoPoster {
    /// Packets of the video read at most before its first keyframe (a phone clip's is its first).
    static let maxPackets = 600
    /// The AVIO buffer: how much is read from the file at a time.
    static let bufferSize = 64 << 10

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    /// What FFmpeg's read and seek callbacks reach; released in `deinit`.
    private let source: Unmanaged<VideoSource>
    // (Every stored property has its value once `source` has: an init that throws after that
    // runs `deinit`, which frees what was made.)
    private var stream: Int32 = -1
    private var decoder: UnsafePointer<AVCodec>?
    private(set) var width = 0
    private(set) var height = 0
    /// The still's moment in a Live Photo's motion part, in seconds (nil: the first keyframe).
    private(set) var stillTime: Double?

    /// Pixels a decoded frame may have at most (`AVCodecContext.max_pixels`): what the memory a
    /// render may take allows, whatever the track says its size is.
    private let maxFramePixels: Int

    /// - Parameter memory: the bytes a render may take (`decodingBytes` of a frame of the size
    ///   decoded, not declared, must fit).
    init(_ original: Original, maxPixels: Int, memory: Int = Int.max) throws(ThumbnailError) {
        maxFramePixels = min(maxPixels, memory / Self.bytesPerPixel)
        if let failure = FFmpegLibrary.setupFailure { throw ThumbnailError("video: \(failure)") }
        source = Unmanaged.passRetained(VideoSource(original))
        guard let buffer = av_malloc(Self.bufferSize) else { throw ThumbnailError("video: out of memory") }
        io = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(Self.bufferSize), 0, source.toOpaque(),
                                VideoSource.readPacket, nil, VideoSource.seek)
        guard let io else { av_free(buffer); throw ThumbnailError("video: out of memory") }
        format = avformat_alloc_context()
        guard let context = format else { throw ThumbnailError("video: out of memory") }
        context.pointee.pb = io
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        // (On failure avformat_open_input frees the context and empties `format`.)
        let opened = avformat_open_input(&format, nil, av_find_input_format("mov"), nil)
        guard opened == 0 else { throw source.takeUnretainedValue().failure ?? Self.failure("cannot open the video", opened) }
        // The first video track, as the scan reads its size and rotation (`VideoHeader`): FFmpeg's
        // "best" one (`av_find_best_stream`) is another when several are enabled, the largest.
        stream = Self.firstVideoStream(context)
        guard stream >= 0 else { throw ThumbnailError("video: no video stream") }
        guard let found = avcodec_find_decoder(context.pointee.streams[Int(stream)]!.pointee.codecpar!.pointee.codec_id) else {
            throw ThumbnailError("video: no decoder for its video stream")
        }
        decoder = found
        let parameters = format!.pointee.streams[Int(stream)]!.pointee.codecpar!.pointee
        (width, height) = (Int(parameters.width), Int(parameters.height))
        guard width > 0, height > 0 else { throw ThumbnailError("video: no frame size") }
        guard width * height <= maxPixels else { throw ThumbnailError("video of \(width)x\(height) is over the \(maxPixels)-pixel limit") }
        stillTime = try StillImageTime.seconds(size: Int64(original.count)) { (offset, count) throws(ThumbnailError) in
            try original.read(Int(offset), count)
        }
    }

    /// The index of the first video stream that is no attached picture (cover art), or -1.
    static func firstVideoStream(_ format: UnsafeMutablePointer<AVFormatContext>) -> Int32 {
        for i in 0..<Int(format.pointee.nb_streams) {
            guard let stream = format.pointee.streams[i], let parameters = stream.pointee.codecpar else { continue }
            if parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO && stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 {
                return Int32(i)
            }
        }
        return -1
    }

    deinit {
        avformat_close_input(&format)
        if let io {
            // The buffer may have been replaced by FFmpeg: free the one the context holds now.
            av_freep(&io.pointee.buffer)
            avio_context_free(&self.io)
        }
        source.release()
    }

    /// The bytes a decode may take: the decoder's frames (a few, YUV 4:2:0 up to 16 bits) and
    /// the RGB image.
    var decodingBytes: Int { width * height * Self.bytesPerPixel }
    static let bytesPerPixel = 12

    /// The poster frame as RGB, shrunk by a power of two while it still covers twice the box
    /// (the JPEG rule); `(1, factor)` is the shrink.
    func decode(boxWidth: Int, boxHeight: Int) throws(ThumbnailError) -> (image: RGBImage, scale: (Int, Int)) {
        var factor = 1
        while width / (factor * 2) >= 2 * boxWidth && height / (factor * 2) >= 2 * boxHeight && factor < 8 { factor *= 2 }
        guard let decoder else { throw ThumbnailError("video: no decoder") }
        var codec: UnsafeMutablePointer<AVCodecContext>? = avcodec_alloc_context3(decoder)
        defer { avcodec_free_context(&codec) }
        guard let codec else { throw ThumbnailError("video: out of memory") }
        let parameters = format!.pointee.streams[Int(stream)]!.pointee.codecpar
        let ready = avcodec_parameters_to_context(codec, parameters)
        guard ready >= 0 else { throw Self.failure("unusable codec parameters", ready) }
        codec.pointee.skip_frame = stillTime == nil ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT
        // The codec's own reduced-size decode (MJPEG's, MPEG-4's), within the shrink wanted.
        var lowres: Int32 = 0
        while (1 << (lowres + 1)) <= factor && lowres < Int32(decoder.pointee.max_lowres) { lowres += 1 }
        codec.pointee.lowres = lowres
        // (FFmpeg refuses a frame over this before allocating it: a track that says 16x16 over a
        // 16000x16000 frame.)
        codec.pointee.max_pixels = Int64(maxFramePixels)
        codec.pointee.thread_count = 0
        codec.pointee.thread_type = FF_THREAD_SLICE
        let opened = avcodec_open2(codec, decoder, nil)
        guard opened >= 0 else { throw Self.failure("cannot open the decoder", opened) }
        let frame = if let stillTime { try self.frame(at: stillTime, codec) } else { try firstKeyframe(codec) }
        defer { var f: UnsafeMutablePointer<AVFrame>? = frame; av_frame_free(&f) }
        let (fw, fh) = (Int(frame.pointee.width) << Int(lowres), Int(frame.pointee.height) << Int(lowres))
        guard fw <= width + (1 << Int(lowres)), fh <= height + (1 << Int(lowres)) else {
            throw ThumbnailError("video: its frames are \(fw)x\(fh), larger than the \(width)x\(height) its track says")
        }
        return (try Self.rgb(frame, factor: factor >> Int(lowres)), (1, factor))
    }

    /// Reads packets until the decoder gives a frame (at most `maxPackets` of the stream).
    private func firstKeyframe(_ codec: UnsafeMutablePointer<AVCodecContext>) throws(ThumbnailError) -> UnsafeMutablePointer<AVFrame> {
        var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet, let frame = av_frame_alloc() else { throw ThumbnailError("video: out of memory") }
        var seen = 0
        while seen < Self.maxPackets {
            let read = av_read_frame(format, packet)
            if read < 0 {
                // The end, damage or a read failure: what the decoder still holds, then.
                _ = avcodec_send_packet(codec, nil)
                break
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == stream else { continue }
            seen += 1
            guard packet.pointee.flags & AV_PKT_FLAG_KEY != 0 else { continue }
            let sent = avcodec_send_packet(codec, packet)
            if sent < 0 && sent != albumfs_averror_eagain() { continue }  // a damaged packet: the next keyframe
            if avcodec_receive_frame(codec, frame) == 0 { return frame }
        }
        if avcodec_receive_frame(codec, frame) == 0 { return frame }
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
        if let failure = source.takeUnretainedValue().failure { throw failure }
        throw ThumbnailError("video: no keyframe could be decoded in its first \(seen) packets")
    }

    /// The first frame shown at or after `seconds` (the last one when the clip ends before):
    /// from the keyframe before it, every frame decoded, at most `maxPackets` packets read.
    private func frame(at seconds: Double, _ codec: UnsafeMutablePointer<AVCodecContext>) throws(ThumbnailError) -> UnsafeMutablePointer<AVFrame> {
        let base = format!.pointee.streams[Int(stream)]!.pointee.time_base
        guard base.num > 0, base.den > 0 else { return try firstKeyframe(codec) }
        let ticksPerSecond = Double(base.den) / Double(base.num)
        let target = Int64((seconds * ticksPerSecond).rounded())
        // (A seek that fails leaves the demuxer at the start: every frame up to the moment is decoded then.)
        _ = av_seek_frame(format, stream, target, AVSEEK_FLAG_BACKWARD)
        var packet: UnsafeMutablePointer<AVPacket>? = av_packet_alloc()
        defer { av_packet_free(&packet) }
        var latest: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
        guard let packet, let frame = av_frame_alloc(), let last = latest else {
            av_frame_free(&latest)
            throw ThumbnailError("video: out of memory")
        }
        defer { av_frame_free(&latest) }
        // A frame a millisecond early is the one meant (the moment rounded to either timescale).
        let early = Int64((ticksPerSecond / 1000).rounded(.up))
        var seen = 0
        var ended = false
        while !ended {
            if seen < Self.maxPackets, av_read_frame(format, packet) >= 0 {
                defer { av_packet_unref(packet) }
                guard packet.pointee.stream_index == stream else { continue }
                seen += 1
                _ = avcodec_send_packet(codec, packet)  // a damaged packet: its frame is missing, the next ones come
            } else {
                _ = avcodec_send_packet(codec, nil)  // the end, damage or a read failure: what the decoder holds
                ended = true
            }
            while avcodec_receive_frame(codec, frame) == 0 {
                if frame.pointee.best_effort_timestamp + early >= target { return frame }
                av_frame_unref(last)
                av_frame_move_ref(last, frame)
            }
        }
        var unused: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&unused)
        if last.pointee.width > 0 { latest = nil; return last }
        if let failure = source.takeUnretainedValue().failure { throw failure }
        throw ThumbnailError("video: no frame could be decoded before \(seconds) s in its first \(seen) packets")
    }

    /// A decoded frame as 8-bit RGB, `factor` times smaller each way (area averaging), in its
    /// matrix and range (BT.709 for HD, BT.601 for SD, limited or full range).
    private static func rgb(_ frame: UnsafeMutablePointer<AVFrame>, factor: Int) throws(ThumbnailError) -> RGBImage {
        let f = frame.pointee
        let (w, h) = (Int(f.width), Int(f.height))
        let (dw, dh) = (max(1, w / max(1, factor)), max(1, h / max(1, factor)))
        guard let scaler = sws_getContext(f.width, f.height, AVPixelFormat(f.format), Int32(dw), Int32(dh), AV_PIX_FMT_RGB24,
                                          SWS_AREA, nil, nil, nil) else {
            throw ThumbnailError("video: frames of pixel format \(f.format) cannot be converted")
        }
        defer { sws_freeContext(scaler) }
        let matrix = f.colorspace == AVCOL_SPC_BT709 || (f.colorspace == AVCOL_SPC_UNSPECIFIED && h > 576) ? SWS_CS_ITU709 : SWS_CS_ITU601
        let coefficients = sws_getCoefficients(matrix)
        _ = sws_setColorspaceDetails(scaler, coefficients, f.color_range == AVCOL_RANGE_JPEG ? 1 : 0, sws_getCoefficients(SWS_CS_DEFAULT),
                                     1, 0, 1 << 16, 1 << 16)
        var pixels = [UInt8](repeating: 0, count: dw * dh * 3)
        var planes = f.data
        var strides = f.linesize
        let done = pixels.withUnsafeMutableBufferPointer { out in
            withUnsafePointer(to: &planes) { planes in
                withUnsafePointer(to: &strides) { strides in
                    planes.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: Int(AV_NUM_DATA_POINTERS)) { src in
                        strides.withMemoryRebound(to: Int32.self, capacity: Int(AV_NUM_DATA_POINTERS)) { srcStride in
                            var dst: UnsafeMutablePointer<UInt8>? = out.baseAddress
                            var dstStride = Int32(dw * 3)
                            return sws_scale(scaler, src, srcStride, 0, f.height, &dst, &dstStride)
                        }
                    }
                }
            }
        }
        guard done == Int32(dh) else { throw ThumbnailError("video: the frame could not be converted") }
        return RGBImage(width: dw, height: dh, pixels: pixels)
    }

    static func failure(_ what: String, _ code: Int32) -> ThumbnailError {
        ThumbnailError("video: \(what) (\(FFmpegLibrary.message(code)))")
    }
}

/// The original as FFmpeg reads it: a position, reads through the original's descriptor, and the
/// first read failure (an I/O error is the disk's, not the video's: `ThumbnailError.isReadFailure`).
final class VideoSource {
    let original: Original
    var position = 0
    var failure: ThumbnailError?
    /// Bytes one render may read of a video: a phone's keyframe is a few MB, `maxPackets` of a
    /// 4K clip a few hundred; a clip whose packets claim gigabytes (a sparse file) stops here.
    static let readBudget = 1 << 30
    var bytesRead = 0

    init(_ original: Original) { self.original = original }

    static let readPacket: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { opaque, buffer, size in
        let source = Unmanaged<VideoSource>.fromOpaque(opaque!).takeUnretainedValue()
        do throws(ThumbnailError) {
            guard source.bytesRead < readBudget else {
                throw ThumbnailError("video: over the \(readBudget >> 20) MiB a render may read of it")
            }
            let bytes = try source.original.read(source.position, Int(size))
            source.bytesRead += bytes.count
            guard !bytes.isEmpty else { return albumfs_averror_eof() }
            bytes.withUnsafeBufferPointer { buffer!.update(from: $0.baseAddress!, count: $0.count) }
            source.position += bytes.count
            return Int32(bytes.count)
        } catch {
            source.failure = error
            return -EIO
        }
    }

    static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
        let source = Unmanaged<VideoSource>.fromOpaque(opaque!).takeUnretainedValue()
        let count = Int64(source.original.count)
        if whence & AVSEEK_SIZE != 0 { return count }
        let target: Int64
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = Int64(source.position) + offset
        case SEEK_END: target = count + offset
        default: return Int64(-EINVAL)
        }
        guard target >= 0 else { return Int64(-EINVAL) }
        source.position = Int(target)
        return target
    }
}
