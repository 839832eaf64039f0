#!/usr/bin/env bash
# Copy the N newest photos that are not screenshots (default 10) into DEST.
#   copy-newest.sh ALBUM DEST [N]
# Relies on albumfs listing every folder newest first in readdir order (`ls -f`), and keeps the
# capture time as the copy's mtime (`cp -p`).
set -euo pipefail
album="$1" dest="$2" n="${3:-10}"
mkdir -p "$dest"
ls -f "$album/non-screenshots" | grep -v -x -e . -e .. | head -n "$n" | while IFS= read -r name; do
  cp -p -- "$album/non-screenshots/$name" "$dest/"
done
