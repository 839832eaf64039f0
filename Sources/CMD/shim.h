#ifndef ALBUMFS_CMD_SHIM_H
#define ALBUMFS_CMD_SHIM_H
// libmd (Debian's libmd-dev): MD5, which the freedesktop thumbnail specification names
// thumbnails by (of their file's URI).
#include <md5.h>
#endif
