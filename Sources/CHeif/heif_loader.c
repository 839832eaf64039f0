// libheif, opened with dlopen on first use (why: include/CHeif.h). Each libheif function albumfs
// calls is defined here under its own name, with the prototype from <libheif/heif.h> (the
// compiler checks they agree), and jumps to the function of that name in the loaded library.
#include "CHeif.h"
#include "CLoader.h"
#include <pthread.h>
#include <stddef.h>

// Every function albumfs calls: (return type, name, parameters, arguments). `HEIF_VOID` lists
// those that return nothing (C forbids `return f()` there).
#define HEIF_FUNCTIONS(X) \
    X(struct heif_error, heif_init, (struct heif_init_params *p), (p)) \
    X(const char *, heif_get_version, (void), ()) \
    X(struct heif_context *, heif_context_alloc, (void), ()) \
    X(struct heif_error, heif_context_read_from_memory_without_copy, \
      (struct heif_context *c, const void *mem, size_t size, const struct heif_reading_options *o), (c, mem, size, o)) \
    X(struct heif_error, heif_context_get_primary_image_handle, (struct heif_context *c, struct heif_image_handle **h), (c, h)) \
    X(struct heif_error, heif_context_get_encoder_for_format, \
      (struct heif_context *c, enum heif_compression_format f, struct heif_encoder **e), (c, f, e)) \
    X(struct heif_error, heif_context_encode_image, \
      (struct heif_context *c, const struct heif_image *i, struct heif_encoder *e, const struct heif_encoding_options *o, \
       struct heif_image_handle **h), (c, i, e, o, h)) \
    X(struct heif_error, heif_context_encode_thumbnail, \
      (struct heif_context *c, const struct heif_image *i, const struct heif_image_handle *m, struct heif_encoder *e, \
       const struct heif_encoding_options *o, int bbox, struct heif_image_handle **h), (c, i, m, e, o, bbox, h)) \
    X(struct heif_error, heif_context_add_exif_metadata, \
      (struct heif_context *c, const struct heif_image_handle *h, const void *data, int size), (c, h, data, size)) \
    X(struct heif_error, heif_context_add_XMP_metadata, \
      (struct heif_context *c, const struct heif_image_handle *h, const void *data, int size), (c, h, data, size)) \
    X(struct heif_error, heif_context_write, (struct heif_context *c, struct heif_writer *w, void *userdata), (c, w, userdata)) \
    X(struct heif_error, heif_context_set_primary_image, (struct heif_context *c, struct heif_image_handle *h), (c, h)) \
    X(heif_item_id, heif_image_handle_get_item_id, (const struct heif_image_handle *h), (h)) \
    X(struct heif_error, heif_decode_image, \
      (const struct heif_image_handle *h, struct heif_image **i, enum heif_colorspace cs, enum heif_chroma ch, \
       const struct heif_decoding_options *o), (h, i, cs, ch, o)) \
    X(struct heif_decoding_options *, heif_decoding_options_alloc, (void), ()) \
    X(struct heif_encoding_options *, heif_encoding_options_alloc, (void), ()) \
    X(struct heif_error, heif_encoder_set_lossy_quality, (struct heif_encoder *e, int q), (e, q)) \
    X(struct heif_error, heif_image_create, \
      (int w, int h, enum heif_colorspace cs, enum heif_chroma ch, struct heif_image **i), (w, h, cs, ch, i)) \
    X(struct heif_error, heif_image_add_plane, \
      (struct heif_image *i, enum heif_channel c, int w, int h, int depth), (i, c, w, h, depth)) \
    X(uint8_t *, heif_image_get_plane, (struct heif_image *i, enum heif_channel c, int *stride), (i, c, stride)) \
    X(const uint8_t *, heif_image_get_plane_readonly, (const struct heif_image *i, enum heif_channel c, int *stride), (i, c, stride)) \
    X(int, heif_image_get_width, (const struct heif_image *i, enum heif_channel c), (i, c)) \
    X(int, heif_image_get_height, (const struct heif_image *i, enum heif_channel c), (i, c)) \
    X(int, heif_image_get_bits_per_pixel, (const struct heif_image *i, enum heif_channel c), (i, c)) \
    X(struct heif_error, heif_image_set_raw_color_profile, \
      (struct heif_image *i, const char *type, const void *data, const size_t size), (i, type, data, size)) \
    X(int, heif_image_handle_get_width, (const struct heif_image_handle *h), (h)) \
    X(int, heif_image_handle_get_height, (const struct heif_image_handle *h), (h)) \
    X(int, heif_image_handle_has_alpha_channel, (const struct heif_image_handle *h), (h)) \
    X(int, heif_image_handle_get_number_of_thumbnails, (const struct heif_image_handle *h), (h)) \
    X(int, heif_image_handle_get_list_of_thumbnail_IDs, (const struct heif_image_handle *h, heif_item_id *ids, int count), \
      (h, ids, count)) \
    X(struct heif_error, heif_image_handle_get_thumbnail, \
      (const struct heif_image_handle *h, heif_item_id id, struct heif_image_handle **t), (h, id, t)) \
    X(size_t, heif_image_handle_get_raw_color_profile_size, (const struct heif_image_handle *h), (h)) \
    X(struct heif_error, heif_image_handle_get_raw_color_profile, (const struct heif_image_handle *h, void *out), (h, out))

#define HEIF_VOID(X) \
    X(heif_context_free, (struct heif_context *c), (c)) \
    X(heif_decoding_options_free, (struct heif_decoding_options *o), (o)) \
    X(heif_encoding_options_free, (struct heif_encoding_options *o), (o)) \
    X(heif_encoder_release, (struct heif_encoder *e), (e)) \
    X(heif_image_release, (const struct heif_image *i), (i)) \
    X(heif_image_handle_release, (const struct heif_image_handle *h), (h))

ALBUMFS_LOADER_TABLE(HEIF_FUNCTIONS, HEIF_VOID)

static const char *const libraries[] = { "libheif.so.1" };
static const char *failure;
static pthread_once_t once = PTHREAD_ONCE_INIT;

// Functions of libheif 1.19 and later, looked up apart: without them an older libheif still
// decodes whole images (albumfs_heif_has_tiles says which).
static const char *const tile_names[] = { "heif_image_handle_get_image_tiling", "heif_image_handle_decode_image_tile",
                                          "heif_context_add_grid_image", "heif_context_add_image_tile",
                                          "heif_item_add_raw_property", "heif_get_decoder_descriptors",
                                          "heif_decoder_descriptor_get_id_name" };
static void *tile_functions[7];
static int has_tiles;

static void load(void) {
    failure = albumfs_load_functions(libraries, 1, names, functions, function_count, "libheif.so.1 lacks a function albumfs calls");
    if (!failure) has_tiles = !albumfs_load_functions(libraries, 1, tile_names, tile_functions, 7, "");
}

int albumfs_heif_has_tiles(void) {
    pthread_once(&once, load);
    return !failure && has_tiles;
}

ALBUMFS_HIDDEN struct heif_error heif_image_handle_get_image_tiling(const struct heif_image_handle *h, int transformed,
                                                     struct heif_image_tiling *tiling) {
    return ((struct heif_error(*)(const struct heif_image_handle *, int, struct heif_image_tiling *))tile_functions[0])(
        h, transformed, tiling);
}

ALBUMFS_HIDDEN struct heif_error heif_image_handle_decode_image_tile(const struct heif_image_handle *h, struct heif_image **image,
                                                      enum heif_colorspace colorspace, enum heif_chroma chroma,
                                                      const struct heif_decoding_options *options, uint32_t x, uint32_t y) {
    return ((struct heif_error(*)(const struct heif_image_handle *, struct heif_image **, enum heif_colorspace,
                                  enum heif_chroma, const struct heif_decoding_options *, uint32_t, uint32_t))tile_functions[1])(
        h, image, colorspace, chroma, options, x, y);
}

ALBUMFS_HIDDEN struct heif_error heif_context_add_grid_image(struct heif_context *c, uint32_t width, uint32_t height, uint32_t columns,
                                              uint32_t rows, const struct heif_encoding_options *options,
                                              struct heif_image_handle **grid) {
    return ((struct heif_error(*)(struct heif_context *, uint32_t, uint32_t, uint32_t, uint32_t,
                                  const struct heif_encoding_options *, struct heif_image_handle **))tile_functions[2])(
        c, width, height, columns, rows, options, grid);
}

ALBUMFS_HIDDEN struct heif_error heif_context_add_image_tile(struct heif_context *c, struct heif_image_handle *grid, uint32_t x, uint32_t y,
                                              const struct heif_image *image, struct heif_encoder *encoder) {
    return ((struct heif_error(*)(struct heif_context *, struct heif_image_handle *, uint32_t, uint32_t,
                                  const struct heif_image *, struct heif_encoder *))tile_functions[3])(c, grid, x, y, image, encoder);
}

ALBUMFS_HIDDEN struct heif_error heif_item_add_raw_property(const struct heif_context *c, heif_item_id item, uint32_t type, const uint8_t *uuid,
                                             const uint8_t *data, size_t size, int essential, heif_property_id *property) {
    return ((struct heif_error(*)(const struct heif_context *, heif_item_id, uint32_t, const uint8_t *, const uint8_t *, size_t,
                                  int, heif_property_id *))tile_functions[4])(c, item, type, uuid, data, size, essential, property);
}

ALBUMFS_HIDDEN int heif_get_decoder_descriptors(enum heif_compression_format format, const struct heif_decoder_descriptor **decoders, int count) {
    return ((int (*)(enum heif_compression_format, const struct heif_decoder_descriptor **, int))tile_functions[5])(
        format, decoders, count);
}

ALBUMFS_HIDDEN const char *heif_decoder_descriptor_get_id_name(const struct heif_decoder_descriptor *decoder) {
    return ((const char *(*)(const struct heif_decoder_descriptor *))tile_functions[6])(decoder);
}

const char *albumfs_heif_load(void) {
    pthread_once(&once, load);
    return failure;
}

ALBUMFS_LOADER_JUMPS(HEIF_FUNCTIONS, HEIF_VOID)
