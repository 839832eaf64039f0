#ifndef ALBUMFS_CSQLITE3_SHIM_H
#define ALBUMFS_CSQLITE3_SHIM_H
#include <sqlite3.h>
// sqlite3_config is variadic, which Swift cannot call: the one setting albumfs makes.
static inline int albumfs_sqlite3_config_memstatus(int on) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on); }
#endif
