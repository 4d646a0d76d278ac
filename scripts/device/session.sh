#!/usr/bin/env bash
# One GPU check, in stages: each has its own time cap and writes its files before the next starts,
# so a stage that fails or runs long costs only itself. Results go to $OUT (the device tool brings
# back at most 8 files): summary.txt, session.log and results.tar.gz with every stage's files.
#
# There (from the repository root, after carrying .device):
#   OUT=$OUT bash scripts/device/session.sh
# Here, as a dry run (every stage says "no device" and still writes its files):
#   OUT=/tmp/session bash scripts/device/session.sh [--kit .device/kit.tar.xz] [--stages a,b] [--cap stage=S ...]
# --stages runs only the named stages, in the order given (the kit first); --cap gives a stage another time cap
# in seconds (the measure stage's deadline and the e2e stage's last model start follow its cap);
# --compile-models LIST: the models of the compile stage (only run when --stages names it);
# --compile-batches LIST: its batches (default 1);
# --conv-apis-models LIST: the conv_apis stage's (likewise); --executor-models LIST: the executor
# stage's work models (default: every one);
# --measure-after FILE[,FILE]: the measure stage leaves out what those results (an earlier run's on
# this kit, carried in .device/) timed.
# --live-models LIST: the work models of the live stage, in order (default below; <model>_b16 for
# batch 16), each run in modes taso then pet, or <model>.<mode> for that mode alone; --live-jobs N:
# its pet-opt runs at once (default 1); --live-db FILE: the DB it starts from (an earlier run's
# returned live-db.json, carried in .device/) instead of an empty one;
# --live-written DIR: where its finished runs' written models stay for the e2e stage (default: this
# call's temporary folder; out/live-written, ignored by git and never carried, outlives the call on
# a machine kept warm, so a second call's e2e stage times the first call's models too; one folder
# per kit).
# --rehearse-live WORKER: here, without a GPU, the live stage runs anyway with WORKER (the tests'
# build/tests/pet_fake_gpu_worker) standing in for pet-gpu worker: its runs, jobs, shared lock, DB
# and summary are exercised, its "times" are the test double's, its card $PET_FAKE_GPU_CARD = the kit's
# target's card (live.status says "rehearsal").
set -uo pipefail
cd "$(dirname "$0")/../.."

kit_archive=.device/kit.tar.xz
only_stages=""
compile_models=resnet18,csrnet_backend,bert_s128
compile_batches=1
conv_apis_models=csrnet_backend,resnet18,resnet18_b16,inception_v3_299,resnet50
executor_models=""
measure_after=""
live_models=resnet18,csrnet_backend,resnet18_b16,inception_v3_299,bert_s128,resnet50,csrnet,r3d_18,csrnet_backend_b16
live_jobs=1
live_db=""
live_written=""
rehearsal_worker=""
declare -A caps=()
while (($#)); do
  case "$1" in
    --kit) kit_archive="$2"; shift 2 ;;
    --stages) only_stages="$2"; shift 2 ;;
    --compile-models) compile_models="$2"; shift 2 ;;
    --compile-batches)
      [[ "${2:-}" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "session: --compile-batches takes batches like 1,16, got '${2:-}'" >&2; exit 2; }
      compile_batches="$2"; shift 2 ;;
    --conv-apis-models) conv_apis_models="$2"; shift 2 ;;
    --executor-models) executor_models="$2"; shift 2 ;;
    --measure-after) measure_after="$2"; shift 2 ;;
    --live-models) live_models="$2"; shift 2 ;;
    --live-db)
      [[ -f "${2:-}" ]] || { echo "session: --live-db names no file: '${2:-}'" >&2; exit 2; }
      live_db="$2"; shift 2 ;;
    --live-written)
      [[ -n "${2:-}" ]] || { echo "session: --live-written takes a folder" >&2; exit 2; }
      live_written="$2"; shift 2 ;;
    --rehearse-live)
      [[ -x "${2:-}" ]] || { echo "session: --rehearse-live names no executable worker: '${2:-}'" >&2; exit 2; }
      rehearsal_worker="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    --live-jobs)
      [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "session: --live-jobs takes a positive count, got '${2:-}'" >&2; exit 2; }
      live_jobs="$2"; shift 2 ;;
    --cap)
      [[ "${2:-}" =~ ^([a-z_0-9]+)=([0-9]+)$ ]] || { echo "session: --cap takes STAGE=SECONDS, got '${2:-}'" >&2; exit 2; }
      caps[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "session: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n "${OUT:-}" ]] || { echo "session: set OUT to the folder the results go to" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d)
results="$work/results"
mkdir -p "$results"
exec > >(tee -a "$OUT/session.log") 2>&1

declare -a summary=()
no_device=1
kit="$work/kit"
torch_compile_out="$work/torch-compile"  # the compile stage's artifacts, returned on their own

say() { echo "[$(date -u +%H:%M:%S)] $*"; }
# torch.compile's artifacts travel back in a file of their own (a few MiB a model; the device tool
# takes 8 files of at most 16 MiB), written only when a stage saved some.
pack_results() {
  tar -C "$work" -czf "$OUT/results.tar.gz.part" results && mv "$OUT/results.tar.gz.part" "$OUT/results.tar.gz"
  if [[ -n "$(ls -A "$torch_compile_out" 2>/dev/null)" ]]; then
    tar -C "$work" -czf "$OUT/torch-compile.tar.gz.part" torch-compile && mv "$OUT/torch-compile.tar.gz.part" "$OUT/torch-compile.tar.gz"
    (($(stat -c %s "$OUT/torch-compile.tar.gz") < 16 * 1048576)) ||
      say "torch-compile.tar.gz is over 16 MiB: the device tool will not return it (compile fewer models a call)"
  fi
}
write_summary() {
  { echo "pet GPU session summary ($(date -u +%Y-%m-%dT%H:%M:%SZ))"; printf '%s\n' "${summary[@]}"; } > "$OUT/summary.txt"
}

# run_stage NAME CAP_SECONDS: runs stage_NAME under a time cap; its last line of $results/NAME.status
# is its outcome (ok, failed, no device, unsupported here, ...); a stage cut by its cap says so.
run_stage() {
  local name=$1 cap=${caps[$1]:-$2} started outcome
  export OUT
  export STAGE_CAP=$cap
  started=$(date +%s)
  say "stage $name (cap ${cap}s)"
  export -f "stage_$name" say
  timeout --kill-after=10 "$cap" bash -c "stage_$name" > "$results/$name.log" 2>&1
  local rc=$?
  outcome=$(tail -n 1 "$results/$name.status" 2>/dev/null || echo "failed (no outcome written)")
  ((rc == 124 || rc == 137)) && outcome="timed out after ${cap}s; ${outcome}"
  ((rc != 0 && rc != 124 && rc != 137)) && [[ "$outcome" == ok* ]] && outcome="failed (exit $rc)"
  summary+=("$(printf '%-12s %4ss  %s' "$name" "$(($(date +%s) - started))" "$outcome")")
  say "stage $name: $outcome"
  sed 's/^/  | /' "$results/$name.log" | tail -n 40
  pack_results
  write_summary
}

# ---- the stages; each writes $results/<stage>.* and its outcome as the last line of <stage>.status

stage_kit() {
  [[ -f "$KIT_ARCHIVE" ]] || { echo "failed: no kit at $KIT_ARCHIVE (bash scripts/device/make-kit.sh)" > "$RESULTS/kit.status"; exit 1; }
  mkdir -p "$KIT_DIR" && tar -C "$(dirname "$KIT_DIR")" -xJf "$KIT_ARCHIVE" 2>/dev/null ||
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$KIT_ARCHIVE" "$(dirname "$KIT_DIR")"
  cp "$KIT_DIR/MANIFEST" "$RESULTS/kit.manifest"
  echo "ok: $(sed -n 2p "$KIT_DIR/MANIFEST")" > "$RESULTS/kit.status"
}

stage_environment() {
  local file="$RESULTS/environment.txt"
  {
    echo "== machine"; uname -a; grep -m1 "model name" /proc/cpuinfo; nproc
    echo "runtime: $(case "$(uname -r)" in *-fc-*) echo firecracker ;; 4.4.0*) echo gvisor ;; *) echo "other ($(uname -r))" ;; esac)"
    echo "== GPU (clocks read, never set)"
    if command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=name,uuid,driver_version,pstate,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,power.draw,power.limit,temperature.gpu,memory.total,persistence_mode,compute_mode,ecc.mode.current --format=csv
      nvidia-smi -q -d CLOCK,PERFORMANCE | sed -n '1,80p'
    else
      echo "nvidia-smi: not found"
    fi
    echo "== python3 and its CUDA wheels"
    python3 --version
    python3 -m pip list 2>/dev/null | grep -iE '^(torch|onnx|onnxruntime|cupy|nvidia-(cublas|cudnn|cuda-nvrtc|cuda-runtime)[a-z0-9-]*) ' || true
    python3 -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version())' 2>&1 || true
    echo "library folders: $LIBRARY_PATH_FOR_KIT"
    echo "== pet-gpu devices (versions as loaded, with paths; self-test)"
  } > "$file" 2>&1
  LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" "$KIT_DIR/bin/pet-gpu" devices >> "$file" 2>&1
  local rc=$?
  if grep -q "^no CUDA device" "$file"; then echo "no device" > "$RESULTS/environment.status"
  elif ((rc == 0)); then echo "ok: $(grep -m1 '^GPU 0:' "$file"); $(grep -m1 '^CUDA runtime' "$file")" > "$RESULTS/environment.status"
  else echo "failed: pet-gpu devices exited $rc" > "$RESULTS/environment.status"; fi
}

stage_ceilings() {
  local file="$RESULTS/ceilings.txt"
  [[ "$NO_DEVICE" == 1 ]] && { echo "no device" > "$file"; echo "no device" > "$RESULTS/ceilings.status"; exit 0; }
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv > "$RESULTS/ceilings.clocks-before.csv"
  LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" "$KIT_DIR/bin/pet-gpu" ceilings > "$file" 2>&1
  local rc=$?
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv > "$RESULTS/ceilings.clocks-after.csv"
  if ((rc == 0)); then echo "ok: $(grep -o '^[a-z0-9 ]*: [0-9.]* [A-Za-z/]*' "$file" | paste -sd ';' -)" > "$RESULTS/ceilings.status"
  else echo "failed: pet-gpu ceilings exited $rc" > "$RESULTS/ceilings.status"; fi
}

stage_unit_tests() {
  local passed=0 failed=0 skipped=0 broken=0 counts binary name
  for binary in pet_kernels_tests pet_cuda_emit_tests pet_gpu_executor_tests pet_gpu_codegen_tests; do
    name=${binary%_tests}
    PET_SOURCE_DIR="$PWD" LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" timeout 60 "$KIT_DIR/bin/$binary" \
      --gtest_output="json:$RESULTS/gtest-$name.json" > "$RESULTS/gtest-$name.log" 2>&1
    # passed, failed, skipped of this binary from its JSON; a binary that wrote none is broken.
    counts=$(python3 -c 'import json, sys
cases = [t for s in json.load(open(sys.argv[1]))["testsuites"] for t in s["testsuite"]]
skipped = sum(1 for t in cases if t.get("result") == "SKIPPED")
failed = sum(1 for t in cases if t.get("failures"))
print(len(cases) - skipped - failed, failed, skipped)' "$RESULTS/gtest-$name.json" 2>/dev/null) || { broken=$((broken + 1)); continue; }
    read -r p f k <<< "$counts"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + k))
  done
  counts="$passed passed, $failed failed, $skipped skipped, $broken binaries without results"
  if ((failed || broken)); then echo "failed: $counts" > "$RESULTS/unit_tests.status"
  elif [[ "$NO_DEVICE" == 1 ]]; then echo "no device: $counts (device tests skip)" > "$RESULTS/unit_tests.status"
  else echo "ok: $counts" > "$RESULTS/unit_tests.status"; fi
}

stage_memcheck() {
  local file="$RESULTS/memcheck.txt"
  [[ "$NO_DEVICE" == 1 ]] && { echo "no device" > "$file"; echo "no device" > "$RESULTS/memcheck.status"; exit 0; }
  local sanitizer
  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /opt/nvidia/*/compute-sanitizer 2>/dev/null | head -1)
  [[ -x "$sanitizer" ]] || { echo "unsupported here: no compute-sanitizer" > "$RESULTS/memcheck.status"; exit 0; }
  # The correction kernels run in pet_cuda_emit_tests (NVRTC-compiled, launched and compared with the CPU).
  LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" "$sanitizer" --tool memcheck --leak-check full --error-exitcode 3 \
    "$KIT_DIR/bin/pet_cuda_emit_tests" > "$file" 2>&1
  local rc=$?
  if grep -qiE "device not supported|unsupported device|not supported on this" "$file"; then
    echo "unsupported here: $(grep -m1 -iE 'not supported' "$file")" > "$RESULTS/memcheck.status"
  elif ((rc == 0)); then echo "ok: $(grep -m1 'ERROR SUMMARY' "$file")" > "$RESULTS/memcheck.status"
  else echo "failed: exit $rc, $(grep -m1 'ERROR SUMMARY' "$file" || echo 'no error summary')" > "$RESULTS/memcheck.status"; fi
}

# Every work model through pet's executor: checked in FP32-strict mode (relative L2 <= 1e-4 against
# pet's CPU executor, computed where the kit was made) and in TF32, then timed as CUDA-graph
# replays with per-step times. Small models first; each command has its own cap.
stage_executor() {
  local file="$RESULTS/executor.txt" passed=0 failed=0 timed=0 model folder
  [[ "$NO_DEVICE" == 1 ]] && { echo "no device" > "$file"; echo "no device" > "$RESULTS/executor.status"; exit 0; }
  for folder in "$KIT_DIR"/work/*/; do
    model=$(basename "$folder")
    [[ -z "$EXECUTOR_MODELS" || ",$EXECUTOR_MODELS," == *",$model,"* ]] || continue
    # A folder without references (batch 16: model.pet alone) is timed, not checked.
    if [[ -f "$folder/input_0.pb" ]]; then
      for mode in --strict --tf32; do
        echo "== check $model $mode" >> "$file"
        if LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" timeout 60 "$KIT_DIR/bin/pet-gpu" check "$folder/model.pet" \
             --reference "$folder" "$mode" --steps --conv-cache "$CONV_CACHE" >> "$file" 2>&1; then
          passed=$((passed + 1))
        else failed=$((failed + 1)); fi
      done
    fi
    echo "== time $model" >> "$file"
    if LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" timeout 60 "$KIT_DIR/bin/pet-gpu" time "$folder/model.pet" --tf32 --per-step \
         --runs 50 --warmup 10 --conv-cache "$CONV_CACHE" >> "$file" 2>&1; then
      timed=$((timed + 1))
    else failed=$((failed + 1)); fi
  done
  if ((failed)); then echo "failed: $passed checks passed, $timed models timed, $failed checks or timings failed" > "$RESULTS/executor.status"
  else echo "ok: $passed checks passed (strict and tf32), $timed models timed" > "$RESULTS/executor.status"; fi
}

# The timings h100's profile DB lacks (make-kit.sh --misses: pet-opt --target h100 --replay
# --export-misses on the evaluation models at batch 1 and 16, modes taso and pet), timed as the
# measured path would time them (pet-gpu measure: each request interleaved, CUDA events, warm-ups,
# medians), one result line each, until its deadline; pet-profile --import brings them home. The
# results go straight into $OUT as they are written, so a cut run still returns them.
stage_measure() {
  local file="$RESULTS/measure.txt" misses="$KIT_DIR/misses/misses.jsonl"
  [[ "$NO_DEVICE" == 1 ]] && { echo "no device" > "$file"; echo "no device" > "$RESULTS/measure.status"; exit 0; }
  [[ -f "$misses" ]] || { echo "not in this kit (make-kit.sh --misses)" > "$RESULTS/measure.status"; exit 0; }
  local earlier=() paths=() path
  IFS=, read -r -a paths <<< "$MEASURE_AFTER"
  for path in "${paths[@]}"; do [[ -n "$path" ]] && earlier+=(--skip-timed "$path"); done
  LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" "$KIT_DIR/bin/pet-gpu" measure "$misses" --deadline $((STAGE_CAP - 20)) \
    --conv-cache "$CONV_CACHE" --out "$OUT/measure.results.jsonl" "${earlier[@]}" > "$file" 2>&1
  local rc=$?
  cp "$OUT/measure.results.jsonl" "$RESULTS/measure.results.jsonl" 2>/dev/null
  if ((rc == 0)); then echo "ok: $(grep -m1 '; results in ' "$file"); $(grep -m1 "^time by kind: " "$file"); $(grep -m1 "^pet-gpu's loads: " "$file")" > "$RESULTS/measure.status"
  else echo "failed: pet-gpu measure exited $rc, $(grep -c '"request"' "$RESULTS/measure.results.jsonl" 2>/dev/null || echo 0) results written" > "$RESULTS/measure.status"; fi
}

# pet's written models (make-kit.sh --written: pet-opt --target h100, modes pet and taso), each
# checked in FP32-strict mode against pet's CPU executor.
stage_written() {
  local file="$RESULTS/written.txt" passed=0 failed=0 untested=0 folder
  [[ "$NO_DEVICE" == 1 ]] && { echo "no device" > "$file"; echo "no device" > "$RESULTS/written.status"; exit 0; }
  [[ -d "$KIT_DIR/work-written" ]] || { echo "not in this kit (make-kit.sh --written)" > "$RESULTS/written.status"; exit 0; }
  for folder in "$KIT_DIR"/work-written/*/; do
    # Batch 16's written models carry no references (the e2e stage times them from seeded inputs).
    [[ -f "$folder/input_0.pb" ]] || { untested=$((untested + 1)); continue; }
    echo "== check $(basename "$folder") --strict" >> "$file"
    if LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" timeout 30 "$KIT_DIR/bin/pet-gpu" check "$folder/model.pet" \
         --reference "$folder" --strict >> "$file" 2>&1; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    # The outcome so far, so a stage cut by its cap still says how far it got.
    echo "cut short: $passed written models matched, $failed did not, so far" > "$RESULTS/written.status"
  done
  if ((failed)); then echo "failed: $passed written models matched, $failed did not ($untested without references)" > "$RESULTS/written.status"
  else echo "ok: $passed written models match pet's CPU executor (strict; $untested without references, timed in e2e)" > "$RESULTS/written.status"; fi
}

# run_e2e NAME FILE [e2e.py flags]: bench/gpu/e2e.py with the stages' common flags (3 rounds of 30
# replays after 5 warm-ups, no model started after three quarters of the cap, the session's
# convolution decisions), its results straight into $OUT/FILE as it goes (a run the device tool
# cuts short still returns the models it finished; the results archive is packed only between
# stages), its log in NAME.txt and one outcome line in NAME.status with e2e.py's own counts.
run_e2e() {
  local name=$1 json=$2 rc counts
  shift 2
  LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" PYTHONUNBUFFERED=1 python3 bench/gpu/e2e.py --kit "$KIT_DIR" \
    --out "$OUT/$json" --rounds 3 --runs 30 --warmup 5 --seconds $((STAGE_CAP * 3 / 4)) --conv-cache "$CONV_CACHE" \
    "$@" > "$RESULTS/$name.txt" 2>&1
  rc=$?
  cp "$OUT/$json" "$RESULTS/$json" 2>/dev/null
  counts=$(grep -m1 "^e2e: wrote " "$RESULTS/$name.txt" | sed 's/^e2e: wrote [^:]*: //')
  case $rc in
    0) echo "ok: every variant started was measured: ${counts:-no summary line} ($json)" > "$RESULTS/$name.status" ;;
    3) echo "no device (e2e.py found no CUDA device)" > "$RESULTS/$name.status" ;;
    *) echo "failed: exit $rc, ${counts:-no summary line} ($json)" > "$RESULTS/$name.status" ;;
  esac
}
export -f run_e2e

# The goals of issues 33 and 36, reported: pet-gpu on the input and on TASO-only's and PET's
# written models (the kit's work-written folders, from make-kit.sh --written) against PyTorch eager
# with cudnn.benchmark and in a CUDA graph, same architectures and seeds, batch 1 then batch 16
# where the kit has it (make-kit.sh --b16), TF32 on both sides, interleaved in rounds
# (bench/gpu/e2e.py, format pet-gpu-e2e/1, which harness.py --gpu-results reads); torch.compile is
# the compile stage's. After a live stage in the same session, the models pet-opt --live wrote
# (chosen on this card) are timed in place of the kit's, those models first.
stage_e2e() {
  [[ "$NO_DEVICE" == 1 ]] && { echo "no device" > "$RESULTS/e2e.txt"; echo "no device" > "$RESULTS/e2e.status"; exit 0; }
  run_e2e e2e e2e.json --batches 1,16 --compile-budget 0 --written "$LIVE_WRITTEN"
}

# torch.compile beside the other variants for the models --compile-models names (default
# resnet18,csrnet_backend,bert_s128) at --compile-batches (default 1), its compile budget half the
# cap, in a file of its own (e2e-compile.json) that after-check.sh merges with e2e.json, each model
# and batch taken whole from one run. Each model first loads the kit's artifacts of earlier checks
# (kit/torch-compile, bench/gpu/compile_cache.py), and what its compile made or read is returned
# (torch-compile.tar.gz) for the next kit. Not in the default stages: name it with --stages.
stage_compile() {
  [[ "$NO_DEVICE" == 1 ]] && { echo "no device" > "$RESULTS/compile.txt"; echo "no device" > "$RESULTS/compile.status"; exit 0; }
  run_e2e compile e2e-compile.json --models "$COMPILE_MODELS" --batches "$COMPILE_BATCHES" \
    --compile-budget $((STAGE_CAP / 2)) --compile-cache "$KIT_DIR/torch-compile" --compile-cache-out "$TORCH_COMPILE_OUT"
}

# pet-gpu's convolutions four ways on the inputs of --conv-apis-models, side by side
# (bench/gpu/conv_apis.py): cuDNN's legacy API alone, with the graph API's plans, the default without
# split-K GEMMs (--gemm-splits 0), and the default (the column path too, every GEMM searched with K
# split), 3 rounds of 30 replays; no model started after three quarters of the cap.
# Not in the default stages: name it with --stages.
stage_conv_apis() {
  [[ "$NO_DEVICE" == 1 ]] && { echo "no device" > "$RESULTS/conv_apis.txt"; echo "no device" > "$RESULTS/conv_apis.status"; exit 0; }
  local rc
  # Into the results archive alone (the device tool returns 8 files; the stage ends by itself).
  LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" PYTHONUNBUFFERED=1 python3 bench/gpu/conv_apis.py --kit "$KIT_DIR" \
    --out "$RESULTS/conv_apis.json" --models "$CONV_APIS_MODELS" --seconds $((STAGE_CAP * 3 / 4)) \
    > "$RESULTS/conv_apis.txt" 2>&1
  rc=$?
  if ((rc == 0)); then echo "ok: $(grep -c ' us; ' "$RESULTS/conv_apis.txt") models timed four ways (conv_apis.json)" > "$RESULTS/conv_apis.status"
  else echo "failed: exit $rc (conv_apis.txt)" > "$RESULTS/conv_apis.status"; fi
}

# pet-opt --live on the card, as a user with this GPU runs it: each of LIVE_MODELS (the kit's work
# models, weight-free: their weights regenerated from seeds) in modes taso then pet, searched here on
# the device's cores and timed through pet-gpu worker, LIVE_JOBS runs at once sharing one GPU lock
# (their timings one at a time) and the session's convolution decisions. Every run adds its times to one profile DB, $OUT/live-db.json,
# started from the measure stage's results where this session has them, and keeps its report and
# summary; a run is given the time left before the cap, where SIGTERM cancels it and it keeps in
# the DB what it measured (20 s later it is killed, saving nothing). after-check.sh merges the DB
# into bench/profiles/<target>.json. Each finished run's written model stays in $LIVE_WRITTEN
# (<run>.onnx and its report <run>.json; on the device only: BERT's is 430 MB) for the e2e stage.
stage_live() {
  local file="$RESULTS/live.txt" folder="$RESULTS/live" db="$OUT/live-db.json" target started deadline
  [[ "$NO_DEVICE" == 1 && -z "$REHEARSAL_WORKER" ]] && { echo "no device" > "$file"; echo "no device" > "$RESULTS/live.status"; exit 0; }
  [[ -x "$KIT_DIR/bin/pet-opt" ]] || { echo "not in this kit (pet-opt)" > "$RESULTS/live.status"; exit 0; }
  target=$(sed -n 's/^target \([a-z0-9]*\) .*/\1/p' "$KIT_DIR/MANIFEST" | head -1)
  started=$(date +%s) deadline=$(($(date +%s) + STAGE_CAP - 30))
  mkdir -p "$folder" "$LIVE_WRITTEN"
  if [[ ! -f "$db" && -n "$LIVE_DB" ]]; then cp "$LIVE_DB" "$db"; elif [[ ! -f "$db" ]]; then echo '{"entries": []}' > "$db"; fi
  if [[ -s "$OUT/measure.results.jsonl" ]]; then
    LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" "$KIT_DIR/bin/pet-profile" --import "$OUT/measure.results.jsonl" \
      --misses "$KIT_DIR/misses/misses.jsonl" --out "$db" >> "$file" 2>&1
  fi
  # One model's two modes never run at once: both time the input and the cleaned input under the same
  # DB keys, and the second to save would put its times beside the first's programs (a run waits for
  # the model's lock; timeout counts the wait).
  # Each run matches rules on its share of the cores, one left per run for its pet-gpu worker, so
  # the timing thread of one run never waits for another run's matching; instance proofs come from
  # the kit's proof store (its pet-opt runs here), and new ones join it.
  local match_jobs=$((($(nproc) - LIVE_JOBS) / LIVE_JOBS))
  ((match_jobs >= 1)) || match_jobs=1
  live_run() {  # name, model file, mode: pet-opt --live until the deadline
    local left=$((deadline - $(date +%s))) begun=$(date +%s) one_at_a_time=()
    command -v flock > /dev/null && one_at_a_time=(flock "$RESULTS/live-${1%.*}.lock")
    local rehearsal_env=()  # the test double answers as the card of the kit's target
    [[ -n "$REHEARSAL_WORKER" ]] && rehearsal_env=(PET_GPU="$REHEARSAL_WORKER" PET_FAKE_GPU_CARD="NVIDIA ${target^^} (rehearsal)")
    env "${rehearsal_env[@]}" \
      PET_DATA_DIR="$KIT_DIR/data" PET_GPU_LOCK="$RESULTS/gpu.lock" PET_GPU_CONV_CACHE="$CONV_CACHE" \
      PET_PROOF_CACHE="$KIT_DIR/proofs" LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" \
      timeout --kill-after=20 "$left" "${one_at_a_time[@]}" "$KIT_DIR/bin/pet-opt" "$2" --target "$target" --live \
      --jobs "$match_jobs" --profile-db "$db" --mode "$3" -o "$LIVE_WRITTEN/$1.onnx" --report "$folder/$1.json" \
      > "$folder/$1.txt" 2>&1
    local status=$?
    # Only a finished run's model is the card's choice: anything a failed run left is not timed.
    if [[ $status == 0 ]]; then cp "$folder/$1.json" "$LIVE_WRITTEN/$1.json"; else rm -f "$LIVE_WRITTEN/$1.onnx"; fi
    echo $(($(date +%s) - begun)) > "$folder/$1.seconds"
    echo $status > "$folder/$1.status"
  }
  local proofs_before
  proofs_before=$(find "$KIT_DIR/proofs" -name '*.entry' 2>/dev/null | wc -l)
  local models=() model mode run runs=()
  IFS=, read -r -a models <<< "$LIVE_MODELS"
  local entry modes planned=() held=""
  for entry in "${models[@]}"; do
    model=${entry%.*} modes="taso pet"
    [[ "$entry" == *.taso || "$entry" == *.pet ]] && modes=${entry##*.} || model=$entry
    [[ -f "$KIT_DIR/work/$model/model.pet" ]] || { echo "$model: not in this kit" >> "$file"; continue; }
    for mode in $modes; do
      # With runs at once, a model's second mode goes after the next model's first: it would only
      # wait for its first mode's lock, holding a slot.
      if ((LIVE_JOBS > 1)) && [[ -n "$held" && "$mode" == taso ]]; then planned+=("$model.$mode" "$held"); held=""
      elif ((LIVE_JOBS > 1)) && [[ "$mode" == pet && " ${planned[*]} " == *" $model.taso "* ]]; then
        [[ -n "$held" ]] && planned+=("$held")
        held="$model.$mode"
      else planned+=("$model.$mode"); fi
    done
  done
  [[ -n "$held" ]] && planned+=("$held")
  for run in "${planned[@]}"; do
    model=${run%.*} mode=${run##*.}
    while (($(jobs -rp | wc -l) >= LIVE_JOBS)); do wait -n; done
    (($(date +%s) + 30 < deadline)) || break
    echo "[$(date -u +%H:%M:%S)] start $run" >> "$file"
    live_run "$run" "$KIT_DIR/work/$model/model.pet" "$mode" &
    runs+=("$run")
  done
  wait
  local finished=0 cut=0 failed=0 status took
  for run in "${runs[@]}"; do
    status=$(cat "$folder/$run.status" 2>/dev/null || echo 1)
    took="; $(cat "$folder/$run.seconds" 2>/dev/null || echo "?") s in all"
    case $status in
      0) finished=$((finished + 1)); echo "$run: $(grep -m1 'kernel costs:' "$folder/$run.txt" | sed 's/^ *//')$took" >> "$file" ;;
      124) cut=$((cut + 1)); echo "$run: cancelled at the cap (what it measured is kept)$took" >> "$file" ;;
      137) cut=$((cut + 1)); echo "$run: killed at the cap (nothing saved)$took" >> "$file" ;;
      *) failed=$((failed + 1)); echo "$run: failed (exit $status): $(tail -n 1 "$folder/$run.txt")$took" >> "$file" ;;
    esac
  done
  echo "written models kept for the e2e stage: $(find "$LIVE_WRITTEN" -name '*.onnx' | wc -l)" >> "$file"
  echo "proof store: $proofs_before instance proofs from the kit, $(find "$KIT_DIR/proofs" -name '*.entry' 2>/dev/null | wc -l) after the runs" >> "$file"
  local outcome="$finished of ${#runs[@]} runs started finished ($cut cut at the cap, $failed failed) in $(($(date +%s) - started)) s, $(grep -c '"key"' "$db") entries in live-db.json"
  local rehearsal=""
  [[ -n "$REHEARSAL_WORKER" ]] && rehearsal="rehearsal with $(basename "$REHEARSAL_WORKER"), no card: "
  if ((failed)); then echo "${rehearsal}failed: $outcome" > "$RESULTS/live.status"; else echo "${rehearsal}ok: $outcome" > "$RESULTS/live.status"; fi
}

# ---- where the device's CUDA libraries are: torch's nvidia-* wheels, the driver, then the toolkit

device_library_path() {
  local folders=()
  local site
  site=$(python3 -c 'import nvidia, os; print("\n".join(nvidia.__path__))' 2>/dev/null) || site=""
  if [[ -n "$site" ]]; then
    while read -r folder; do folders+=("$folder"); done < <(find $site -name 'lib*.so*' -printf '%h\n' 2>/dev/null | sort -u)
  fi
  for folder in /usr/local/nvidia/lib64 /usr/local/cuda/lib64; do [[ -d "$folder" ]] && folders+=("$folder"); done
  (IFS=:; echo "${folders[*]}")
}

# Each TF32 load's convolution decisions (cuDNN's legacy API or a graph-API plan, timed at load),
# shared by every later load of the session and returned with the results; the kit's decisions
# from earlier checks on this card (make-kit.sh) are where it starts.
export KIT_ARCHIVE="$kit_archive" KIT_DIR="$kit" RESULTS="$results" CONV_CACHE="$results/conv-cache.tsv"
# Every pet-gpu process of the session (the live runs' workers, e2e, executor, compile) shares one
# store of compiled kernels, so a kernel is compiled once per session (docs/GPU.md, "Loads").
export PET_GPU_KERNEL_CACHE="$kit/gpu-kernels"
# Each pet-gpu worker (one per live run) says as it ends what its loads took and reused.
export PET_GPU_ACTIVITY_LOG="$results/worker-activity.txt"
if [[ -n "$live_written" ]]; then mkdir -p "$live_written" && LIVE_WRITTEN=$(cd "$live_written" && pwd); else LIVE_WRITTEN="$work/live-written"; fi
export LIVE_WRITTEN
export COMPILE_MODELS="$compile_models" COMPILE_BATCHES="$compile_batches" TORCH_COMPILE_OUT="$torch_compile_out"
export CONV_APIS_MODELS="$conv_apis_models" EXECUTOR_MODELS="$executor_models"
export MEASURE_AFTER="$measure_after" LIVE_MODELS="$live_models" LIVE_JOBS="$live_jobs"
export REHEARSAL_WORKER="$rehearsal_worker"
export LIVE_DB="${live_db:+$(cd "$(dirname "$live_db")" && pwd)/$(basename "$live_db")}"
say "pet GPU session, results in $OUT"
run_stage kit 30
[[ -f "$kit/conv-cache.tsv" ]] && cp "$kit/conv-cache.tsv" "$CONV_CACHE"
export LIBRARY_PATH_FOR_KIT="$kit/lib:$(device_library_path)"
if LD_LIBRARY_PATH="$LIBRARY_PATH_FOR_KIT" "$kit/bin/pet-gpu" devices 2>/dev/null | grep -q "^GPU 0:"; then no_device=0; fi
export NO_DEVICE=$no_device
# The caps sum to 575 s with the kit's (under timeout_s 590); on the H200 on 2026-11-28 the stages
# took 7, 15, 115 (24 models), -, 1, 3, 60 (18 written models) and 246 s (13 of 18 model-batches).
declare -A default_caps=([environment]=30 [unit_tests]=40 [executor]=150 [measure]=50 [ceilings]=15 [memcheck]=20
                         [written]=90 [e2e]=150 [compile]=240 [live]=240 [conv_apis]=90)
order=(environment unit_tests executor measure ceilings memcheck written e2e)
[[ -n "$only_stages" ]] && IFS=, read -r -a order <<< "$only_stages"
for name in "${order[@]}"; do
  [[ "$name" == kit ]] && continue
  [[ -n "${default_caps[$name]:-}" ]] || { say "no stage '$name' (the stages: kit ${!default_caps[*]})"; continue; }
  run_stage "$name" "${default_caps[$name]}"
done

pack_results
write_summary
echo
cat "$OUT/summary.txt"
rm -rf "$work"
