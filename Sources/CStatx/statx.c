// statx(2) for one field, birth time (see CStatx.h).
#define _GNU_SOURCE
#include "CStatx.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

int albumfs_birth_time(int dirfd, const char *path, int64_t *seconds, uint32_t *nanoseconds) {
    struct statx stx;
    if (statx(dirfd, path, AT_SYMLINK_NOFOLLOW | AT_STATX_SYNC_AS_STAT, STATX_BTIME, &stx) != 0) return -1;
    if (!(stx.stx_mask & STATX_BTIME)) {
        errno = ENODATA;
        return -1;
    }
    *seconds = stx.stx_btime.tv_sec;
    *nanoseconds = stx.stx_btime.tv_nsec;
    return 0;
}
