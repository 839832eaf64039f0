#ifndef ALBUMFS_CEXIF_SHIM_H
#define ALBUMFS_CEXIF_SHIM_H
#include <libexif/exif-data.h>
#include <libexif/exif-utils.h>
#include <libexif/exif-tag.h>
#endif
