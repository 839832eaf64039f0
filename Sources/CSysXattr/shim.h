#ifndef ALBUMFS_CSYSXATTR_SHIM_H
#define ALBUMFS_CSYSXATTR_SHIM_H
// Glibc's Swift module leaves out <sys/xattr.h>; the mount tests call getxattr(2) directly.
#include <sys/xattr.h>
#endif
