#ifndef ALBUMFS_CURING_H
#define ALBUMFS_CURING_H
// Many reads submitted with one system call, through io_uring (Debian's liburing-dev).
// <liburing.h> is not imported into Swift: its inline functions are its API, and its system
// headers clash with Swift's Glibc module (fd_set "not present in definition"). These three calls
// are the whole of what albumfs uses, in plain C types.
#include <stddef.h>

typedef struct albumfs_ring albumfs_ring;

#define ALBUMFS_RING_READS_IN_FLIGHT 1

/// A ring with room for `entries` reads in flight; NULL with errno set when the kernel has no
/// io_uring or forbids it (seccomp, kernel.io_uring_disabled).
albumfs_ring *albumfs_ring_create(unsigned entries);

void albumfs_ring_destroy(albumfs_ring *ring);

/// Reads `lengths[i]` bytes at offset 0 of `fds[i]` into `buffers[i]`, for every i < count, all
/// submitted together (the block layer merges reads of adjacent blocks), and waits for all.
/// `results[i]` is the byte count read (short only at end of file) or -errno.
/// Returns 0, or -errno when the ring itself failed (no result is then meaningful), or
/// ALBUMFS_RING_READS_IN_FLIGHT when it failed and reads may still complete into `buffers`
/// (never seen; the buffers must then outlive the process's use of them).
int albumfs_ring_read_all(albumfs_ring *ring, unsigned count, const int *fds, void *const *buffers,
                          const unsigned *lengths, int *results);
#endif
