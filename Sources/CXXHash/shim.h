#ifndef ALBUMFS_CXXHASH_SHIM_H
#define ALBUMFS_CXXHASH_SHIM_H
// XXH3-128 for content hashes of picked photos ("the same image picked twice").
#include <xxhash.h>
#endif
