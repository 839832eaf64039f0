// A thin wrapper of liburing (see CURing.h for why it is not imported directly).
#include "CURing.h"

#include <errno.h>
#include <liburing.h>
#include <stdlib.h>

struct albumfs_ring {
    struct io_uring ring;
    unsigned entries;
};

albumfs_ring *albumfs_ring_create(unsigned entries) {
    albumfs_ring *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    int rc = io_uring_queue_init(entries, &r->ring, 0);
    if (rc < 0) {
        free(r);
        errno = -rc;
        return NULL;
    }
    r->entries = entries;
    return r;
}

void albumfs_ring_destroy(albumfs_ring *r) {
    if (!r) return;
    io_uring_queue_exit(&r->ring);
    free(r);
}

// Waits for `in_flight` completions, so the kernel writes into no caller's buffer after the call
// returns even when the ring failed; false when that could not be made sure of.
static int drain(albumfs_ring *r, unsigned in_flight) {
    while (in_flight > 0) {
        struct io_uring_cqe *cqe;
        int rc = io_uring_wait_cqe(&r->ring, &cqe);
        if (rc == -EINTR) continue;
        if (rc < 0) return 0;
        io_uring_cqe_seen(&r->ring, cqe);
        in_flight--;
    }
    return 1;
}

int albumfs_ring_read_all(albumfs_ring *r, unsigned count, const int *fds, void *const *buffers,
                          const unsigned *lengths, int *results) {
    unsigned submitted = 0, completed = 0;
    while (completed < count) {
        // As many as the ring has room for, then wait for at least one before queueing more.
        while (submitted < count && submitted - completed < r->entries) {
            struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
            if (!sqe) break;
            io_uring_prep_read(sqe, fds[submitted], buffers[submitted], lengths[submitted], 0);
            io_uring_sqe_set_data64(sqe, submitted);
            submitted++;
        }
        int rc;
        do rc = io_uring_submit_and_wait(&r->ring, 1); while (rc == -EINTR);
        if (rc < 0) {
            return drain(r, submitted - io_uring_sq_ready(&r->ring) - completed) ? rc : ALBUMFS_RING_READS_IN_FLIGHT;
        }
        struct io_uring_cqe *cqe;
        while (io_uring_peek_cqe(&r->ring, &cqe) == 0) {
            unsigned i = (unsigned)io_uring_cqe_get_data64(cqe);
            if (i < count) results[i] = cqe->res;
            io_uring_cqe_seen(&r->ring, cqe);
            completed++;
        }
    }
    return 0;
}
