#ifndef ALBUMFS_CHEIF_H
#define ALBUMFS_CHEIF_H
// libheif's own API (Debian's libheif-dev puts the header under the multiarch include folder),
// served by a library loaded on first use (heif_loader.c): libheif pulls in four codec libraries
// (x265, libde265, dav1d, libaom) that a mount without HEIF images never calls, and loading
// them from a cold disk would slow every albumfs command's start (docs/benchmarks.md).
#include <libheif/heif.h>
#include <libheif/heif_properties.h>

/// Loads libheif and looks up every function albumfs calls, once per process (later calls
/// return the first answer). NULL when ready; else why not (dlopen's or dlsym's words, kept for
/// the life of the process). No libheif function may be called before this said NULL.
const char *albumfs_heif_load(void);
/// Whether libheif was loaded with the functions of grid images that libheif 1.19 brought
/// (`heif_image_handle_get_image_tiling`, `heif_image_handle_decode_image_tile`,
/// `heif_context_add_grid_image`, `heif_context_add_image_tile`, `heif_item_add_raw_property`
/// that the sample's encoder turns a grid with, and the decoder list,
/// `heif_get_decoder_descriptors` and `heif_decoder_descriptor_get_id_name`), which may then be
/// called.
int albumfs_heif_has_tiles(void);
#endif
