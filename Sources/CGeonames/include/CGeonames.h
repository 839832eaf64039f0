#ifndef ALBUMFS_CGEONAMES_H
#define ALBUMFS_CGEONAMES_H
// libgeonames's city table (Debian's libgeonames0: GeoNames' cities of 15,000 people or more,
// compiled into the library), served by the library loaded on first use (geonames_loader.c):
// linked, it and the GLib and GIO it links would cost every albumfs command's start, though only
// a library whose photos carry GPS positions reads it.
// Declared here with plain C types rather than through <geonames/geonames.h>, which includes
// <gio/gio.h> (GLib's include paths and headers for five functions): a `GeonamesCity` is a
// GVariant, opaque to albumfs, freed by `geonames_city_free`. The loader's jumps, defined under
// the same names, are hidden (CLoader.h says why).
#include <stdint.h>

int geonames_get_n_cities(void);
void *geonames_get_city(int index);
void geonames_city_free(void *city);
const char *geonames_city_get_name(void *city);
const char *geonames_city_get_state(void *city);
const char *geonames_city_get_country(void *city);
const char *geonames_city_get_country_code(void *city);
const char *geonames_city_get_timezone(void *city);
double geonames_city_get_latitude(void *city);
double geonames_city_get_longitude(void *city);
unsigned int geonames_city_get_population(void *city);

/// Loads libgeonames and looks up every function albumfs calls, once per process (later calls
/// return the first answer). NULL when ready; else why not (kept for the life of the process). No
/// libgeonames function may be called before this said NULL.
const char *albumfs_geonames_load(void);

/// Whether `albumfs_geonames_load` was called in this process (tests: a library without GPS
/// positions never loads it).
int albumfs_geonames_tried(void);
#endif
