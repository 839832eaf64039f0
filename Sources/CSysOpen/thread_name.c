#include "sys_open.h"

#include <sys/prctl.h>

int albumfs_thread_name_set(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0) == 0 ? 0 : -1;
}
