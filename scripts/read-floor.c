// The floor under any header scan on this machine: opens, fstat()s, reads (up to 64 KiB) and
// closes every file named on stdin, with N threads, and nothing else: no parsing, no index, no
// views. scripts/bench prints its time beside albumfs's first scan.
//   cc -O2 -pthread scripts/read-floor.c -o read-floor -luring
//   find DIR -type f -printf '%i %p\n' | sort -n | cut -d' ' -f2- | ./read-floor THREADS [CHUNK]
// CHUNK 0 reads file by file (pread); CHUNK > 0 opens CHUNK files, then reads their first blocks
// with one io_uring submission, as albumfs's reader threads do (list the files in inode order).
#define _GNU_SOURCE
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "floor-reads.h"
#include "floor-paths.h"

static char **paths;
static size_t count;
static size_t next_index;
static size_t chunk = 16;
static int use_ring;
static pthread_mutex_t next_lock = PTHREAD_MUTEX_INITIALIZER;

static void *reader(void *unused) {
    (void)unused;
    struct io_uring ring;
    if (use_ring && io_uring_queue_init(max_chunk, &ring, 0) != 0) { perror("io_uring_queue_init"); exit(1); }
    char *buffer = malloc(use_ring ? chunk * max_read : max_read);
    int fds[max_chunk];
    for (;;) {
        pthread_mutex_lock(&next_lock);
        size_t start = next_index;
        next_index += chunk;
        pthread_mutex_unlock(&next_lock);
        if (start >= count) break;
        size_t end = start + chunk < count ? start + chunk : count, n = 0;
        for (size_t i = start; i < end; i++) {
            size_t length;
            int fd = open_for_header(AT_FDCWD, paths[i], &length);
            if (fd < 0) continue;
            if (!use_ring) {
                (void)!pread(fd, buffer, length, 0);
                close(fd);
                continue;
            }
            io_uring_prep_read(io_uring_get_sqe(&ring), fd, buffer + n * max_read, length, 0);
            fds[n++] = fd;
        }
        if (n == 0) continue;
        read_all(&ring, n);
        for (size_t k = 0; k < n; k++) close(fds[k]);
    }
    if (use_ring) io_uring_queue_exit(&ring);
    free(buffer);
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 16;
    long c = argc > 2 ? atol(argv[2]) : 0;
    if (threads < 1 || threads > 1024 || c < 0 || c > max_chunk) {
        fprintf(stderr, "usage: read-floor [THREADS [CHUNK ≤ %d]] < list of files\n", max_chunk);
        return 2;
    }
    use_ring = c > 0;
    if (use_ring) chunk = (size_t)c;
    if (read_paths("read-floor", &paths, &count) != 0) return 1;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pthread_t ids[1024];
    for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, reader, NULL);
    for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.3f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
    return 0;
}
