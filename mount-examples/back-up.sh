#!/usr/bin/env bash
# Back up the originals, arranged by date, into DEST (rsync: a second run copies only what is new).
#   back-up.sh ALBUM DEST
# Sizes and mtimes (the capture times) are stable, so rsync's quick check skips unchanged photos.
# thumbnails/ is left out on purpose: it can be rebuilt, and the thumbnail of a photo that cannot
# be decoded answers EIO, which would make tar, rsync or cp -r of the whole mount report an error.
set -euo pipefail
album="$1" dest="$2"
mkdir -p "$dest"
rsync -a --delete "$album/by-date/" "$dest/"
