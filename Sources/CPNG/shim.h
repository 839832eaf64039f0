#ifndef ALBUMFS_CPNG_SHIM_H
#define ALBUMFS_CPNG_SHIM_H
// Only libpng's "simplified" API is used: it reports errors through return values instead of
// setjmp/longjmp, which Swift cannot survive.
#include <png.h>
#endif
