#ifndef ALBUMFS_CSYSVFS_SHIM_H
#define ALBUMFS_CSYSVFS_SHIM_H
// Glibc's Swift module leaves out <sys/vfs.h>: fstatfs(2) and its f_type, which tells the
// filesystems whose inode numbers are made up (AlbumMetadata.InodeNumbers).
#include <sys/vfs.h>
#endif
