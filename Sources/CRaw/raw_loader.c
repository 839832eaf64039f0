// LibRaw, opened with dlopen on first use (why: include/CRaw.h). Each LibRaw function albumfs
// calls is defined here under its own name, with the prototype from <libraw/libraw.h> (the
// compiler checks they agree), and jumps to the function of that name in the loaded library.
#include "CRaw.h"
#include "CLoader.h"
#include <pthread.h>

#define RAW_FUNCTIONS(X) \
    X(libraw_data_t *, libraw_init, (unsigned int flags), (flags)) \
    X(int, libraw_open_buffer, (libraw_data_t *d, void *buffer, size_t size), (d, buffer, size)) \
    X(int, libraw_unpack, (libraw_data_t *d), (d)) \
    X(int, libraw_unpack_thumb, (libraw_data_t *d), (d)) \
    X(int, libraw_dcraw_process, (libraw_data_t *d), (d)) \
    X(libraw_processed_image_t *, libraw_dcraw_make_mem_image, (libraw_data_t *d, int *errc), (d, errc)) \
    X(libraw_processed_image_t *, libraw_dcraw_make_mem_thumb, (libraw_data_t *d, int *errc), (d, errc)) \
    X(const char *, libraw_strerror, (int code), (code))

#define RAW_VOID(X) \
    X(libraw_close, (libraw_data_t *d), (d)) \
    X(libraw_dcraw_clear_mem, (libraw_processed_image_t *i), (i))

ALBUMFS_LOADER_TABLE(RAW_FUNCTIONS, RAW_VOID)

// The thread-safe build (`_r`): renders of two RAWs may run at once in one process.
static const char *const libraries[] = { "libraw_r.so.20" };
static const char *failure;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    failure = albumfs_load_functions(libraries, 1, names, functions, function_count, "libraw_r.so.20 lacks a function albumfs calls");
}

const char *albumfs_raw_load(void) {
    pthread_once(&once, load);
    return failure;
}

ALBUMFS_LOADER_JUMPS(RAW_FUNCTIONS, RAW_VOID)
