#include "CPNGRows.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

enum { chunk = 65536 };

struct albumfs_png_rows {
    png_structp png;
    png_infop info;
    // The bytes: in memory, or read from `fd` (>= 0) a chunk at a time into `buffer`.
    const unsigned char *data;
    size_t size, offset;
    int fd, read_errno;
    unsigned char *buffer;
    size_t buffered, taken;
    char message[256];
    int failed;
};

static void on_error(png_structp png, png_const_charp message) {
    albumfs_png_rows *reader = png_get_error_ptr(png);
    snprintf(reader->message, sizeof reader->message, "%s", message);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void read_data(png_structp png, png_bytep out, size_t length) {
    albumfs_png_rows *reader = png_get_io_ptr(png);
    if (reader->fd < 0) {
        if (length > reader->size - reader->offset) png_error(png, "read beyond end of data");
        memcpy(out, reader->data + reader->offset, length);
        reader->offset += length;
        return;
    }
    // libpng asks for a few bytes at a time (chunk headers, 8 KiB of IDAT): one pread per chunk.
    while (length > 0) {
        if (reader->taken == reader->buffered) {
            ssize_t n;
            do n = pread(reader->fd, reader->buffer, chunk, (off_t)reader->offset); while (n < 0 && errno == EINTR);
            if (n < 0) {
                reader->read_errno = errno;
                png_error(png, "read error");
            }
            if (n == 0) png_error(png, "read beyond end of data");
            reader->offset += (size_t)n;
            reader->buffered = (size_t)n;
            reader->taken = 0;
        }
        size_t step = reader->buffered - reader->taken < length ? reader->buffered - reader->taken : length;
        memcpy(out, reader->buffer + reader->taken, step);
        reader->taken += step;
        out += step;
        length -= step;
    }
}

static void say(const albumfs_png_rows *reader, char *message, size_t message_size) {
    if (message_size > 0) snprintf(message, message_size, "%s", reader->message);
}

static albumfs_png_rows *start(albumfs_png_rows *reader, albumfs_png_rows_info *info, char *message,
                               size_t message_size, int *read_errno);

albumfs_png_rows *albumfs_png_rows_open(const unsigned char *data, size_t size, albumfs_png_rows_info *info,
                                        char *message, size_t message_size) {
    albumfs_png_rows *reader = calloc(1, sizeof *reader);
    if (!reader) {
        if (message_size > 0) snprintf(message, message_size, "out of memory");
        return NULL;
    }
    reader->data = data;
    reader->size = size;
    reader->fd = -1;
    return start(reader, info, message, message_size, NULL);
}

albumfs_png_rows *albumfs_png_rows_open_file(int fd, albumfs_png_rows_info *info, char *message, size_t message_size,
                                             int *read_errno) {
    *read_errno = 0;
    albumfs_png_rows *reader = calloc(1, sizeof *reader);
    if (reader) reader->buffer = malloc(chunk);
    if (!reader || !reader->buffer) {
        free(reader);
        if (message_size > 0) snprintf(message, message_size, "out of memory");
        return NULL;
    }
    reader->fd = fd;
    return start(reader, info, message, message_size, read_errno);
}

int albumfs_png_rows_read_errno(const albumfs_png_rows *reader) { return reader->read_errno; }

static albumfs_png_rows *start(albumfs_png_rows *reader, albumfs_png_rows_info *info, char *message,
                               size_t message_size, int *read_errno) {
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader, on_error, on_warning);
    if (reader->png) reader->info = png_create_info_struct(reader->png);
    if (!reader->png || !reader->info) {
        snprintf(reader->message, sizeof reader->message, "out of memory");
        say(reader, message, message_size);
        albumfs_png_rows_close(reader);
        return NULL;
    }
    if (setjmp(png_jmpbuf(reader->png))) {
        say(reader, message, message_size);
        if (read_errno) *read_errno = reader->read_errno;
        albumfs_png_rows_close(reader);
        return NULL;
    }
    png_set_read_fn(reader->png, reader, read_data);
    // A chunk whose checksum is wrong is used as it is, as libvips and browsers do: encoders that
    // write bad CRCs exist, and the data still decodes (damaged data still fails, in zlib or in
    // the row filters).
    png_set_crc_action(reader->png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
    png_read_info(reader->png, reader->info);
    int depth = png_get_bit_depth(reader->png, reader->info);
    int type = png_get_color_type(reader->png, reader->info);
    int interlaced = png_get_interlace_type(reader->png, reader->info) != PNG_INTERLACE_NONE;
    // Values brought to sRGB from the file's gamma (gAMA; none: sRGB already), straight alpha:
    // what the simplified API does for its 8-bit output. (png_set_gamma instead left 16-bit
    // samples linear once png_set_scale_16 was set.)
    png_set_alpha_mode_fixed(reader->png, PNG_ALPHA_PNG, PNG_DEFAULT_sRGB);
    if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(reader->png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(reader->png);
    if (png_get_valid(reader->png, reader->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(reader->png);
    // Rounded to 8 bits, as the simplified API does (png_set_strip_16 would truncate).
    if (depth == 16) png_set_scale_16(reader->png);
    if (type == PNG_COLOR_TYPE_GRAY || type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(reader->png);
    png_read_update_info(reader->png, reader->info);
    info->width = png_get_image_width(reader->png, reader->info);
    info->height = png_get_image_height(reader->png, reader->info);
    info->channels = png_get_channels(reader->png, reader->info);
    info->interlaced = interlaced;
    info->plain = info->channels == 3 || info->channels == 4;
    return reader;
}

int albumfs_png_rows_next(albumfs_png_rows *reader, unsigned char *row, char *message, size_t message_size) {
    if (reader->failed) {
        say(reader, message, message_size);
        return -1;
    }
    if (setjmp(png_jmpbuf(reader->png))) {
        reader->failed = 1;
        say(reader, message, message_size);
        return -1;
    }
    png_read_row(reader->png, row, NULL);
    return 0;
}

int albumfs_png_rows_icc_profile(const albumfs_png_rows *reader, const unsigned char **profile, uint32_t *length) {
    png_charp name = NULL;
    int compression = 0;
    png_bytep data = NULL;
    png_uint_32 size = 0;
    *profile = NULL;
    *length = 0;
    // (No longjmp: png_get_iCCP only looks at what png_read_info stored.)
    if (!png_get_iCCP(reader->png, reader->info, &name, &compression, &data, &size)) return 0;
    *profile = data;
    *length = size;
    return 1;
}

void albumfs_png_rows_close(albumfs_png_rows *reader) {
    if (!reader) return;
    if (reader->png) png_destroy_read_struct(&reader->png, reader->info ? &reader->info : NULL, NULL);
    free(reader->buffer);
    free(reader);
}
