#ifndef ALBUMFS_CSQLITE3_SHIM_H
#define ALBUMFS_CSQLITE3_SHIM_H
#include <sqlite3.h>
#endif
