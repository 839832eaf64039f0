// What scripts/read-floor.c and scripts/scan-floor.c do alike: open a file for its header as
// albumfs does, and read the first blocks of a chunk of files through one io_uring submission.
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

enum { max_read = 65536, max_chunk = 256 };

// Opens `path` (relative to `dir`) without touching its access time when allowed, as albumfs
// does; *length is how much of it a header read takes. -1 for a file that cannot be opened or is
// empty.
static int open_for_header(int dir, const char *path, size_t *length) {
    int fd = openat(dir, path, O_RDONLY | O_NOATIME | O_CLOEXEC);
    if (fd < 0) fd = openat(dir, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size == 0) {
        close(fd);
        return -1;
    }
    *length = st.st_size < max_read ? (size_t)st.st_size : max_read;
    return fd;
}

// Submits the `n` reads prepared on `ring` and waits for every one.
static void read_all(struct io_uring *ring, size_t n) {
    if (io_uring_submit_and_wait(ring, n) < 0) { perror("io_uring_submit_and_wait"); exit(1); }
    for (size_t k = 0; k < n; k++) {
        struct io_uring_cqe *cqe;
        if (io_uring_wait_cqe(ring, &cqe) != 0) { perror("io_uring_wait_cqe"); exit(1); }
        io_uring_cqe_seen(ring, cqe);
    }
}
