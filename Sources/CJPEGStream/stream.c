#include "CJPEGStream.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>

enum { chunk = 65536 };

struct albumfs_jpeg {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr errors;
    struct jpeg_source_mgr source;
    jmp_buf jump;
    int created, started;
    // Where the bytes come from: a file range, or a private copy in memory.
    int fd;
    int64_t start, offset, end;
    unsigned char *memory;
    size_t memory_size;
    int read_errno, has_message, failed;
    // The data ended (a fake EOI was handed over); image data was wanted after that; the verdict.
    int hit_end, data_missing, cut_short;
    char message[JMSG_LENGTH_MAX];
    unsigned char buffer[chunk];
};

static albumfs_jpeg *of(j_common_ptr cinfo) {
    return (albumfs_jpeg *)((char *)cinfo - offsetof(albumfs_jpeg, cinfo));
}

static void on_error(j_common_ptr cinfo) {
    albumfs_jpeg *d = of(cinfo);
    (*cinfo->err->format_message)(cinfo, d->message);
    d->has_message = 1;
    d->failed = 1;
    longjmp(d->jump, 1);
}

// Warnings (corrupt bytes, a file cut short) let decoding go on, as viewers show such files; the
// first is kept to say what happened.
static void on_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    albumfs_jpeg *d = of(cinfo);
    cinfo->err->num_warnings++;
    int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF) d->hit_end = 1;
    // Past the end, the entropy decoder wanting bits it has not got (or a restart marker) means
    // rows are missing; without either, only the EOI marker was (some phones and copies lose it).
    else if (d->hit_end && (code == JWRN_HIT_MARKER || code == JWRN_MUST_RESYNC)) d->data_missing = 1;
    if (!d->has_message) {
        (*cinfo->err->format_message)(cinfo, d->message);
        d->has_message = 1;
    }
}

static void init_source(j_decompress_ptr cinfo) { (void)cinfo; }
static void term_source(j_decompress_ptr cinfo) { (void)cinfo; }

// The end of the data: a warning and a fake EOI marker, as libjpeg's own sources do, so a cut
// file ends its scan with grey rows instead of an error.
static boolean end_of_data(j_decompress_ptr cinfo) {
    albumfs_jpeg *d = of((j_common_ptr)cinfo);
    WARNMS(cinfo, JWRN_JPEG_EOF);
    d->buffer[0] = 0xFF;
    d->buffer[1] = JPEG_EOI;
    d->source.next_input_byte = d->buffer;
    d->source.bytes_in_buffer = 2;
    return TRUE;
}

static boolean fill_from_file(j_decompress_ptr cinfo) {
    albumfs_jpeg *d = of((j_common_ptr)cinfo);
    int64_t left = d->end - d->offset;
    if (left <= 0) return end_of_data(cinfo);
    size_t want = left < chunk ? (size_t)left : chunk;
    ssize_t n;
    do n = pread(d->fd, d->buffer, want, d->offset); while (n < 0 && errno == EINTR);
    if (n < 0) {
        d->read_errno = errno;
        ERREXIT(cinfo, JERR_FILE_READ);
    }
    if (n == 0) return end_of_data(cinfo);  // the file shrank under us
    d->offset += n;
    d->source.next_input_byte = d->buffer;
    d->source.bytes_in_buffer = (size_t)n;
    return TRUE;
}

static boolean fill_from_memory(j_decompress_ptr cinfo) {
    // Everything was handed over at once: asked for more means the data ended.
    return end_of_data(cinfo);
}

// Skipped segments (extended XMP, depth maps) are never read from the file.
static void skip(j_decompress_ptr cinfo, long count) {
    albumfs_jpeg *d = of((j_common_ptr)cinfo);
    if (count <= 0) return;
    if ((size_t)count <= d->source.bytes_in_buffer) {
        d->source.next_input_byte += count;
        d->source.bytes_in_buffer -= (size_t)count;
        return;
    }
    count -= (long)d->source.bytes_in_buffer;
    d->source.bytes_in_buffer = 0;
    if (d->fd < 0) {  // all in memory: nothing beyond
        end_of_data(cinfo);
        return;
    }
    d->offset += count;
}

// A band's restart markers count from wherever the band starts: any RSTn is the one expected
// (a marker missing or damaged is still the library's to resync).
static boolean any_restart(j_decompress_ptr cinfo, int desired) {
    int marker = cinfo->unread_marker;
    if (marker >= (int)JPEG_RST0 && marker <= (int)JPEG_RST0 + 7) {
        cinfo->unread_marker = 0;
        return TRUE;
    }
    return jpeg_resync_to_restart(cinfo, desired);
}

static albumfs_jpeg *create(void) {
    albumfs_jpeg *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->cinfo.err = jpeg_std_error(&d->errors);
    d->errors.error_exit = on_error;
    d->errors.emit_message = on_message;
    if (setjmp(d->jump)) {
        free(d);
        return NULL;
    }
    jpeg_create_decompress(&d->cinfo);
    d->created = 1;
    // APP2 segments are kept as the header is read: an ICC profile travels in them (whole
    // segments, as jpeg_read_icc_profile wants).
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);
    d->source.init_source = init_source;
    d->source.term_source = term_source;
    d->source.skip_input_data = skip;
    d->source.resync_to_restart = jpeg_resync_to_restart;
    d->cinfo.src = &d->source;
    return d;
}

albumfs_jpeg *albumfs_jpeg_new_file(int fd, int64_t start, int64_t length) {
    albumfs_jpeg *d = create();
    if (!d) return NULL;
    d->fd = fd;
    d->start = start;
    d->offset = start;
    d->end = start + length;
    d->source.fill_input_buffer = fill_from_file;
    return d;
}

// A decoder whose first bytes are a private copy of `size` bytes at `data` (freed with it): NULL
// when out of memory.
static albumfs_jpeg *create_with_copy(const unsigned char *data, size_t size) {
    albumfs_jpeg *d = create();
    if (!d) return NULL;
    d->memory = malloc(size ? size : 1);
    if (!d->memory) {
        albumfs_jpeg_free(d);
        return NULL;
    }
    memcpy(d->memory, data, size);
    d->memory_size = size;
    d->source.next_input_byte = d->memory;
    d->source.bytes_in_buffer = size;
    return d;
}

albumfs_jpeg *albumfs_jpeg_new_memory(const unsigned char *data, size_t size) {
    albumfs_jpeg *d = create_with_copy(data, size);
    if (!d) return NULL;
    d->fd = -1;
    d->source.fill_input_buffer = fill_from_memory;
    return d;
}

albumfs_jpeg *albumfs_jpeg_new_band(int fd, const unsigned char *header, size_t header_size, int64_t start, int64_t length) {
    // The header is handed over first, from its copy; then the file's range is read.
    albumfs_jpeg *d = create_with_copy(header, header_size);
    if (!d) return NULL;
    d->fd = fd;
    d->offset = start;
    d->end = start + length;
    d->source.fill_input_buffer = fill_from_file;
    d->source.resync_to_restart = any_restart;
    return d;
}

// Four components (CMYK, or YCCK that libjpeg turns into CMYK): decoded as CMYK.
static int is_cmyk(const albumfs_jpeg *d) {
    return d->cinfo.jpeg_color_space == JCS_CMYK || d->cinfo.jpeg_color_space == JCS_YCCK;
}

int albumfs_jpeg_header(albumfs_jpeg *d, albumfs_jpeg_info *info) {
    if (d->failed) return -1;
    if (setjmp(d->jump)) return -1;
    jpeg_read_header(&d->cinfo, TRUE);
    info->width = d->cinfo.image_width;
    info->height = d->cinfo.image_height;
    info->cmyk = is_cmyk(d);
    info->progressive = jpeg_has_multiple_scans(&d->cinfo);
    info->coefficient_bytes = 0;
    int max_h = 1, max_v = 1;
    for (int c = 0; c < d->cinfo.num_components; c++) {
        jpeg_component_info *comp = &d->cinfo.comp_info[c];
        if (comp->h_samp_factor > max_h) max_h = comp->h_samp_factor;
        if (comp->v_samp_factor > max_v) max_v = comp->v_samp_factor;
    }
    // Whole MCUs across and down, each holding h × v blocks of each component.
    uint64_t mcus_across = ((uint64_t)d->cinfo.image_width + 8 * max_h - 1) / (8 * max_h);
    uint64_t mcus_down = ((uint64_t)d->cinfo.image_height + 8 * max_v - 1) / (8 * max_v);
    for (int c = 0; c < d->cinfo.num_components; c++) {
        jpeg_component_info *comp = &d->cinfo.comp_info[c];
        info->coefficient_bytes += mcus_across * comp->h_samp_factor * mcus_down * comp->v_samp_factor * DCTSIZE2 * sizeof(JCOEF);
    }
    int single = d->cinfo.num_components == 1;
    info->huffman = !d->cinfo.arith_code;
    info->mcu_width = single ? 8 : 8 * max_h;
    info->mcu_height = single ? 8 : 8 * max_v;
    info->restart_interval = d->cinfo.restart_interval;
    // The header was read up to the end of SOS: what libjpeg has not taken from the buffer yet is
    // the scan's data. (A file decoder only: a band's or a copy's offsets are not the file's.)
    int from_file = d->source.fill_input_buffer == fill_from_file && !d->memory;
    info->scan_start = from_file ? d->offset - (int64_t)d->source.bytes_in_buffer - d->start : -1;
    return 0;
}

void albumfs_jpeg_limit_memory(albumfs_jpeg *d, uint64_t bytes) {
    d->cinfo.mem->max_memory_to_use = bytes > (uint64_t)LONG_MAX ? LONG_MAX : (long)bytes;
}

int albumfs_jpeg_start(albumfs_jpeg *d, unsigned num, unsigned denom, uint32_t *width, uint32_t *height,
                       int *components) {
    if (d->failed) return -1;
    if (setjmp(d->jump)) return -1;
    d->cinfo.out_color_space = is_cmyk(d) ? JCS_CMYK : JCS_RGB;
    d->cinfo.scale_num = num;
    d->cinfo.scale_denom = denom;
    d->cinfo.dct_method = JDCT_IFAST;
    d->cinfo.do_fancy_upsampling = FALSE;
    jpeg_start_decompress(&d->cinfo);
    d->started = 1;
    *width = d->cinfo.output_width;
    *height = d->cinfo.output_height;
    *components = d->cinfo.output_components;
    return 0;
}

// Whether the image decoded lacks data (asked once every row is read: a progressive file's
// coefficient bits are final then, and freed by albumfs_jpeg_release_image).
static int cut_short(const albumfs_jpeg *d) {
    if (!d->hit_end) return 0;
    if (d->data_missing) return 1;
    // The arithmetic decoder says nothing of missing bits: any end before EOI is a cut.
    if (d->cinfo.arith_code) return 1;
    // A progressive file can end between scans: cut there, some coefficient never arrived (-1)
    // or was never refined to its last bit (> 0). Every scan script encoders use ends at 0.
    if (d->cinfo.progressive_mode && d->cinfo.coef_bits) {
        for (int c = 0; c < d->cinfo.num_components; c++)
            for (int k = 0; k < DCTSIZE2; k++)
                if (d->cinfo.coef_bits[c][k] != 0) return 1;
    }
    return 0;
}

int albumfs_jpeg_crop(albumfs_jpeg *d, uint32_t *x, uint32_t *width) {
    if (d->failed || !d->started) return -1;
    if (setjmp(d->jump)) return -1;
    JDIMENSION offset = *x, columns = *width;
    jpeg_crop_scanline(&d->cinfo, &offset, &columns);
    *x = offset;
    *width = columns;
    return 0;
}

int albumfs_jpeg_read_rows(albumfs_jpeg *d, unsigned char *pixels, size_t stride, uint32_t first, uint32_t count) {
    if (d->failed || !d->started || first > d->cinfo.output_height || count > d->cinfo.output_height - first) return -1;
    if (setjmp(d->jump)) return -1;
    // Rows above are decoded only as far as the entropy decoder must (jpeg_skip_scanlines);
    // rows below are never decoded, nor their data read.
    if (first > 0 && jpeg_skip_scanlines(&d->cinfo, first) != first) {
        snprintf(d->message, sizeof d->message, "the decoder skipped too few rows");
        d->has_message = 1;
        d->failed = 1;
        return -1;
    }
    JSAMPROW rows[16];
    JDIMENSION end = first + count;
    while (d->cinfo.output_scanline < end) {
        JDIMENSION at = d->cinfo.output_scanline;
        JDIMENSION want = end - at;
        if (want > 16) want = 16;
        for (JDIMENSION i = 0; i < want; i++) rows[i] = pixels + (size_t)(at - first + i) * stride;
        // A source that never suspends always gets rows; none would loop here for ever.
        if (jpeg_read_scanlines(&d->cinfo, rows, want) == 0) {
            snprintf(d->message, sizeof d->message, "the decoder gave no rows");
            d->has_message = 1;
            d->failed = 1;
            return -1;
        }
    }
    d->cut_short = cut_short(d);
    return 0;
}

int albumfs_jpeg_icc_profile(albumfs_jpeg *d, unsigned char **profile, unsigned *length) {
    *profile = NULL;
    *length = 0;
    if (d->failed) return -1;
    if (setjmp(d->jump)) return -1;
    JOCTET *data = NULL;
    unsigned int size = 0;
    // (Damaged chunks, missing or repeated, make it FALSE with a warning: no profile then.)
    if (!jpeg_read_icc_profile(&d->cinfo, &data, &size)) return 0;
    *profile = data;
    *length = size;
    return 1;
}

void albumfs_jpeg_release_image(albumfs_jpeg *d) {
    // (jpeg_abort_decompress only frees memory and resets state: it reports no error.)
    if (d->created) jpeg_abort_decompress(&d->cinfo);
    d->started = 0;
    d->failed = 1;  // nothing more to ask of it
}

const char *albumfs_jpeg_message(const albumfs_jpeg *d) { return d->has_message ? d->message : ""; }
int albumfs_jpeg_read_errno(const albumfs_jpeg *d) { return d->read_errno; }
int albumfs_jpeg_cut_short(const albumfs_jpeg *d) { return d->cut_short; }

void albumfs_jpeg_free(albumfs_jpeg *d) {
    if (!d) return;
    // (Never finished: the rest of the file, previews or a motion photo's video, is not read.)
    if (d->created) jpeg_destroy_decompress(&d->cinfo);
    free(d->memory);
    free(d);
}

struct encoder {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr errors;
    jmp_buf jump;
    char *message;
};

static void on_encode_error(j_common_ptr cinfo) {
    struct encoder *e = (struct encoder *)((char *)cinfo - offsetof(struct encoder, cinfo));
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->jump, 1);
}

int albumfs_jpeg_encode_restarts(const unsigned char *rgb, uint32_t width, uint32_t height, int quality, int restart_rows,
                                 unsigned restart_mcus, unsigned char **out, unsigned long *size, char *message) {
    struct encoder e;
    memset(&e, 0, sizeof e);
    e.message = message;
    message[0] = 0;
    *out = NULL;
    *size = 0;
    e.cinfo.err = jpeg_std_error(&e.errors);
    e.errors.error_exit = on_encode_error;
    if (setjmp(e.jump)) {
        jpeg_destroy_compress(&e.cinfo);
        free(*out);
        *out = NULL;
        return -1;
    }
    jpeg_create_compress(&e.cinfo);
    jpeg_mem_dest(&e.cinfo, out, size);
    e.cinfo.image_width = width;
    e.cinfo.image_height = height;
    e.cinfo.input_components = 3;
    e.cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&e.cinfo);
    jpeg_set_quality(&e.cinfo, quality, TRUE);
    e.cinfo.restart_in_rows = restart_rows;
    if (restart_rows == 0) e.cinfo.restart_interval = restart_mcus;
    jpeg_start_compress(&e.cinfo, TRUE);
    while (e.cinfo.next_scanline < e.cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)e.cinfo.next_scanline * width * 3);
        jpeg_write_scanlines(&e.cinfo, &row, 1);
    }
    jpeg_finish_compress(&e.cinfo);
    jpeg_destroy_compress(&e.cinfo);
    return 0;
}
