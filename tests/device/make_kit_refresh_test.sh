#!/usr/bin/env bash
# make-kit.sh --refresh-binaries on a copy of a kit: the binaries are this build's, the work files
# stay those of the kit it refreshed (named in the manifest), and work flags are refused.
#   bash tests/device/make_kit_refresh_test.sh BUILD_DIR KIT_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$1 kit=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

cp "$kit/kit.tar.xz" "$kit/MANIFEST" "$out/"
# Work files besides the executor's test models (which a refresh writes again from this checkout).
executor_models=$(ls tests/kernels/gpu/executor_models/ | sed 's/\.pet$//' | paste -sd '|' -)
kept_work() { grep '^work/' "$1" | grep -vE "^work/($executor_models)/" | sort; }
before=$(kept_work "$kit/MANIFEST")
bash scripts/device/make-kit.sh --refresh-binaries --build "$build" --out "$out" > "$out/log" 2>&1 ||
  fail "make-kit --refresh-binaries failed: $(cat "$out/log")"
[[ "$(kept_work "$out/MANIFEST")" == "$before" ]] || fail "the refreshed kit's evaluation work files differ from the kit's"
for model in tests/kernels/gpu/executor_models/*.pet; do
  grep -q "^work/$(basename "$model" .pet)/model.pet " "$out/MANIFEST" || fail "the refreshed kit lacks $(basename "$model")"
done
grep -q "^work files from the kit of $(sed -n 's/^commit //p' "$kit/MANIFEST" | head -1)" "$out/MANIFEST" ||
  fail "the manifest does not name the kit the work files came from"
grep -q "^bin/pet-gpu " "$out/MANIFEST" || fail "the refreshed kit has no pet-gpu"
listing=$(tar -tJf "$out/kit.tar.xz")
grep -qx "kit/work/conv_relu/model.pet" <<< "$listing" || fail "the archive lost its work files"

if bash scripts/device/make-kit.sh --refresh-binaries --misses --build "$build" --out "$out" > "$out/log" 2>&1; then
  fail "--refresh-binaries --misses was accepted"
fi
grep -q "it takes no --written, --b16 or --misses" "$out/log" || fail "the refusal says: $(cat "$out/log")"
echo "refreshed: $(grep -c '^bin/' "$out/MANIFEST") binaries, $(grep -c '^work/' "$out/MANIFEST") work files kept"
