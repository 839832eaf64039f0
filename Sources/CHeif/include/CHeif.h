#ifndef ALBUMFS_CHEIF_H
#define ALBUMFS_CHEIF_H
// libheif's own API (Debian's libheif-dev puts the header under the multiarch include folder),
// served by a library loaded on first use (heif_loader.c): libheif pulls in four codec libraries
// (x265, libde265, dav1d, libaom) that a mount without HEIF images never calls, and loading
// them from a cold disk would slow every albumfs command's start (docs/benchmarks.md).
#include <libheif/heif.h>

/// Loads libheif and looks up every function albumfs calls, once per process (later calls
/// return the first answer). NULL when ready; else why not (dlopen's or dlsym's words, kept for
/// the life of the process). No libheif function may be called before this said NULL.
const char *albumfs_heif_load(void);
#endif
