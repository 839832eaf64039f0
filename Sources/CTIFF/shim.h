#ifndef ALBUMFS_CTIFF_SHIM_H
#define ALBUMFS_CTIFF_SHIM_H
// libtiff, linked (a render worker has it, and the codecs it links, before it enters its
// sandbox). Its errors come back as return values; its handlers' messages are not printed.
#include <tiffio.h>
#endif
