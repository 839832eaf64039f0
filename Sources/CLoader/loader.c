// The dlopen and dlsym of CHeif's and CFFmpeg's loaders (include/CLoader.h).
#include "CLoader.h"
#include <dlfcn.h>

const char *albumfs_load_functions(const char *const *libraries, size_t library_count, const char *const *names,
                                   void **functions, size_t count, const char *lacking) {
    void *handles[8];
    if (library_count > sizeof handles / sizeof handles[0]) return "too many libraries";
    for (size_t l = 0; l < library_count; l++) {
        handles[l] = dlopen(libraries[l], RTLD_NOW | RTLD_LOCAL);
        if (!handles[l]) {
            const char *why = dlerror();
            return why ? why : lacking;
        }
    }
    for (size_t i = 0; i < count; i++) {
        for (size_t l = 0; l < library_count && !functions[i]; l++) functions[i] = dlsym(handles[l], names[i]);
        if (!functions[i]) return lacking;
    }
    return NULL;
}
