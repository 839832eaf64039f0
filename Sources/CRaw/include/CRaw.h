#ifndef ALBUMFS_CRAW_H
#define ALBUMFS_CRAW_H
// LibRaw's C API (Debian's libraw-dev), served by the library loaded on first use
// (raw_loader.c): linked, libraw_r and what it needs (libstdc++, libgomp, lcms2) would be loaded
// by every albumfs command at start, though only a render worker ever calls it.
#include <libraw/libraw.h>

/// Loads libraw_r and looks up every function albumfs calls, once per process (later calls
/// return the first answer). NULL when ready; else why not (kept for the life of the process).
/// No LibRaw function may be called before this said NULL.
const char *albumfs_raw_load(void);
#endif
