#!/usr/bin/env bash
# make-kit.sh --refresh-binaries on a copy of a kit: the binaries are this build's, the work files
# stay those of the kit it refreshed (named in the manifest), and work flags are refused.
#   bash tests/device/make_kit_refresh_test.sh BUILD_DIR KIT_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$1 kit=$2
out=$(mktemp -d)
fail() { echo "FAILED: $*"; exit 1; }

cp "$kit/kit.tar.xz" "$kit/MANIFEST" "$out/"
# Two earlier checks on the kit's card, the later one repeating a decision of the first.
target=$(sed -n 's/^target \([a-z0-9]*\) .*/\1/p' "$kit/MANIFEST" | head -1)
results=$(mktemp -d)
trap 'rm -rf "$out" "$results"' EXIT
mkdir -p "$results/2026-01-02-${target:-h100}/run1" "$results/2026-01-03-${target:-h100}"
printf 'card\tconv a\t1\t0.5\t0.6\n' > "$results/2026-01-02-${target:-h100}/run1/conv-cache.tsv"
printf 'card\tconv a\t1\t0.5\t0.6\ncard\tconv b\t-1\t0.7\t0.6\n' > "$results/2026-01-03-${target:-h100}/conv-cache.tsv"
# And torch.compile's artifacts of both: the later check's file of a model and batch replaces the earlier's.
compiled="torch-compile/2.11.0+cu130--NVIDIA_H200"
mkdir -p "$results/2026-01-02-${target:-h100}/run1/$compiled" "$results/2026-01-03-${target:-h100}/$compiled"
echo early > "$results/2026-01-02-${target:-h100}/run1/$compiled/resnet18_b1.bin"
echo early > "$results/2026-01-02-${target:-h100}/run1/$compiled/bert_s128_b1.bin"
echo later > "$results/2026-01-03-${target:-h100}/$compiled/resnet18_b1.bin"
# Work files besides the executor's test models (which a refresh writes again from this checkout).
executor_models=$(ls tests/kernels/gpu/executor_models/ | sed 's/\.pet$//' | paste -sd '|' -)
kept_work() { grep '^work/' "$1" | grep -vE "^work/($executor_models)/" | sort; }
before=$(kept_work "$kit/MANIFEST")
PET_KIT_RESULTS=$results bash scripts/device/make-kit.sh --refresh-binaries --build "$build" --out "$out" > "$out/log" 2>&1 ||
  fail "make-kit --refresh-binaries failed: $(cat "$out/log")"
[[ "$(kept_work "$out/MANIFEST")" == "$before" ]] || fail "the refreshed kit's evaluation work files differ from the kit's"
for model in tests/kernels/gpu/executor_models/*.pet; do
  grep -q "^work/$(basename "$model" .pet)/model.pet " "$out/MANIFEST" || fail "the refreshed kit lacks $(basename "$model")"
done
grep -q "^work files from the kit of $(sed -n 's/^commit //p' "$kit/MANIFEST" | head -1)" "$out/MANIFEST" ||
  fail "the manifest does not name the kit the work files came from"
grep -q "^bin/pet-gpu " "$out/MANIFEST" || fail "the refreshed kit has no pet-gpu"
# The record prepare-check.sh compares: the kit's flags, and a refresh that is no such kit.
grep -qx "made with make-kit.sh --target ${target:-h100}" "$kit/MANIFEST" ||
  fail "the kit (make-kit.sh with no work flags) does not record how it was made: $(grep '^made with' "$kit/MANIFEST")"
grep -qx "made with make-kit.sh --refresh-binaries" "$out/MANIFEST" ||
  fail "the refreshed kit does not say it is a refresh: $(grep '^made with' "$out/MANIFEST")"
# A refreshed kit refreshed again still names the kit its work files came from.
PET_KIT_RESULTS=$results bash scripts/device/make-kit.sh --refresh-binaries --build "$build" --out "$out" > "$out/log" 2>&1 ||
  fail "a second --refresh-binaries failed: $(cat "$out/log")"
grep -q "^work files from the kit of $(sed -n 's/^commit //p' "$kit/MANIFEST" | head -1)" "$out/MANIFEST" ||
  fail "a second refresh lost the kit the work files came from: $(grep '^work files' "$out/MANIFEST")"
grep -q "^convolution decisions: 2 lines from earlier checks" "$out/MANIFEST" ||
  fail "the kit does not carry the earlier checks' two decisions once each: $(grep -i decisions "$out/MANIFEST")"
[[ "$(tar -xJOf "$out/kit.tar.xz" kit/conv-cache.tsv | cut -f2 | paste -sd, -)" == "conv a,conv b" ]] ||
  fail "the kit's conv-cache.tsv is not the earlier decisions, oldest first"
grep -q "^torch.compile artifacts: 2 model-batches from earlier checks" "$out/MANIFEST" ||
  fail "the kit does not carry the earlier checks' torch.compile artifacts: $(grep -i torch "$out/MANIFEST")"
[[ "$(tar -xJOf "$out/kit.tar.xz" "kit/$compiled/resnet18_b1.bin")" == later ]] ||
  fail "the kit's resnet18_b1 artifacts are not the later check's"
[[ "$(tar -xJOf "$out/kit.tar.xz" "kit/$compiled/bert_s128_b1.bin")" == early ]] || fail "the kit lost bert_s128_b1's artifacts"
listing=$(tar -tJf "$out/kit.tar.xz")
grep -qx "kit/work/conv_relu/model.pet" <<< "$listing" || fail "the archive lost its work files"

if bash scripts/device/make-kit.sh --refresh-binaries --misses --build "$build" --out "$out" > "$out/log" 2>&1; then
  fail "--refresh-binaries --misses was accepted"
fi
grep -q "it takes no --written, --b16 or --misses" "$out/log" || fail "the refusal says: $(cat "$out/log")"
echo "refreshed: $(grep -c '^bin/' "$out/MANIFEST") binaries, $(grep -c '^work/' "$out/MANIFEST") work files kept"
