#ifndef ALBUMFS_CSTATX_H
#define ALBUMFS_CSTATX_H
// A file's birth time (statx(2), STATX_BTIME): Glibc's Swift module does not declare statx.
#include <stdint.h>

/// The birth time of `path` (relative to the open folder `dirfd`, links not followed) in
/// `*seconds` and `*nanoseconds`: 0, or -1 when it cannot be had (errno set; ENODATA when the
/// filesystem keeps no birth time).
int albumfs_birth_time(int dirfd, const char *path, int64_t *seconds, uint32_t *nanoseconds);
#endif
