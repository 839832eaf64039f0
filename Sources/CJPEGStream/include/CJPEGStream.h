#ifndef ALBUMFS_CJPEGSTREAM_H
#define ALBUMFS_CJPEGSTREAM_H
// A JPEG decoded as it is read, from an open file or from memory, shrunk in the DCT (libjpeg's
// classic API, as TurboJPEG 2.x offers no streaming source): a render reads the original while it
// decodes, instead of reading it all first, and never holds its bytes. libjpeg reports errors with
// longjmp, which must never cross a Swift frame: the setjmp lives here, in each call, and Swift
// only sees return values.
#include <stddef.h>
#include <stdint.h>

typedef struct albumfs_jpeg albumfs_jpeg;

typedef struct {
    uint32_t width, height;
    /// CMYK or YCCK: decoded as CMYK (Adobe's inverted values), converted by the caller.
    int cmyk;
    /// Progressive (or multi-scan): libjpeg then holds every DCT coefficient of the image until
    /// the last scan, whatever the scale (`coefficient_bytes`); a baseline JPEG streams.
    int progressive;
    /// The bytes of that whole-image coefficient buffer (2 bytes per coefficient, 64 per block,
    /// blocks padded to whole MCUs).
    uint64_t coefficient_bytes;
    /// Huffman-coded (not arithmetic).
    int huffman;
    /// An MCU's size in pixels (one block for one component; else 8 × the largest sampling
    /// factors), and the restart interval in MCUs (0: none), as the header says.
    uint32_t mcu_width, mcu_height, restart_interval;
    /// Where the first scan's data begins (just after its SOS segment), relative to the start
    /// given to albumfs_jpeg_new_file; -1 for other decoders.
    int64_t scan_start;
} albumfs_jpeg_info;

/// A decoder of the JPEG in [start, start + length) of `fd` (read with pread as decoding goes;
/// the descriptor must stay open until albumfs_jpeg_free). NULL when out of memory.
albumfs_jpeg *albumfs_jpeg_new_file(int fd, int64_t start, int64_t length);
/// A decoder of a copy of `size` bytes at `data`. NULL when out of memory.
albumfs_jpeg *albumfs_jpeg_new_memory(const unsigned char *data, size_t size);
/// A decoder of one band of a baseline JPEG's rows cut at its restart markers: a copy of
/// `header` (the image's header up to and including its SOS segment, the frame's height that of
/// the band) followed by [start, start + length) of `fd` (the restart intervals of the band, from
/// just after a restart marker, or from the scan's start, to just before the marker that begins
/// the next band). Its restart markers are taken whatever their numbers (a band starts at any
/// restart interval, whose marker's number is not RST0). NULL when out of memory.
albumfs_jpeg *albumfs_jpeg_new_band(int fd, const unsigned char *header, size_t header_size, int64_t start, int64_t length);

/// Reads the header up to the first scan. 0, or -1 (albumfs_jpeg_message says why).
int albumfs_jpeg_header(albumfs_jpeg *decoder, albumfs_jpeg_info *info);
/// Caps what libjpeg may allocate for this image (`max_memory_to_use`): an image that needs more
/// fails ("Backing store not supported") instead of taking the memory. Call before
/// albumfs_jpeg_start.
void albumfs_jpeg_limit_memory(albumfs_jpeg *decoder, uint64_t bytes);

/// Starts decoding at num/denom of the full size (libjpeg: num 1…16 over denom 8), fast integer
/// IDCT and plain upsampling (the caller averages at least 2x afterwards). Gives the output size
/// and bytes per pixel (3 RGB, 4 CMYK). 0 or -1.
int albumfs_jpeg_start(albumfs_jpeg *decoder, unsigned num, unsigned denom, uint32_t *width, uint32_t *height,
                       int *components);
/// Narrows what is decoded to the columns [x, x + width) of the scaled image (call after
/// albumfs_jpeg_start, before any row is read): `jpeg_crop_scanline`, which widens the span to
/// whole iMCU columns and gives back the span decoded (rows are then that `width` wide). 0 or -1.
int albumfs_jpeg_crop(albumfs_jpeg *decoder, uint32_t *x, uint32_t *width);
/// Decodes rows [first, first + count) into `pixels` (count rows of `stride` bytes), skipping
/// those above (`jpeg_skip_scanlines`); those below are never decoded nor read. 0 or -1. A file
/// cut short still gives 0 (its missing rows grey, as libjpeg fills them): see
/// albumfs_jpeg_cut_short.
int albumfs_jpeg_read_rows(albumfs_jpeg *decoder, unsigned char *pixels, size_t stride, uint32_t first, uint32_t count);

/// The ICC profile of a JPEG whose header was read (its APP2 `ICC_PROFILE` chunks joined), as a
/// buffer the caller frees with free(): 1, or 0 when there is none (or its chunks are damaged),
/// -1 on failure. The corresponding libjpeg function is `jpeg_read_icc_profile`.
int albumfs_jpeg_icc_profile(albumfs_jpeg *decoder, unsigned char **profile, unsigned *length);

/// Lets go of what decoding the image took (the coefficient buffer of a progressive JPEG, the
/// saved APP2 segments): `jpeg_abort_decompress`. Nothing else may be asked of the image after.
void albumfs_jpeg_release_image(albumfs_jpeg *decoder);

/// The error that stopped the decoder, else the first warning, else "".
const char *albumfs_jpeg_message(const albumfs_jpeg *decoder);
/// The errno of a failed read of the file (0: none): the original could not be read, as opposed
/// to a file that is not a decodable JPEG.
int albumfs_jpeg_read_errno(const albumfs_jpeg *decoder);
/// Whether the data ended before the image did ("Premature end of JPEG file"): rows, or a
/// progressive file's later scans, missing. A file that lacks only its closing EOI marker, every
/// row there, is not cut short. Known once albumfs_jpeg_read_rows has returned 0 (for the rows it read).
int albumfs_jpeg_cut_short(const albumfs_jpeg *decoder);

void albumfs_jpeg_free(albumfs_jpeg *decoder);

/// Encodes `rgb` (width × height × 3 bytes) as a baseline 4:2:0 JPEG at `quality` with a restart
/// marker every `restart_rows` MCU rows, or else every `restart_mcus` MCUs (libjpeg's
/// `restart_in_rows`, `restart_interval`), as cameras and phones that write them do: a buffer
/// the caller frees with free(). 0, or -1 (`message`, JMSG_LENGTH_MAX bytes, says why).
int albumfs_jpeg_encode_restarts(const unsigned char *rgb, uint32_t width, uint32_t height, int quality, int restart_rows,
                                 unsigned restart_mcus, unsigned char **out, unsigned long *size, char *message);
#endif
