// jemalloc reads its settings from this global when the process starts (`man jemalloc`,
// "TUNING"); the environment's MALLOC_CONF still overrides it.
//  - background_thread: dirty pages go back to the system on a timer, even while the mount is idle
//    (without it, pages freed after a scan or a big thumbnail stay resident until the next
//    allocations).
//  - dirty_decay_ms:1000, muzzy_decay_ms:0: freed pages are kept for a second (a scan reuses
//    them at once), then returned outright.
#include "CJemalloc.h"

__attribute__((used)) const char *malloc_conf = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0";
