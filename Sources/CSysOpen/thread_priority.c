#define _GNU_SOURCE
#include "sys_open.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

// From <linux/ioprio.h>, which older kernel headers do not ship.
#define ALBUMFS_IOPRIO_WHO_PROCESS 1
#define ALBUMFS_IOPRIO_CLASS_SHIFT 13
#define ALBUMFS_IOPRIO_CLASS_IDLE 3

int albumfs_thread_priority_get(int *nice_value, int *io_priority) {
    pid_t tid = gettid();
    errno = 0;
    int value = getpriority(PRIO_PROCESS, (id_t)tid);
    if (value == -1 && errno != 0) return -1;
    long io = syscall(SYS_ioprio_get, ALBUMFS_IOPRIO_WHO_PROCESS, tid);
    if (io < 0) return -1;
    *nice_value = value;
    *io_priority = (int)io;
    return 0;
}

int albumfs_thread_priority_set(int nice_value, int io_priority) {
    pid_t tid = gettid();
    if (setpriority(PRIO_PROCESS, (id_t)tid, nice_value) != 0) return -1;
    if (syscall(SYS_ioprio_set, ALBUMFS_IOPRIO_WHO_PROCESS, tid, io_priority) != 0) return -1;
    return 0;
}

int albumfs_io_priority_idle(void) { return ALBUMFS_IOPRIO_CLASS_IDLE << ALBUMFS_IOPRIO_CLASS_SHIFT; }
