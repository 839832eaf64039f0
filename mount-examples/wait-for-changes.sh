#!/usr/bin/env bash
# Wait until an albumfs mount shows SOURCE as it is now: after copying photos into SOURCE, before
# reading them through the mount (the views follow SOURCE within about a second). Done when
# .albumfs/status says `changes_pending: 0` and `scan_state: done`; exit 1 after TIMEOUT seconds.
#   cp ~/Downloads/*.jpg ~/Pictures/ && wait-for-changes.sh ~/Album && ls -f ~/Album/non-screenshots
#   wait-for-changes.sh ALBUM [TIMEOUT]      (default 30)
set -euo pipefail
album="$1" timeout="${2:-30}"
deadline=$(( $(date +%s) + timeout ))
while :; do
  status=$(cat "$album/.albumfs/status")
  if grep -qx 'changes_pending: 0' <<<"$status" && grep -qx 'scan_state: done' <<<"$status"; then
    exit 0
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "wait-for-changes.sh: $album still has changes to show after ${timeout} s" >&2
    exit 1
  fi
  sleep 0.1
done
