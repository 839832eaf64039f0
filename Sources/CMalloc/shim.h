#ifndef ALBUMFS_CMALLOC_SHIM_H
#define ALBUMFS_CMALLOC_SHIM_H
// Glibc's Swift module leaves out <malloc.h>; the daemon calls malloc_trim after big scans.
#include <malloc.h>
#endif
