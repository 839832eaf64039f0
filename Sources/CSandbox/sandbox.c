#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <seccomp.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <grp.h>
#include <unistd.h>

int albumfs_send_with_fd(int sock, const void *buf, size_t len, int fd) {
    const char *p = buf;
    int attach = fd >= 0;
    while (len > 0) {
        struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
        union { struct cmsghdr h; char space[CMSG_SPACE(sizeof(int))]; } control;
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
        if (attach) {
            memset(&control, 0, sizeof control);
            msg.msg_control = control.space;
            msg.msg_controllen = sizeof control.space;
            struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &fd, sizeof(int));
        }
        ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        attach = 0;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

ssize_t albumfs_recv_with_fd(int sock, void *buf, size_t len, int *fd) {
    *fd = -1;
    for (;;) {
        struct iovec iov = { .iov_base = buf, .iov_len = len };
        union { struct cmsghdr h; char space[CMSG_SPACE(4 * sizeof(int))]; } control;
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space,
                              .msg_controllen = sizeof control.space };
        ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
            size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < count; i++) {
                int got;
                memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (*fd < 0) *fd = got; else close(got);
            }
        }
        return n;
    }
}

int albumfs_close_from(int lowfd) { return close_range((unsigned)lowfd, ~0U, 0); }

int albumfs_die_with_parent(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) return -1;
    if (getppid() != parent) {
        errno = ESRCH;
        return -1;
    }
    return 0;
}

int albumfs_become(uid_t uid, gid_t gid) {
    if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) return -1;
    return 0;
}

int albumfs_seccomp_allow_only(const char *const *allowed, size_t count, int deny_errno, pid_t self) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(deny_errno));
    if (!ctx) return -ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        int nr = seccomp_syscall_resolve_name(allowed[i]);
        if (nr == __NR_SCMP_ERROR) continue;
        rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, 0, NULL);
    }
    // Threads, not processes: clone only with CLONE_THREAD (a process forked from a worker
    // would outlive the worker the daemon ends), and clone3, whose flags a filter cannot see,
    // answered ENOSYS, so that glibc falls back to clone.
    struct scmp_arg_cmp thread = { .arg = 0, .op = SCMP_CMP_MASKED_EQ, .datum_a = CLONE_THREAD, .datum_b = CLONE_THREAD };
    if (rc == 0) rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, &thread);
    if (rc == 0) rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0, NULL);
    // Limits of its own only (glibc's setrlimit is prlimit64 of pid 0): not another worker's.
    struct scmp_arg_cmp me = { .arg = 0, .op = SCMP_CMP_EQ, .datum_a = 0 };
    if (rc == 0) rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, &me);
    struct scmp_arg_cmp own = { .arg = 0, .op = SCMP_CMP_EQ, .datum_a = (scmp_datum_t)self };
    if (rc == 0) rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, &own);
    if (rc == 0) rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, &own);
    if (rc == 0) rc = seccomp_load(ctx);
    seccomp_release(ctx);
    return rc;
}
