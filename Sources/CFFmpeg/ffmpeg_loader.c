// FFmpeg's libraries, opened with dlopen on first use (why: include/CFFmpeg.h). Each function
// albumfs calls is defined here under its own name, with the prototype from FFmpeg's headers (the
// compiler checks they agree), and jumps to the function of that name in the loaded libraries.
#include "CFFmpeg.h"
#include "CLoader.h"
#include <pthread.h>
#include <stddef.h>

// Every function albumfs calls: (return type, name, parameters, arguments). `FFMPEG_VOID` lists
// those that return nothing (C forbids `return f()` there).
#define FFMPEG_FUNCTIONS(X) \
    X(AVFormatContext *, avformat_alloc_context, (void), ()) \
    X(const AVInputFormat *, av_find_input_format, (const char *name), (name)) \
    X(int, avformat_open_input, (AVFormatContext **s, const char *url, const AVInputFormat *f, AVDictionary **o), (s, url, f, o)) \
    X(int, av_find_best_stream, (AVFormatContext *ic, enum AVMediaType t, int wanted, int related, const AVCodec **d, int flags), \
      (ic, t, wanted, related, d, flags)) \
    X(int, av_read_frame, (AVFormatContext *s, AVPacket *p), (s, p)) \
    X(int, av_seek_frame, (AVFormatContext *s, int i, int64_t ts, int flags), (s, i, ts, flags)) \
    X(AVIOContext *, avio_alloc_context, (unsigned char *b, int size, int write, void *opaque, \
      int (*r)(void *, uint8_t *, int), int (*w)(void *, uint8_t *, int), int64_t (*seek)(void *, int64_t, int)), \
      (b, size, write, opaque, r, w, seek)) \
    X(int, avio_open_dyn_buf, (AVIOContext **s), (s)) \
    X(int, avio_close_dyn_buf, (AVIOContext *s, uint8_t **b), (s, b)) \
    X(int, avformat_alloc_output_context2, (AVFormatContext **c, const AVOutputFormat *f, const char *name, const char *file), \
      (c, f, name, file)) \
    X(AVStream *, avformat_new_stream, (AVFormatContext *s, const AVCodec *c), (s, c)) \
    X(int, avformat_write_header, (AVFormatContext *s, AVDictionary **o), (s, o)) \
    X(int, av_interleaved_write_frame, (AVFormatContext *s, AVPacket *p), (s, p)) \
    X(int, av_write_trailer, (AVFormatContext *s), (s)) \
    X(uint8_t *, av_stream_get_side_data, (const AVStream *s, enum AVPacketSideDataType t, size_t *size), (s, t, size)) \
    X(uint8_t *, av_stream_new_side_data, (AVStream *s, enum AVPacketSideDataType t, size_t size), (s, t, size)) \
    X(const AVCodec *, avcodec_find_decoder, (enum AVCodecID id), (id)) \
    X(const AVCodec *, avcodec_find_encoder, (enum AVCodecID id), (id)) \
    X(const AVCodec *, avcodec_find_encoder_by_name, (const char *name), (name)) \
    X(AVCodecContext *, avcodec_alloc_context3, (const AVCodec *c), (c)) \
    X(int, avcodec_parameters_to_context, (AVCodecContext *c, const AVCodecParameters *p), (c, p)) \
    X(int, avcodec_parameters_from_context, (AVCodecParameters *p, const AVCodecContext *c), (p, c)) \
    X(int, avcodec_open2, (AVCodecContext *c, const AVCodec *codec, AVDictionary **o), (c, codec, o)) \
    X(int, avcodec_send_packet, (AVCodecContext *c, const AVPacket *p), (c, p)) \
    X(int, avcodec_receive_frame, (AVCodecContext *c, AVFrame *f), (c, f)) \
    X(int, avcodec_send_frame, (AVCodecContext *c, const AVFrame *f), (c, f)) \
    X(int, avcodec_receive_packet, (AVCodecContext *c, AVPacket *p), (c, p)) \
    X(AVPacket *, av_packet_alloc, (void), ()) \
    X(AVFrame *, av_frame_alloc, (void), ()) \
    X(int, av_frame_get_buffer, (AVFrame *f, int align), (f, align)) \
    X(int, av_frame_make_writable, (AVFrame *f), (f)) \
    X(void *, av_malloc, (size_t size), (size)) \
    X(int, av_dict_set, (AVDictionary **d, const char *k, const char *v, int flags), (d, k, v, flags)) \
    X(int, av_opt_set, (void *o, const char *name, const char *value, int flags), (o, name, value, flags)) \
    X(int, av_strerror, (int e, char *buf, size_t size), (e, buf, size)) \
    X(double, av_display_rotation_get, (const int32_t m[9]), (m)) \
    X(struct SwsContext *, sws_getContext, (int sw, int sh, enum AVPixelFormat sf, int dw, int dh, enum AVPixelFormat df, \
      int flags, SwsFilter *a, SwsFilter *b, const double *p), (sw, sh, sf, dw, dh, df, flags, a, b, p)) \
    X(int, sws_scale, (struct SwsContext *c, const uint8_t *const src[], const int ss[], int y, int h, uint8_t *const dst[], \
      const int ds[]), (c, src, ss, y, h, dst, ds)) \
    X(const int *, sws_getCoefficients, (int colorspace), (colorspace)) \
    X(int, sws_setColorspaceDetails, (struct SwsContext *c, const int inv[4], int srcRange, const int table[4], int dstRange, \
      int brightness, int contrast, int saturation), (c, inv, srcRange, table, dstRange, brightness, contrast, saturation))

#define FFMPEG_VOID(X) \
    X(avformat_close_input, (AVFormatContext **s), (s)) \
    X(avformat_free_context, (AVFormatContext *s), (s)) \
    X(avio_context_free, (AVIOContext **s), (s)) \
    X(avcodec_free_context, (AVCodecContext **c), (c)) \
    X(av_packet_free, (AVPacket **p), (p)) \
    X(av_packet_unref, (AVPacket *p), (p)) \
    X(av_packet_rescale_ts, (AVPacket *p, AVRational a, AVRational b), (p, a, b)) \
    X(av_frame_free, (AVFrame **f), (f)) \
    X(av_frame_unref, (AVFrame *f), (f)) \
    X(av_frame_move_ref, (AVFrame *dst, AVFrame *src), (dst, src)) \
    X(av_free, (void *p), (p)) \
    X(av_freep, (void *p), (p)) \
    X(av_dict_free, (AVDictionary **d), (d)) \
    X(av_log_set_level, (int level), (level)) \
    X(av_max_alloc, (size_t max), (max)) \
    X(av_display_rotation_set, (int32_t m[9], double angle), (m, angle)) \
    X(av_channel_layout_default, (AVChannelLayout *l, int channels), (l, channels)) \
    X(sws_freeContext, (struct SwsContext *c), (c))

ALBUMFS_LOADER_TABLE(FFMPEG_FUNCTIONS, FFMPEG_VOID)

// The libraries, the ones whose headers albumfs is built with (their major versions).
#define SO(name, major) "lib" name ".so." #major
#define SO_VERSION(name, major) SO(name, major)
static const char *const libraries[] = {
    SO_VERSION("avutil", LIBAVUTIL_VERSION_MAJOR), SO_VERSION("swscale", LIBSWSCALE_VERSION_MAJOR),
    SO_VERSION("avcodec", LIBAVCODEC_VERSION_MAJOR), SO_VERSION("avformat", LIBAVFORMAT_VERSION_MAJOR),
};
#define LIBRARY_COUNT (sizeof libraries / sizeof libraries[0])

static const char *failure;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    failure = albumfs_load_functions(libraries, LIBRARY_COUNT, names, functions, function_count,
                                     "FFmpeg's libraries lack a function albumfs calls");
    // Their messages (a damaged clip's decode errors) are not the daemon's: it says what failed.
    if (!failure) ((void (*)(int))functions[index_av_log_set_level])(AV_LOG_QUIET);
}

const char *albumfs_ffmpeg_load(void) {
    pthread_once(&once, load);
    return failure;
}

ALBUMFS_LOADER_JUMPS(FFMPEG_FUNCTIONS, FFMPEG_VOID)
