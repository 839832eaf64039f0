#ifndef ALBUMFS_CJEMALLOC_H
#define ALBUMFS_CJEMALLOC_H
// jemalloc (Debian's libjemalloc-dev) is the process's malloc: linked in, it serves every
// allocation, Swift's, libexif's and SQLite's. Only its control call is declared here (the full
// <jemalloc/jemalloc.h> redeclares malloc and friends beside Glibc's).
#include <stddef.h>
// Weak: a build for ThreadSanitizer (ALBUMFS_NO_JEMALLOC=1, scripts/tsan) links no jemalloc,
// whose allocations TSan's own allocator cannot free; mallctl is then NULL and `albumfs_mallctl`
// answers -1.
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) __attribute__((weak));

static inline int albumfs_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) {
    return mallctl ? mallctl(name, oldp, oldlenp, newp, newlen) : -1;
}
#endif
