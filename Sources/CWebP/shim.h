#ifndef ALBUMFS_CWEBP_SHIM_H
#define ALBUMFS_CWEBP_SHIM_H
// libwebp's decoder (stills) and demuxer (an animation's first frame). Both are small and linked:
// a render worker has them before it enters its sandbox.
#include <webp/decode.h>
#include <webp/demux.h>
// The encoder, for the fixtures (AlbumSample): it is in libwebp too.
#include <webp/encode.h>
#endif
