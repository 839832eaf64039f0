#ifndef ALBUMFS_SYS_OPEN_H
#define ALBUMFS_SYS_OPEN_H

/// Opens `path` (relative, `/`-separated) beneath the folder `rootfd` without following a
/// symbolic link at any level and without leaving that folder: `openat2` with
/// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, or, on a kernel without
/// `openat2` (ENOSYS, before 5.6), a walk that opens one component at a time with O_NOFOLLOW.
/// It exists in C because glibc 2.36 has no `openat2` wrapper and Swift cannot call the variadic
/// `syscall`. `flags` are `open`'s (O_CLOEXEC is always added). EINTR and openat2's EAGAIN (a
/// rename raced the lookup) are retried. Returns the descriptor, or -1 with errno set: ELOOP for
/// a link on the way, EXDEV for a path that would leave the folder, ENOTDIR for a file on it.
int albumfs_open_beneath(int rootfd, const char *path, int flags);

/// The same walk without `openat2`, whatever the kernel has (for the tests of the fallback).
int albumfs_open_beneath_walk(int rootfd, const char *path, int flags);

/// The calling thread's CPU nice value and I/O priority, for background work (the content
/// hashes of `duplicates/`) to lower them and put them back: both are per thread on Linux
/// (`setpriority` and `ioprio_set` given a thread id). In C because Swift sees neither `gettid`
/// (glibc declares it under _GNU_SOURCE) nor the variadic `syscall` that `ioprio_*` need.
/// Return 0, or -1 with errno set.
int albumfs_thread_priority_get(int *nice_value, int *io_priority);
int albumfs_thread_priority_set(int nice_value, int io_priority);

/// The I/O priority of the idle class: the thread's reads reach the disk only while no other
/// reads wait (with the kernel's BFQ or CFQ schedulers; others ignore classes).
int albumfs_io_priority_idle(void);

/// Names the calling thread (what `ps -L` and `/proc/PID/task/TID/comm` show; the kernel keeps
/// 15 bytes). In C because Swift sees neither `pthread_setname_np` (glibc declares it under
/// _GNU_SOURCE) nor the variadic `prctl`. Returns 0, or -1 with errno set.
int albumfs_thread_name_set(const char *name);

#endif
