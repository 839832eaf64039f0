#ifndef ALBUMFS_CTURBOJPEG_SHIM_H
#define ALBUMFS_CTURBOJPEG_SHIM_H
#include <turbojpeg.h>
#endif
