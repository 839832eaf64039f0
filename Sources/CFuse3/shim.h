#ifndef ALBUMFS_CFUSE3_SHIM_H
#define ALBUMFS_CFUSE3_SHIM_H
// 312, not 35: with 35 Debian's versioned symbols turn fuse_session_loop_mt into a function-like
// macro that Swift cannot import; 312 also gives the fuse_loop_cfg_* API (docs/swift-fuse.md).
#define FUSE_USE_VERSION 312
#include <fuse3/fuse_lowlevel.h>
#endif
