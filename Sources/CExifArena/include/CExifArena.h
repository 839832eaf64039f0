#ifndef ALBUMFS_CEXIFARENA_H
#define ALBUMFS_CEXIFARENA_H
// Memory for libexif taken from an arena of the calling thread while one EXIF block is read:
// libexif makes ~40 small allocations for a block (its data, a content per IFD, every entry and
// its value) and frees them all a moment later; a scan of 100,000 photos made ~4 million.
#include <libexif/exif-mem.h>

/// Begins the use of this thread's arena (uses nest) and returns this thread's allocator, which
/// takes from it, for `exif_data_new_mem`. Every `ExifData` made with it must be freed
/// (`exif_data_unref`) on this thread before the matching `albumfs_exif_arena_end`; its frees
/// cost nothing then. NULL when no allocator could be made.
ExifMem *albumfs_exif_arena_begin(void);

/// Ends a use begun on this thread; the last one ends empties the arena for the next block.
void albumfs_exif_arena_end(void);

/// How many allocations the arena could not hold since the process started (they came from
/// calloc): for tests.
unsigned long albumfs_exif_arena_spilled(void);
#endif
