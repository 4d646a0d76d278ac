#!/usr/bin/env bash
# prepare-check.sh's usage errors: each says what is wrong and exits 2 before it installs, builds or packs anything.
set -uo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAILED: $*"; exit 1; }
expect_usage_error() {  # expected message, arguments...
  local expected=$1 err status
  shift
  err=$(bash scripts/device/prepare-check.sh "$@" 2>&1 >/dev/null)
  status=$?
  ((status == 2)) || fail "prepare-check $* exited $status, not 2"
  [[ "$err" == "$expected" ]] || fail "prepare-check $*: '$err', expected '$expected'"
}
expect_usage_error "prepare-check: --target takes h100 or h200, got 'a100'" --target a100
expect_usage_error "prepare-check: --jobs takes a positive count, got '0'" --misses --jobs 0
expect_usage_error "prepare-check: unknown argument '--written' (see --help)" --written
bash scripts/device/prepare-check.sh --help |
  grep -q "^#   bash scripts/device/prepare-check.sh \\[--target h200|h100\\] \\[--misses\\] \\[--jobs N\\] \\[--fresh\\]$" ||
  fail "--help does not print the usage line"
echo "prepare-check: usage errors ok"
