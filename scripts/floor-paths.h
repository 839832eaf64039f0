// What scripts/read-floor.c and scripts/warm-floor.c do alike: take the files to read, one path a
// line, from standard input.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

// Reads every line of standard input into *paths (newlines dropped); their number in *count.
// 0, or -1 when memory runs out (said on stderr as `name`).
static int read_paths(const char *name, char ***paths, size_t *count) {
    size_t capacity = 1024;
    *count = 0;
    *paths = malloc(capacity * sizeof **paths);
    char *line = NULL;
    size_t size = 0;
    ssize_t n;
    while ((n = getline(&line, &size, stdin)) > 0) {
        if (line[n - 1] == '\n') line[n - 1] = 0;
        if (*count == capacity) *paths = realloc(*paths, (capacity *= 2) * sizeof **paths);
        if (!*paths || !((*paths)[(*count)++] = strdup(line))) { perror(name); free(line); return -1; }
    }
    free(line);
    return 0;
}
