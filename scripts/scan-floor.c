// The floor under a whole first scan on this machine, in C: what any scanner must do to date a
// folder tree of JPEGs, and nothing more. One thread walks DIR (each folder listed, its files
// sorted by inode, as albumfs walks) while THREADS reader threads take the files found, a chunk at
// a time: open, fstat, read the first 64 KiB of each through one io_uring submission per chunk,
// close, then find the EXIF APP1 segment and give it to libexif for DateTimeOriginal. No index,
// no views, no mount, no rules. scripts/bench prints its time (page cache dropped) beside
// albumfs's first scan and exiftool: if this alone takes longer than a hundredth of exiftool's
// time, no scanner on this machine reaches 100x.
//   cc -O2 -pthread scripts/scan-floor.c -o scan-floor -luring -lexif
//   ./scan-floor DIR [THREADS [CHUNK]]        (defaults 2, 32) -> "SECONDS FILES DATES"
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <libexif/exif-data.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "floor-reads.h"

static int root;
static char **paths;
static size_t count, capacity, taken;
static int walk_done;
static size_t chunk = 32;
static long dates_found;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;

struct entry { ino_t inode; char *path; };

static int by_inode(const void *a, const void *b) {
    ino_t x = ((const struct entry *)a)->inode, y = ((const struct entry *)b)->inode;
    return x < y ? -1 : x > y;
}

static char *join(const char *folder, const char *name) {
    char *p;
    if (asprintf(&p, "%s%s%s", folder, *folder ? "/" : "", name) < 0) { perror("asprintf"); exit(1); }
    return p;
}

// Lists one folder: its files go to the readers (by inode), its folders are walked after.
static void walk(const char *folder) {
    int fd = *folder ? openat(root, folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : dup(root);
    if (fd < 0) return;
    DIR *dir = fdopendir(fd);
    if (!dir) { close(fd); return; }
    struct entry *files = NULL, *folders = NULL;
    size_t nfiles = 0, nfolders = 0, cfiles = 0, cfolders = 0;
    struct dirent *d;
    while ((d = readdir(dir))) {
        if (d->d_name[0] == '.') continue;
        if (d->d_type == DT_REG) {
            if (nfiles == cfiles) files = realloc(files, (cfiles = cfiles ? cfiles * 2 : 256) * sizeof *files);
            files[nfiles++] = (struct entry){d->d_ino, join(folder, d->d_name)};
        } else if (d->d_type == DT_DIR) {
            if (nfolders == cfolders) folders = realloc(folders, (cfolders = cfolders ? cfolders * 2 : 16) * sizeof *folders);
            folders[nfolders++] = (struct entry){d->d_ino, join(folder, d->d_name)};
        }
    }
    closedir(dir);
    qsort(files, nfiles, sizeof *files, by_inode);
    pthread_mutex_lock(&lock);
    if (count + nfiles > capacity) {
        while (count + nfiles > capacity) capacity = capacity ? capacity * 2 : 4096;
        paths = realloc(paths, capacity * sizeof *paths);
        if (!paths) { perror("realloc"); exit(1); }
    }
    for (size_t i = 0; i < nfiles; i++) paths[count++] = files[i].path;
    pthread_cond_broadcast(&more);
    pthread_mutex_unlock(&lock);
    free(files);
    for (size_t i = 0; i < nfolders; i++) { walk(folders[i].path); free(folders[i].path); }
    free(folders);
}

// DateTimeOriginal from the EXIF APP1 segment of a JPEG's first bytes, as albumfs reads it.
static int has_date(const unsigned char *b, size_t n) {
    if (n < 4 || b[0] != 0xFF || b[1] != 0xD8) return 0;
    size_t i = 2;
    while (i + 4 <= n && b[i] == 0xFF && b[i + 1] != 0xDA) {
        size_t length = (size_t)b[i + 2] << 8 | b[i + 3];
        if (b[i + 1] == 0xE1 && length >= 8 && i + 2 + length <= n && memcmp(b + i + 4, "Exif\0\0", 6) == 0) {
            ExifData *e = exif_data_new();
            if (!e) return 0;
            exif_data_unset_option(e, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
            exif_data_load_data(e, b + i + 4, (unsigned)(length - 2));
            ExifEntry *d = exif_content_get_entry(e->ifd[EXIF_IFD_EXIF], EXIF_TAG_DATE_TIME_ORIGINAL);
            int found = d && d->size >= 19;
            exif_data_unref(e);
            return found;
        }
        i += 2 + length;
    }
    return 0;
}

static void *reader(void *unused) {
    (void)unused;
    struct io_uring ring;
    if (io_uring_queue_init(max_chunk, &ring, 0) != 0) { perror("io_uring_queue_init"); exit(1); }
    unsigned char *buffer = malloc(chunk * max_read);
    int fds[max_chunk];
    size_t lengths[max_chunk];
    long dates = 0;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (taken >= count && !walk_done) pthread_cond_wait(&more, &lock);
        if (taken >= count) { pthread_mutex_unlock(&lock); break; }
        size_t start = taken, end = start + chunk < count ? start + chunk : count;
        taken = end;
        char *mine[max_chunk];
        for (size_t i = start; i < end; i++) mine[i - start] = paths[i];
        pthread_mutex_unlock(&lock);
        size_t n = 0;
        for (size_t k = 0; k < end - start; k++) {
            int fd = open_for_header(root, mine[k], &lengths[n]);
            if (fd < 0) continue;
            io_uring_prep_read(io_uring_get_sqe(&ring), fd, buffer + n * max_read, lengths[n], 0);
            fds[n++] = fd;
        }
        if (n == 0) continue;
        read_all(&ring, n);
        for (size_t k = 0; k < n; k++) {
            close(fds[k]);
            dates += has_date(buffer + k * max_read, lengths[k]);
        }
    }
    __atomic_add_fetch(&dates_found, dates, __ATOMIC_RELAXED);
    io_uring_queue_exit(&ring);
    free(buffer);
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 2 ? atoi(argv[2]) : 2;
    long c = argc > 3 ? atol(argv[3]) : 32;
    if (argc < 2 || threads < 1 || threads > 64 || c < 1 || c > max_chunk) {
        fprintf(stderr, "usage: scan-floor DIR [THREADS ≤ 64 [CHUNK ≤ %d]]\n", max_chunk);
        return 2;
    }
    chunk = (size_t)c;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    root = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) { perror(argv[1]); return 1; }
    pthread_t ids[64];
    for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, reader, NULL);
    walk("");
    pthread_mutex_lock(&lock);
    walk_done = 1;
    pthread_cond_broadcast(&more);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.3f %zu %ld\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9, count, dates_found);
    return 0;
}
