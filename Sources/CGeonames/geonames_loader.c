// libgeonames, opened with dlopen on first use (why: include/CGeonames.h). Each function albumfs
// calls is defined here under its own name, with the prototype of include/CGeonames.h, and jumps
// to the function of that name in the loaded library.
#include "CGeonames.h"
#include "CLoader.h"
#include <pthread.h>
#include <stdatomic.h>

#define GEONAMES_FUNCTIONS(X) \
    X(int, geonames_get_n_cities, (void), ()) \
    X(void *, geonames_get_city, (int index), (index)) \
    X(const char *, geonames_city_get_name, (void *city), (city)) \
    X(const char *, geonames_city_get_state, (void *city), (city)) \
    X(const char *, geonames_city_get_country, (void *city), (city)) \
    X(const char *, geonames_city_get_country_code, (void *city), (city)) \
    X(const char *, geonames_city_get_timezone, (void *city), (city)) \
    X(double, geonames_city_get_latitude, (void *city), (city)) \
    X(double, geonames_city_get_longitude, (void *city), (city)) \
    X(unsigned int, geonames_city_get_population, (void *city), (city))

#define GEONAMES_VOID(X) \
    X(geonames_city_free, (void *city), (city))

ALBUMFS_LOADER_TABLE(GEONAMES_FUNCTIONS, GEONAMES_VOID)

// The soname of Debian's libgeonames0 (0.3.0).
static const char *const libraries[] = { "libgeonames.so.0" };
static const char *failure;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int tried;

static void load(void) {
    failure = albumfs_load_functions(libraries, 1, names, functions, function_count, "libgeonames lacks a function albumfs calls");
}

ALBUMFS_LOADER_JUMPS(GEONAMES_FUNCTIONS, GEONAMES_VOID)

const char *albumfs_geonames_load(void) {
    atomic_store(&tried, 1);
    pthread_once(&once, load);
    return failure;
}

int albumfs_geonames_tried(void) { return atomic_load(&tried); }
