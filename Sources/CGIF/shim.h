#ifndef ALBUMFS_CGIF_SHIM_H
#define ALBUMFS_CGIF_SHIM_H
// giflib, linked (small: a render worker has it before it enters its sandbox). Its errors come
// back as return values and an error code, never through longjmp.
#include <gif_lib.h>
#endif
