#!/usr/bin/env bash
# Copy the picked originals into DEST (cp -L follows each link to the photo in by-date/).
#   copy-picks.sh ALBUM DEST
set -euo pipefail
album="$1" dest="$2"
mkdir -p "$dest"
find "$album/picked" -mindepth 1 -maxdepth 1 -type l -print0 | xargs -0 -r cp -L -p -t "$dest" --
