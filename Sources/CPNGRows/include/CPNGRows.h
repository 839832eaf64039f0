#ifndef ALBUMFS_CPNGROWS_H
#define ALBUMFS_CPNGROWS_H
// A PNG read one row at a time, so a huge image is shrunk as it is decoded instead of being held
// whole (libpng's simplified API, used for every other PNG, decodes the whole image at once).
// libpng's row-by-row API reports errors with longjmp, which must never cross a Swift frame: the
// setjmp lives here, in each call, and Swift only sees return values.
#include <stddef.h>
#include <stdint.h>

typedef struct albumfs_png_rows albumfs_png_rows;

typedef struct {
    uint32_t width, height;
    /// 3 (RGB) or 4 (RGBA): palettes expanded, grey made RGB, transparency made alpha.
    int channels;
    /// Whether rows come out as the simplified API would give them (8-bit sRGB, straight alpha:
    /// 16-bit samples rounded, another gamma converted). Otherwise the caller decodes the usual way.
    int plain;
    /// Whether the image is Adam7-interlaced: rows then come pass by pass, each pass's rows
    /// holding only that pass's pixels (libpng's interlace handling, which needs the whole image
    /// in memory, is left off); empty passes are skipped.
    int interlaced;
} albumfs_png_rows_info;

/// Starts reading the PNG in `data` (which must outlive the reader). NULL when it cannot even be
/// started, with the reason in `message`.
albumfs_png_rows *albumfs_png_rows_open(const unsigned char *data, size_t size, albumfs_png_rows_info *info,
                                        char *message, size_t message_size);

/// As albumfs_png_rows_open, reading the PNG from the open file `fd` from its start (pread, 64 KiB
/// at a time; `fd` must stay open until albumfs_png_rows_close). When it fails because the file
/// could not be read, `read_errno` says why (else 0).
albumfs_png_rows *albumfs_png_rows_open_file(int fd, albumfs_png_rows_info *info, char *message, size_t message_size,
                                             int *read_errno);

/// The errno of a failed read of the file (0: none), once a call has failed.
int albumfs_png_rows_read_errno(const albumfs_png_rows *reader);

/// Decodes the next row (of the next pass, when interlaced) into `row` (up to width × channels bytes). 0, or -1 with the reason in
/// `message` (the reader is then done: every later call fails).
int albumfs_png_rows_next(albumfs_png_rows *reader, unsigned char *row, char *message, size_t message_size);

/// The ICC profile of the PNG's `iCCP` chunk, inflated and checked by libpng (a profile that does
/// not fit the image's colour type is dropped with a warning): 1 with the profile (valid until
/// albumfs_png_rows_close), or 0 when there is none.
int albumfs_png_rows_icc_profile(const albumfs_png_rows *reader, const unsigned char **profile, uint32_t *length);

void albumfs_png_rows_close(albumfs_png_rows *reader);
#endif
