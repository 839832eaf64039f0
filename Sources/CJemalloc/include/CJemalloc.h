#ifndef ALBUMFS_CJEMALLOC_H
#define ALBUMFS_CJEMALLOC_H
// jemalloc (Debian's libjemalloc-dev) is the process's malloc: linked in, it serves every
// allocation, Swift's, libexif's and SQLite's. Only its control call is declared here (the full
// <jemalloc/jemalloc.h> redeclares malloc and friends beside Glibc's).
#include <stddef.h>
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
#endif
