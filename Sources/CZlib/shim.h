#ifndef ALBUMFS_CZLIB_SHIM_H
#define ALBUMFS_CZLIB_SHIM_H
// zlib, for PNG's compressed text chunks (zTXt, compressed iTXt) and chunk CRCs.
#include <zlib.h>
#endif
