// The floor under any header scan on this machine: opens, fstat()s, reads (up to 64 KiB) and
// closes every file named on stdin, with N threads, and nothing else: no parsing, no index, no
// views. scripts/bench prints its time beside albumfs's first scan.
//   cc -O2 -pthread scripts/read-floor.c -o read-floor && find DIR -type f | ./read-floor 16
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char **paths;
static size_t count;
static size_t next_index;
static pthread_mutex_t next_lock = PTHREAD_MUTEX_INITIALIZER;
enum { chunk = 16, max_read = 65536 };

static void *reader(void *unused) {
    (void)unused;
    static __thread char buffer[max_read];
    for (;;) {
        pthread_mutex_lock(&next_lock);
        size_t start = next_index;
        next_index += chunk;
        pthread_mutex_unlock(&next_lock);
        if (start >= count) return NULL;
        for (size_t i = start; i < start + chunk && i < count; i++) {
            int fd = open(paths[i], O_RDONLY | O_NOATIME | O_CLOEXEC);
            if (fd < 0) fd = open(paths[i], O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            struct stat st;
            if (fstat(fd, &st) == 0 && st.st_size > 0)
                (void)!pread(fd, buffer, st.st_size < max_read ? (size_t)st.st_size : max_read, 0);
            close(fd);
        }
    }
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 16;
    if (threads < 1 || threads > 1024) { fprintf(stderr, "usage: read-floor [THREADS] < list of files\n"); return 2; }
    size_t capacity = 1024;
    paths = malloc(capacity * sizeof *paths);
    char *line = NULL;
    size_t size = 0;
    ssize_t n;
    while ((n = getline(&line, &size, stdin)) > 0) {
        if (line[n - 1] == '\n') line[n - 1] = 0;
        if (count == capacity) paths = realloc(paths, (capacity *= 2) * sizeof *paths);
        if (!paths || !(paths[count++] = strdup(line))) { perror("read-floor"); return 1; }
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pthread_t ids[1024];
    for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, reader, NULL);
    for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.3f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
    return 0;
}
