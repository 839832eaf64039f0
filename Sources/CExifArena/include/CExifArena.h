#ifndef ALBUMFS_CEXIFARENA_H
#define ALBUMFS_CEXIFARENA_H
// Memory for libexif taken from an arena of the calling thread while one EXIF block is read:
// libexif makes ~40 small allocations for a block (its data, a content per IFD, every entry and
// its value) and frees them all a moment later; a scan of 100,000 photos made ~4 million.
#include <libexif/exif-mem.h>

/// Begins the use of this thread's arena (uses nest) and returns an allocator that takes from
/// it, for `exif_data_new_mem`, valid until the matching `albumfs_exif_arena_end`. An `ExifData`
/// made with it must be used on this thread only, and before that end either freed
/// (`exif_data_unref`: its frees cost nothing) or, when none of its allocations spilled
/// (`albumfs_exif_arena_thread_spills` unchanged since this begin), simply dropped: the arena
/// and the allocator itself are emptied as a whole. NULL when no allocator could be made (no
/// use begun then).
ExifMem *albumfs_exif_arena_begin(void);

/// Ends a use begun on this thread; the last one ends empties the arena for the next block.
void albumfs_exif_arena_end(void);

/// How many allocations the arena could not hold since the process started (they came from
/// calloc): for tests.
unsigned long albumfs_exif_arena_spilled(void);

/// How many allocations this thread's arena could not hold so far (they came from calloc, and
/// must go back to free: the `ExifData` holding them is freed, not dropped).
unsigned long albumfs_exif_arena_thread_spills(void);
#endif
