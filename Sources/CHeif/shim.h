#ifndef ALBUMFS_CHEIF_SHIM_H
#define ALBUMFS_CHEIF_SHIM_H
// Debian's libheif-dev puts the header under the multiarch include folder.
#include <libheif/heif.h>
#endif
