// An arena per thread for libexif (why: include/CExifArena.h). Blocks are 16-byte aligned, each
// after a 16-byte header holding its size (for realloc); the arena is zero (as calloc's memory
// is) except what is in use, and zeroed again when its last use ends. What does not fit comes
// from calloc and goes back to free, as without the arena.
#include "CExifArena.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { arena_size = 128 * 1024, header = 16 };

struct arena {
    unsigned char *base;
    size_t used;
    int depth;
    /// Allocations this thread's arena could not hold (they came from calloc).
    unsigned long spills;
    /// Whether the thread's arena is freed when the thread ends (`owner` set for it).
    int owned;
};

static _Thread_local struct arena arena;
static atomic_ulong spilled;
/// Frees a thread's arena and allocator when the thread ends (reader threads end when idle).
static pthread_key_t owner;
static int have_owner;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int inside(const void *p) {
    return arena.base && (const unsigned char *)p >= arena.base && (const unsigned char *)p < arena.base + arena_size;
}

static void *take(ExifLong n) {
    if (arena.depth > 0) {
        if (!arena.base) arena.base = calloc(1, arena_size);
        // (At least one byte: a block of none would start where the next one's header does.)
        size_t need = (((size_t)(n ? n : 1) + 15) & ~(size_t)15) + header;
        if (arena.base && need <= arena_size - arena.used) {
            unsigned char *block = arena.base + arena.used;
            arena.used += need;
            memcpy(block, &(size_t){n}, sizeof(size_t));
            return block + header;
        }
        atomic_fetch_add_explicit(&spilled, 1, memory_order_relaxed);
        arena.spills++;
    }
    return calloc(1, n ? n : 1);
}

static void *grow(void *p, ExifLong n) {
    if (!p) return take(n);
    if (!inside(p)) return realloc(p, n);
    size_t old;
    memcpy(&old, (unsigned char *)p - header, sizeof(size_t));
    if (n <= old) return p;
    void *moved = take(n);
    if (moved) memcpy(moved, p, old);
    return moved;
}

static void drop(void *p) {
    if (p && !inside(p)) free(p);
}

/// At the thread's end (its thread-local storage is still there while key destructors run).
static void release(void *thread_arena) {
    struct arena *a = thread_arena;
    free(a->base);
    a->base = NULL;
    a->owned = 0;
}

static void setup(void) { have_owner = pthread_key_create(&owner, release) == 0; }

ExifMem *albumfs_exif_arena_begin(void) {
    pthread_once(&once, setup);
    if (!have_owner) return NULL;
    if (!arena.owned) {
        if (pthread_setspecific(owner, &arena) != 0) return NULL;
        arena.owned = 1;
    }
    arena.depth++;
    // An allocator per use, itself from the arena: libexif counts an ExifMem's users (each
    // ExifData, content and entry made with it takes a reference) without atomics, so one shared
    // by threads was freed under them; and one of the arena's own goes with it, whatever count
    // it was left at when a block's data is dropped without being freed.
    ExifMem *mem = exif_mem_new(take, grow, drop);
    if (!mem) albumfs_exif_arena_end();
    return mem;
}

void albumfs_exif_arena_end(void) {
    if (arena.depth > 0 && --arena.depth == 0 && arena.base) {
        memset(arena.base, 0, arena.used);
        arena.used = 0;
    }
}

unsigned long albumfs_exif_arena_spilled(void) { return atomic_load(&spilled); }

unsigned long albumfs_exif_arena_thread_spills(void) { return arena.spills; }
