#define _GNU_SOURCE
#include "sys_open.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

// Set once a kernel has answered ENOSYS: every later open goes straight to the walk.
static atomic_int openat2_missing = 0;

int albumfs_open_beneath_walk(int rootfd, const char *path, int flags) {
    size_t length = strlen(path);
    if (length == 0 || path[0] == '/') { errno = EXDEV; return -1; }
    char *copy = malloc(length + 1);
    if (copy == NULL) { errno = ENOMEM; return -1; }
    memcpy(copy, path, length + 1);
    int dir = rootfd;
    int result = -1;
    char *rest = copy;
    for (;;) {
        char *slash = strchr(rest, '/');
        if (slash != NULL) *slash = '\0';
        if (strcmp(rest, "..") == 0) { errno = EXDEV; break; }
        int last = slash == NULL;
        // Empty components ("a//b") and "." stay in the same folder, as the kernel's lookup does.
        int stay = rest[0] == '\0' || strcmp(rest, ".") == 0;
        int next;
        if (stay && !last) {
            rest = slash + 1;
            continue;
        }
        int wanted = last ? (flags | O_NOFOLLOW | O_CLOEXEC) : (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        do { next = openat(dir, stay ? "." : rest, wanted, 0); } while (next < 0 && errno == EINTR);
        // O_PATH | O_NOFOLLOW opens a link itself rather than failing: O_DIRECTORY says ENOTDIR
        // then, which is ELOOP here (a link on the way), as openat2 says.
        if (next < 0 && errno == ENOTDIR && !last) {
            struct stat st;
            if (fstatat(dir, rest, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) errno = ELOOP;
            else errno = ENOTDIR;
        }
        if (dir != rootfd) {
            int saved = errno;
            close(dir);
            errno = saved;
        }
        if (next < 0) break;
        if (last) { result = next; break; }
        dir = next;
        rest = slash + 1;
    }
    int saved = errno;
    free(copy);
    errno = saved;
    return result;
}

int albumfs_open_beneath(int rootfd, const char *path, int flags) {
    if (!atomic_load_explicit(&openat2_missing, memory_order_relaxed)) {
        struct open_how how;
        memset(&how, 0, sizeof how);
        how.flags = (unsigned long long)(flags | O_CLOEXEC);
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        for (int attempt = 0; attempt < 64; attempt++) {
            long fd = syscall(SYS_openat2, rootfd, path, &how, sizeof how);
            if (fd >= 0) return (int)fd;
            if (errno == EINTR || errno == EAGAIN) continue;
            if (errno != ENOSYS) return -1;
            atomic_store_explicit(&openat2_missing, 1, memory_order_relaxed);
            break;
        }
        if (!atomic_load_explicit(&openat2_missing, memory_order_relaxed)) return -1;  // EAGAIN every time
    }
    return albumfs_open_beneath_walk(rootfd, path, flags);
}
