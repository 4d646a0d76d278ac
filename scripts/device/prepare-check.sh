#!/usr/bin/env bash
# Prepares a GPU check from a fresh checkout in one command. Every session starts from a new
# checkout, so no earlier build or kit is left, and a session drawn a GPU runs this first: the tools,
# a CUDA build, the evaluation models at batch 1 and 16, the kit, the session script's dry run on
# that kit and a rehearsal of its live stage with pet-gpu worker's test double. Then it prints the
# one call to make. Each step's wall time is printed and kept in
# .device/prepare.txt, beside the kit.
#
#   bash scripts/device/prepare-check.sh [--target h200|h100] [--misses] [--jobs N] [--fresh]
#
# The kit holds the binaries, the weight-free work models and pet's written models (make-kit.sh
# --written --b16). In the check, the live stage times on the card what pet-opt --live asks of the
# models the card has not decided yet (scripts/device/live-plan.sh), three runs at once, starting
# from bench/profiles/<target>.json, and the e2e stage times the models the live stage wrote, then
# the kit's. --misses adds the timing requests
# the profile DB lacks (make-kit.sh --misses) and a measure stage to the check: what
# bench/profiles/<target>.json needs for every evaluation model, at the price of the longest step
# here. --jobs N: the kit's pet-opt runs at once (default 2, the cores here). --target names the
# card (default h200, the card lent so far). A kit already in .device whose manifest names the
# checked-out commit and these flags, made and kept with nothing uncommitted or untracked, is used
# as it is (scripts/device/kit-is-current.sh decides; a machine kept from an earlier session keeps
# it: run this at the end of a session to leave one ready); --fresh makes a new one all the same.
set -euo pipefail
cd "$(dirname "$0")/../.."

target=h200
misses=0
jobs=2
fresh=0
fail() { echo "prepare-check: $*" >&2; exit 1; }
usage() { echo "prepare-check: $*" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --target)
      [[ "${2:-}" == h100 || "${2:-}" == h200 ]] || usage "--target takes h100 or h200, got '${2:-}'"
      target="$2"; shift 2 ;;
    --misses) misses=1; shift ;;
    --fresh) fresh=1; shift ;;
    --jobs)
      [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage "--jobs takes a positive count, got '${2:-}'"
      jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) usage "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -x /usr/local/cuda/bin/nvcc ]] ||
  fail "no CUDA toolkit at /usr/local/cuda: the kit's binaries are built with nvcc (the project's machines have it)"

mkdir -p .device
log=.device/prepare.txt
began=$(date +%s)
step() {  # name, command...: runs it, prints and keeps its wall time
  local name=$1 start
  shift
  start=$(date +%s)
  "$@" || fail "$name failed: $*"
  echo "prepare-check: $name: $(($(date +%s) - start)) s" | tee -a "$log"
}

# BERT-s512 b1's per-step profile (the executor stage) beside the rest: the one model-batch where
# PyTorch's CUDA graph beat pet-gpu on 2026-11-29, and which of pet-gpu's steps lose is not known.
stages=environment,unit_tests,conv_apis,executor,live,e2e
caps=(--cap conv_apis=70 --cap executor=45 --cap live=285 --cap e2e=130)
kit_flags=(--target "$target" --written --b16)
if ((misses)); then
  stages=environment,unit_tests,conv_apis,executor,measure,live,e2e
  caps=(--cap conv_apis=70 --cap executor=45 --cap measure=100 --cap live=195 --cap e2e=120)
  kit_flags+=(--misses)
fi
kit_record="commit $(git rev-parse HEAD), made with make-kit.sh ${kit_flags[*]}"
reuse=0
kit_state=$(bash scripts/device/kit-is-current.sh .device "${kit_flags[@]}") && ((!fresh)) && reuse=1
: > "$log"

step tools bash scripts/install-deps.sh
step configure cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPET_BUILD_CUDA=ON -DPET_BUILD_TESTS=ON
step build cmake --build build -j"$(nproc)"
step models /usr/bin/python3 models/export_models.py --out build/models --batch 1 16
if ((reuse)); then
  echo "prepare-check: kit: the one in .device was made at this commit with these flags ($kit_record); kept (--fresh remakes it)" |
    tee -a "$log"
else
  echo "prepare-check: kit: making one ($( ((fresh)) && echo "--fresh" || echo "$kit_state"))" | tee -a "$log"
  step kit bash scripts/device/make-kit.sh "${kit_flags[@]}" --jobs "$jobs"
fi

# The live stage runs the models the card has not decided yet (live-plan.sh: their written runs in
# the kit estimated something), three at a time under the GPU lock, starting from the committed DB.
live_models=$(bash scripts/device/live-plan.sh .device/kit.tar.xz)
stage_args=(--executor-models bert_s512 --live-jobs 3)
[[ -f "bench/profiles/$target.json" ]] && stage_args+=(--live-db "bench/profiles/$target.json")
if [[ -n "$live_models" ]]; then
  stage_args+=(--live-models "$live_models")
  echo "prepare-check: live: $live_models (their written runs here estimated a cost)" | tee -a "$log"
else
  stages=${stages/,live/}
  stage_args=(--executor-models bert_s512)
  echo "prepare-check: live: every written run replays the card's times; no live stage" | tee -a "$log"
fi

dry=$(mktemp -d)
step dry_run env OUT="$dry" bash scripts/device/session.sh --stages "$stages" "${caps[@]}" "${stage_args[@]}" \
  --live-written "$dry/written"
# Here every stage says "no device"; the kit must unpack and the unit tests pass with their device tests skipped.
grep -qE "^kit +[0-9]+s +ok: commit" "$dry/summary.txt" || fail "the dry run did not unpack the kit: $(cat "$dry/summary.txt")"
for stage in ${stages//,/ }; do
  grep -qE "^$stage +[0-9]+s +no device" "$dry/summary.txt" || fail "the dry run's stage $stage: $(cat "$dry/summary.txt")"
done
grep -qE "^unit_tests +[0-9]+s +no device: [0-9]+ passed, 0 failed" "$dry/summary.txt" ||
  fail "the dry run's unit tests: $(grep '^unit_tests' "$dry/summary.txt")"
rm -rf "$dry"

# The live stage rehearsed with pet-gpu worker's test double (no card here): two small models in both
# modes, three runs at once sharing the GPU lock, the kit's proof store and one DB, as the check runs
# them; the double's "times" stay in the rehearsal's folder, removed after.
if [[ -n "$live_models" ]]; then
  rehearsal=$(mktemp -d)
  step live_rehearsal env OUT="$rehearsal" bash scripts/device/session.sh --stages live --live-jobs 3 \
    --rehearse-live build/tests/pet_fake_gpu_worker --live-models csrnet_backend,resnet18 --cap live=150 \
    --live-written "$rehearsal/written"
  grep -qE "^live +[0-9]+s +rehearsal with pet_fake_gpu_worker, no card: ok: 4 of 4 runs started finished" \
    "$rehearsal/summary.txt" || fail "the live stage's rehearsal: $(grep '^live' "$rehearsal/summary.txt")"
  rm -rf "$rehearsal"
fi

echo "prepare-check: ready in $(($(date +%s) - began)) s; the kit: .device/kit.tar.xz, $(du -m .device/kit.tar.xz | cut -f1) MiB" |
  tee -a "$log"
cat <<EOF | tee -a "$log"
The check, one call of the device tool with carry [".device"] and timeout_s 590:
  OUT=\$OUT bash scripts/device/session.sh --stages $stages ${caps[*]} ${stage_args[*]} --live-written out/live-written
Then here: bash scripts/device/after-check.sh FILES_AT $(date -u +%F)-$target/run1, commit, give_back
(docs/GPU.md, "The next check").
EOF
