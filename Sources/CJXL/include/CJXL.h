#ifndef ALBUMFS_CJXL_H
#define ALBUMFS_CJXL_H
// libjxl's own API (Debian's libjxl-dev), served by the library loaded on first use
// (jxl_loader.c): linked, libjxl and what it links (libbrotli, libhwy, liblcms2) would cost every
// albumfs command's start its loading and static setup (docs/benchmarks.md), though only a JPEG XL
// thumbnail and the sample's encoder call it.
// Declared without libjxl's default visibility: the loader's jumps, defined under the same
// names, are hidden (CLoader.h says why).
#define JXL_STATIC_DEFINE
#include <jxl/decode.h>
#include <jxl/encode.h>

/// Loads libjxl and looks up every function albumfs calls, once per process (later calls return
/// the first answer). NULL when ready; else why not (kept for the life of the process). No libjxl
/// function may be called before this said NULL.
const char *albumfs_jxl_load(void);
#endif
