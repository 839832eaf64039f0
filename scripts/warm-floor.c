// The floors under a warm read through FUSE on this machine, for scripts/bench-warm-reads: a
// minimal low-level daemon that serves the files named on stdin, flat, as f0 … fN-1, with long
// entry and attribute timeouts, on the same loop as albumfs (32 threads at most, 16 idle), and
// nothing else: no tree, no checks, no deadlines.
//   cc -O2 scripts/warm-floor.c -o warm-floor $(pkg-config --cflags --libs fuse3)
//   ./warm-floor open|no-open MOUNTPOINT < list-of-files     (serves until unmounted)
// open:    each open is answered with a descriptor and keep_cache, each release closes it: what a
//          warm `cat` costs when the daemon answers OPEN and RELEASE and nothing more.
// no-open: open answers ENOSYS, so the kernel stops sending OPEN and RELEASE for the mount
//          (FUSE_CAP_NO_OPEN_SUPPORT) and keeps pages between opens; a read opens by inode.
#define FUSE_USE_VERSION 312
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fuse3/fuse_lowlevel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "floor-paths.h"

static char **paths;
static size_t count;
static int no_open;
static const double timeout = 3600;

// The file behind inode `ino` (2 … count+1), or NULL.
static const char *path_of(fuse_ino_t ino) { return ino >= 2 && ino - 2 < count ? paths[ino - 2] : NULL; }

static int stat_of(fuse_ino_t ino, struct stat *st) {
    memset(st, 0, sizeof *st);
    if (ino == FUSE_ROOT_ID) {
        st->st_ino = ino;
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
        return 0;
    }
    const char *path = path_of(ino);
    if (!path) return ENOENT;
    if (stat(path, st) != 0) return errno;
    st->st_ino = ino;
    return 0;
}

static void floor_lookup(fuse_req_t req, fuse_ino_t parent, const char *name) {
    char *end;
    if (parent != FUSE_ROOT_ID || name[0] != 'f' || name[1] == 0) { fuse_reply_err(req, ENOENT); return; }
    unsigned long i = strtoul(name + 1, &end, 10);
    if (*end != 0 || i >= count) { fuse_reply_err(req, ENOENT); return; }
    struct fuse_entry_param e = { .ino = i + 2, .attr_timeout = timeout, .entry_timeout = timeout };
    int err = stat_of(e.ino, &e.attr);
    if (err) fuse_reply_err(req, err);
    else fuse_reply_entry(req, &e);
}

static void floor_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    (void)fi;
    struct stat st;
    int err = stat_of(ino, &st);
    if (err) fuse_reply_err(req, err);
    else fuse_reply_attr(req, &st, timeout);
}

static void floor_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    const char *path = path_of(ino);
    if (!path) { fuse_reply_err(req, ENOENT); return; }
    if (no_open) { fuse_reply_err(req, ENOSYS); return; }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { fuse_reply_err(req, errno); return; }
    fi->fh = (uint64_t)fd;
    fi->keep_cache = 1;
    if (fuse_reply_open(req, fi) != 0) close(fd);
}

static void floor_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi) {
    const char *path = path_of(ino);
    int fd = no_open ? (path ? open(path, O_RDONLY | O_CLOEXEC) : -1) : (int)fi->fh;
    char *buffer = malloc(size ? size : 1);
    ssize_t n = fd >= 0 && buffer ? pread(fd, buffer, size, off) : -1;
    int err = n < 0 ? (errno ? errno : EIO) : 0;
    if (no_open && fd >= 0) close(fd);
    if (err) fuse_reply_err(req, err);
    else fuse_reply_buf(req, buffer, (size_t)n);
    free(buffer);
}

static void floor_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    (void)ino;
    close((int)fi->fh);
    fuse_reply_err(req, 0);
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "open") != 0 && strcmp(argv[1], "no-open") != 0)) {
        fprintf(stderr, "usage: warm-floor open|no-open MOUNTPOINT < list of files\n");
        return 2;
    }
    no_open = strcmp(argv[1], "no-open") == 0;
    if (read_paths("warm-floor", &paths, &count) != 0) return 1;
    struct fuse_lowlevel_ops ops = {
        .lookup = floor_lookup, .getattr = floor_getattr, .open = floor_open,
        .read = floor_read, .release = floor_release,
    };
    char *words[] = { argv[0], "-o", "fsname=warm-floor,ro", NULL };
    struct fuse_args args = FUSE_ARGS_INIT(3, words);
    struct fuse_session *se = fuse_session_new(&args, &ops, sizeof ops, NULL);
    if (!se) return 1;
    if (fuse_set_signal_handlers(se) != 0 || fuse_session_mount(se, argv[2]) != 0) return 1;
    struct fuse_loop_config *config = fuse_loop_cfg_create();
    if (!config) return 1;
    fuse_loop_cfg_set_max_threads(config, 32);
    fuse_loop_cfg_set_idle_threads(config, 16);
    int rc = fuse_session_loop_mt(se, config);
    fuse_loop_cfg_destroy(config);
    fuse_session_unmount(se);
    fuse_remove_signal_handlers(se);
    fuse_session_destroy(se);
    return rc < 0 ? 1 : 0;
}
