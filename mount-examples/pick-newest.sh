#!/usr/bin/env bash
# Pick the N newest photos that are not screenshots (default 3): links in ALBUM/picked/.
#   pick-newest.sh ALBUM [N]
# A photo already picked is skipped (ln -s answers "File exists"); the pick limit stops it.
set -euo pipefail
album="$1" n="${2:-3}"
ls -f "$album/non-screenshots" | grep -v -x -e . -e .. | head -n "$n" | while IFS= read -r name; do
  ln -s -- "../non-screenshots/$name" "$album/picked/" 2>/dev/null || echo "not picked: $name" >&2
done
