#!/usr/bin/env bash
# live-plan.sh, the live stage's work list prepare-check.sh prints: a kit's models whose written
# runs priced something by estimate or chose on estimates, in the live stage's order, each with its
# undecided mode where only one is; a model whose runs both replay the card's times is left out; a kit without written runs is an error naming it.
set -uo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAILED: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

report() {  # run name, estimated count, selection source
  mkdir -p "$work/kit/work-written/$1"
  printf '{"target": {"kernel_costs": {"measured": 0, "replayed": 12, "estimated": %s}, "selection": {"source": "%s"}}}\n' \
    "$2" "$3" > "$work/kit/work-written/$1/report.json"
}
# Before: resnet18 decided on the card in both modes; its b16 PET run estimated 3 costs; CSRNet's
# TASO-only run chose on estimates; BERT-s512 b16 and b1 estimated; r3d_18 decided; Inception-v3
# 330 undecided in both modes.
report resnet18.pet 0 replayed
report resnet18.taso 0 measured
report resnet18_b16.pet 3 replayed
report resnet18_b16.taso 0 replayed
report csrnet.pet 0 replayed
report csrnet.taso 0 estimated
report bert_s512_b16.pet 5 estimated
report bert_s512.taso 1 replayed
report r3d_18.pet 0 replayed
report inception_v3_330.pet 2 replayed
report inception_v3_330.taso 0 estimated
tar -C "$work" -cJf "$work/kit.tar.xz" kit
# After: the default order's models first (resnet18_b16, csrnet), then batch 1 before batch 16; a
# model with one mode undecided names that mode, one with both runs both.
got=$(bash scripts/device/live-plan.sh "$work/kit.tar.xz") || fail "live-plan failed: $got"
[[ "$got" == "resnet18_b16.pet,csrnet.taso,bert_s512.taso,inception_v3_330,bert_s512_b16.pet" ]] || fail "got '$got'"

# Every run decided: nothing to run.
rm -rf "$work/kit" && report resnet18.pet 0 replayed && tar -C "$work" -cJf "$work/kit.tar.xz" kit
got=$(bash scripts/device/live-plan.sh "$work/kit.tar.xz") || fail "live-plan failed: $got"
[[ -z "$got" ]] || fail "a decided kit listed '$got'"

# A kit without written runs, and no kit at all.
rm -rf "$work/kit" && mkdir -p "$work/kit/work" && tar -C "$work" -cJf "$work/kit.tar.xz" kit
err=$(bash scripts/device/live-plan.sh "$work/kit.tar.xz" 2>&1) && fail "a kit without written runs passed"
[[ "$err" == *"holds no written runs (make it with make-kit.sh --written)"* ]] || fail "its message: '$err'"
err=$(bash scripts/device/live-plan.sh "$work/none.tar.xz" 2>&1) && fail "a missing kit passed"
[[ "$err" == *"no kit at $work/none.tar.xz"* ]] || fail "its message: '$err'"
echo "live-plan: the undecided models in order, an empty list, and both errors"
