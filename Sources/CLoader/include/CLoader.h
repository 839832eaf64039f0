#ifndef ALBUMFS_CLOADER_H
#define ALBUMFS_CLOADER_H
// A C library loaded on first use (dlopen), its functions reached through jumps defined under
// their own names: what CHeif and CFFmpeg share. A loader lists its functions as an X-macro of
// (return type, name, parameters, arguments), and those returning nothing in another of
// (name, parameters, arguments), then:
//   ALBUMFS_LOADER_TABLE(FUNCTIONS, VOIDS)   the index of each, their names and their addresses
//   ALBUMFS_LOADER_JUMPS(FUNCTIONS, VOIDS)   each function, jumping to the loaded one
#include <stddef.h>

#define ALBUMFS_INDEX(ret, name, params, args) index_##name,
#define ALBUMFS_INDEX_VOID(name, params, args) index_##name,
#define ALBUMFS_NAME(ret, name, params, args) #name,
#define ALBUMFS_NAME_VOID(name, params, args) #name,
#define ALBUMFS_LOADER_TABLE(FUNCTIONS, VOIDS) \
    enum { FUNCTIONS(ALBUMFS_INDEX) VOIDS(ALBUMFS_INDEX_VOID) function_count }; \
    static const char *const names[function_count] = { FUNCTIONS(ALBUMFS_NAME) VOIDS(ALBUMFS_NAME_VOID) }; \
    /* Written once under the loader's pthread_once, read only after it said it is ready. */ \
    static void *functions[function_count];

// Hidden: the jumps serve albumfs's own code only. Exported from the executable, they would stand
// for the library's own functions to every library the process loads (libheif's FFmpeg decoder
// plugin calling libavcodec would jump through a table not yet filled).
#define ALBUMFS_HIDDEN __attribute__((visibility("hidden")))
#define ALBUMFS_JUMP(ret, name, params, args) \
    ALBUMFS_HIDDEN ret name params { return ((ret(*) params)functions[index_##name]) args; }
#define ALBUMFS_JUMP_VOID(name, params, args) \
    ALBUMFS_HIDDEN void name params { ((void(*) params)functions[index_##name]) args; }
#define ALBUMFS_LOADER_JUMPS(FUNCTIONS, VOIDS) FUNCTIONS(ALBUMFS_JUMP) VOIDS(ALBUMFS_JUMP_VOID)

/// Opens `libraries` (RTLD_LOCAL: their symbols stay out of the global namespace, where the jumps
/// are) and looks up each of `names` in them, in order, into `functions`. NULL when every one
/// was found; else why not: dlopen's words, or `lacking` when a function is missing.
const char *albumfs_load_functions(const char *const *libraries, size_t library_count, const char *const *names,
                                   void **functions, size_t count, const char *lacking);
#endif
