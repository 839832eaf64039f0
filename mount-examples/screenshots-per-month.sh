#!/usr/bin/env bash
# Count screenshots per month, newest month first: "COUNT YYYY-MM" lines.
#   screenshots-per-month.sh ALBUM
# The month is the one written on each photo (user.albumfs.capture_time), as in by-date/.
set -euo pipefail
album="$1"
for f in "$album"/screenshots/*; do
  [ -e "$f" ] || continue
  value=$(getfattr --only-values --absolute-names -n user.albumfs.capture_time -- "$f")
  echo "${value:0:7}"
done | sort | uniq -c | sort -k2,2r | awk '{print $1, $2}'
