#ifndef ALBUMFS_SANDBOX_H
#define ALBUMFS_SANDBOX_H
// What a render worker's sandbox needs from C: descriptors passed over a socket (the CMSG_*
// macros are not importable into Swift), close_range (declared only under _GNU_SOURCE), and a
// seccomp filter (libseccomp's SCMP_ACT_ERRNO and rule calls are macros and variadics).
#include <stddef.h>
#include <sys/types.h>

/// Sends `len` bytes of `buf` on the stream socket `sock`, with `fd` attached (SCM_RIGHTS) when
/// it is 0 or more. Writes everything (a short write goes on without the descriptor, which
/// travels with the first byte); EINTR retried. Returns 0, or -1 with errno set.
int albumfs_send_with_fd(int sock, const void *buf, size_t len, int fd);

/// Receives up to `len` bytes from `sock` into `buf`, and a descriptor passed with them into
/// `*fd` (-1 when none; any extra descriptor is closed, all arrive close-on-exec). EINTR retried.
/// Returns the bytes received (0 at the end of the stream), or -1 with errno set.
ssize_t albumfs_recv_with_fd(int sock, void *buf, size_t len, int *fd);

/// Closes every descriptor from `lowfd` up. Returns 0, or -1 with errno set.
int albumfs_close_from(int lowfd);

/// Becomes user `uid` and group `gid` for good, with no supplementary groups (setresuid and
/// setresgid are declared only under _GNU_SOURCE). Returns 0, or -1 with errno set.
int albumfs_become(uid_t uid, gid_t gid);

/// Asks for SIGKILL when the thread that started this process ends (`PR_SET_PDEATHSIG`; prctl is
/// variadic), then checks that process `parent` is still the parent (it may have died before).
/// Returns 0, or -1 (errno set, or ESRCH when the parent is gone).
int albumfs_die_with_parent(pid_t parent);

/// Loads a seccomp filter into the calling thread (and the threads it starts): the system calls
/// named in `allowed` (libseccomp's names; a name unknown on this architecture is passed over)
/// are allowed, `clone` of threads (not processes; `clone3` answers ENOSYS), `prlimit64` of
/// itself, and `kill` and
/// `tgkill` aimed at the process `self` (abort's raise); every other
/// one fails with `deny_errno`. Sets no_new_privs first (needed without CAP_SYS_ADMIN). Returns
/// 0, or a negative errno.
int albumfs_seccomp_allow_only(const char *const *allowed, size_t count, int deny_errno, pid_t self);

#endif
