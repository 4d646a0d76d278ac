#!/usr/bin/env bash
# Holds the test suite to leaving the user's pet cache as it found it: `snapshot` (the suite's first
# test) records ~/.cache/pet (or $XDG_CACHE_HOME/pet) and empties the suite's own cache folders;
# `compare` (its last) fails, listing the difference, if anything there changed.
#   bash tests/user_cache_test.sh snapshot|compare STATE_FILE [TEST_CACHE_FOLDER]
set -euo pipefail
action=$1 state=$2
cache="${XDG_CACHE_HOME:-$HOME/.cache}/pet"

listing() {
  if [[ ! -d "$cache" ]]; then echo "$cache: absent"; return; fi
  echo "$cache:"
  (cd "$cache" && find . -type f -printf '%p %s %TY-%Tm-%Td %TT\n' | sort && find . -type f -exec sha256sum {} + | sort -k2)
}

case "$action" in
  snapshot)
    listing > "$state"
    [[ -n "${3:-}" ]] && rm -rf "$3"
    echo "user cache recorded: $(head -1 "$state") $(($(wc -l < "$state") - 1)) lines"
    ;;
  compare)
    if ! diff <(cat "$state") <(listing); then
      echo "FAILED: the test suite changed the user's files in $cache (above: < before, > after)"
      exit 1
    fi
    echo "user cache unchanged: $(head -1 "$state")"
    ;;
  *) echo "usage: $0 snapshot|compare STATE_FILE [TEST_CACHE_FOLDER]" >&2; exit 2 ;;
esac
