#!/usr/bin/env bash
# Unpick everything: remove every link in ALBUM/picked/ (the photos are untouched).
#   clear-picks.sh ALBUM
set -euo pipefail
album="$1"
find "$album/picked" -mindepth 1 -maxdepth 1 -type l -delete
