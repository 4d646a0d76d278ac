#!/usr/bin/env bash
# cmake/hash_sources.cmake: a version that rewording, adding or removing whole-line comments, blank
# lines or trailing blanks keeps, and that any change of code (a semicolon, a comment after code, a
# file's name) moves.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/gpu"

version() {  # the version of $work/src/gpu as the build computes it
  cmake -DSOURCE_ROOT="$work/src" -DFOLDERS=gpu -DOUTPUT="$work/version.cpp" -DHEADER=version.h -DNAMESPACE=test \
    -DFUNCTION=version -P "$root/cmake/hash_sources.cmake"
  sed -n 's/.*return "\([0-9a-f]*\)";.*/\1/p' "$work/version.cpp"
}
expect() {  # description, "same" or "moved", the version before
  local now
  now=$(version)
  if [[ "$2" == same && "$now" != "$3" ]] || [[ "$2" == moved && "$now" == "$3" ]]; then
    echo "FAIL: $1: version $3 -> $now, expected it $2"
    exit 1
  fi
  echo "ok: $1 ($3 -> $now)"
}

printf '// A kernel.\nint twice(int x) { return 2 * x; }\nint f() { int a = 1; return a; }\n' > "$work/src/gpu/k.cu"
base=$(version)
[[ "$base" =~ ^[0-9a-f]{16}$ ]] || { echo "FAIL: no 16-digit version: '$base'"; exit 1; }

printf '// A kernel, reworded\n//   over two lines.\n\nint twice(int x) { return 2 * x; }  \n\n  // inside\nint f() { int a = 1; return a; }\n' \
  > "$work/src/gpu/k.cu"
expect "comments reworded and added, blank lines and trailing blanks" same "$base"

printf 'int twice(int x) { return 2 * x; }\nint f() { int a = 1; return a; }\n' > "$work/src/gpu/k.cu"
expect "the comment removed" same "$base"

printf 'int twice(int x) { return 2 * x; }\nint f() { int a = 1 return a; }\n' > "$work/src/gpu/k.cu"
expect "a semicolon removed" moved "$base"

printf 'int twice(int x) { return 2 * x; }  // after code\nint f() { int a = 1; return a; }\n' > "$work/src/gpu/k.cu"
expect "a comment after code" moved "$base"

printf 'int twice(int x) { return 3 * x; }\nint f() { int a = 1; return a; }\n' > "$work/src/gpu/k.cu"
expect "a constant changed" moved "$base"

printf 'int twice(int x) { return 2 * x; }\nint f() { int a = 1; return a; }\n' > "$work/src/gpu/k.cu"
mv "$work/src/gpu/k.cu" "$work/src/gpu/renamed.cu"
expect "the file renamed" moved "$base"
