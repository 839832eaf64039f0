#ifndef ALBUMFS_CFFMPEG_H
#define ALBUMFS_CFFMPEG_H
// FFmpeg's own API (Debian's libavformat-dev, libavcodec-dev, libswscale-dev, libavutil-dev),
// served by the libraries loaded on first use (ffmpeg_loader.c): linked, their 130 dependencies
// (every codec Debian builds in) would be loaded by every albumfs command at start
// (docs/benchmarks.md), though only a video's thumbnail and the sample's encoder call them.
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

/// Loads FFmpeg's libraries and looks up every function albumfs calls, once per process (later
/// calls return the first answer). NULL when ready; else why not (kept for the life of the
/// process). No FFmpeg function may be called before this said NULL.
const char *albumfs_ffmpeg_load(void);

// Values Swift cannot import (function-like macros).
static inline int albumfs_averror_eof(void) { return AVERROR_EOF; }
static inline int albumfs_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t albumfs_av_nopts_value(void) { return AV_NOPTS_VALUE; }
#endif
