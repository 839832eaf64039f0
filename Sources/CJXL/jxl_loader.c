// libjxl, opened with dlopen on first use (why: include/CJXL.h). Each libjxl function albumfs
// calls is defined here under its own name, with the prototype from <jxl/decode.h> and
// <jxl/encode.h> (the compiler checks they agree), and jumps to the function of that name in the
// loaded library.
#include "CJXL.h"
#include "CLoader.h"
#include <pthread.h>
#include <stddef.h>
#include <jxl/version.h>

// Every function albumfs calls: (return type, name, parameters, arguments). `JXL_VOID` lists
// those that return nothing (C forbids `return f()` there).
#define JXL_FUNCTIONS(X) \
    X(uint32_t, JxlDecoderVersion, (void), ()) \
    X(JxlDecoder *, JxlDecoderCreate, (const JxlMemoryManager *m), (m)) \
    X(JxlDecoderStatus, JxlDecoderSubscribeEvents, (JxlDecoder *d, int events), (d, events)) \
    X(JxlDecoderStatus, JxlDecoderSetInput, (JxlDecoder *d, const uint8_t *data, size_t size), (d, data, size)) \
    X(JxlDecoderStatus, JxlDecoderProcessInput, (JxlDecoder *d), (d)) \
    X(JxlDecoderStatus, JxlDecoderGetBasicInfo, (const JxlDecoder *d, JxlBasicInfo *info), (d, info)) \
    X(JxlDecoderStatus, JxlDecoderImageOutBufferSize, (const JxlDecoder *d, const JxlPixelFormat *f, size_t *size), (d, f, size)) \
    X(JxlDecoderStatus, JxlDecoderSetImageOutBuffer, (JxlDecoder *d, const JxlPixelFormat *f, void *buffer, size_t size), \
      (d, f, buffer, size)) \
    X(JxlEncoder *, JxlEncoderCreate, (const JxlMemoryManager *m), (m)) \
    X(JxlEncoderStatus, JxlEncoderUseContainer, (JxlEncoder *e, JXL_BOOL use), (e, use)) \
    X(JxlEncoderStatus, JxlEncoderUseBoxes, (JxlEncoder *e), (e)) \
    X(JxlEncoderStatus, JxlEncoderAddBox, \
      (JxlEncoder *e, const JxlBoxType type, const uint8_t *contents, size_t size, JXL_BOOL compress), \
      (e, type, contents, size, compress)) \
    X(JxlEncoderStatus, JxlEncoderSetBasicInfo, (JxlEncoder *e, const JxlBasicInfo *info), (e, info)) \
    X(JxlEncoderStatus, JxlEncoderSetColorEncoding, (JxlEncoder *e, const JxlColorEncoding *c), (e, c)) \
    X(JxlEncoderFrameSettings *, JxlEncoderFrameSettingsCreate, (JxlEncoder *e, const JxlEncoderFrameSettings *s), (e, s)) \
    X(JxlEncoderStatus, JxlEncoderSetFrameLossless, (JxlEncoderFrameSettings *s, JXL_BOOL lossless), (s, lossless)) \
    X(JxlEncoderStatus, JxlEncoderSetFrameDistance, (JxlEncoderFrameSettings *s, float distance), (s, distance)) \
    X(JxlEncoderStatus, JxlEncoderAddImageFrame, \
      (const JxlEncoderFrameSettings *s, const JxlPixelFormat *f, const void *buffer, size_t size), (s, f, buffer, size)) \
    X(JxlEncoderStatus, JxlEncoderProcessOutput, (JxlEncoder *e, uint8_t **next, size_t *available), (e, next, available))

#define JXL_VOID(X) \
    X(JxlDecoderDestroy, (JxlDecoder *d), (d)) \
    X(JxlDecoderCloseInput, (JxlDecoder *d), (d)) \
    X(JxlEncoderDestroy, (JxlEncoder *e), (e)) \
    X(JxlEncoderInitBasicInfo, (JxlBasicInfo *info), (info)) \
    X(JxlEncoderCloseInput, (JxlEncoder *e), (e)) \
    X(JxlColorEncodingSetToSRGB, (JxlColorEncoding *c, JXL_BOOL gray), (c, gray))

ALBUMFS_LOADER_TABLE(JXL_FUNCTIONS, JXL_VOID)

// The library whose headers albumfs is built with: its soname carries the minor version while the
// major one is 0 (`libjxl.so.0.7`).
#define SO(major, minor) "libjxl.so." #major "." #minor
#define SO_VERSION(major, minor) SO(major, minor)
static const char *const libraries[] = { SO_VERSION(JPEGXL_MAJOR_VERSION, JPEGXL_MINOR_VERSION) };
static const char *failure;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    failure = albumfs_load_functions(libraries, 1, names, functions, function_count, "libjxl lacks a function albumfs calls");
}

ALBUMFS_LOADER_JUMPS(JXL_FUNCTIONS, JXL_VOID)

const char *albumfs_jxl_load(void) {
    pthread_once(&once, load);
    return failure;
}
