#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang in build-fuzz/ and runs each for a bounded number
# of executions from its seed corpus (fuzz/corpus/<target>/), one target at a time.
#
# Prints each target's executions, executions per second and findings; a finding (crash, leak,
# undefined behaviour, uncaught exception, failed check) is saved under build-fuzz/findings/ and
# makes the script exit 1. Replay one with: build-fuzz/fuzz/<target> <file>.
# Not run by CI: 10^6 executions per target take hours on two cores.
#
# Usage: bash scripts/fuzz.sh [--runs N] [--workers N] [--jobs N] [target...]
#   --runs N     executions per target, in all (default 1000000)
#   --workers N  fuzzing processes per target, each running its share of the executions on one core
#                and all sharing the target's corpus folder (default 1)
#   --jobs N     build parallelism (default: all cores)
#   target       fuzz_onnx_import, fuzz_text_ir, fuzz_pet_opt (default: all three)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1000000
workers=1
jobs=$(nproc)
targets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    fuzz_*) targets+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=(fuzz_onnx_import fuzz_text_ir fuzz_pet_opt)

# The newest installed clang (16 or later: see the top-level CMakeLists.txt).
compiler=""
for version in 21 20 19 18 17 16; do
  if command -v clang++-$version >/dev/null; then compiler=$version; break; fi
done
if [[ -z "$compiler" ]]; then
  echo "fuzz.sh: needs clang 16 or newer with libFuzzer: apt-get install clang-16 libclang-rt-16-dev" >&2
  exit 2
fi
# The same configuration as scripts/sanitize.sh: one instrumented build serves both scripts.
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-$compiler \
      -DCMAKE_CXX_COMPILER=clang++-$compiler -DPET_SANITIZE=ON -DPET_BUILD_FUZZERS=ON \
      -DPET_BUILD_CUDA=OFF -DPET_BUILD_BENCH=OFF -DCMAKE_DISABLE_FIND_PACKAGE_OpenVINO=ON >/dev/null
cmake --build build-fuzz -j"$jobs" --target "${targets[@]}"

# Longest input each target reads: a small model with its weights, a page of IR, a graph's draws.
declare -A max_len=([fuzz_onnx_import]=8192 [fuzz_text_ir]=4096 [fuzz_pet_opt]=256)
# fuzz_pet_opt's executions cost milliseconds, and two costs of the instrumentation dominated them:
# libFuzzer's entropic schedule (a fifth of the time, updating 50,000 feature frequencies) and the
# 30-frame stack recorded at every allocation. Without them it runs about 1.25x as many executions;
# leak detection, coverage feedback and the sanitizers' checks stay as they are.
declare -A extra_flags=([fuzz_pet_opt]="-entropic=0")
declare -A extra_asan=([fuzz_pet_opt]=":malloc_context_size=8")
mkdir -p build-fuzz/findings
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# fuzz_pet_opt's proofs go to a store of the fuzz build's own, not the user's ~/.cache/pet/proofs.
export PET_PROOF_CACHE=${PET_PROOF_CACHE:-$PWD/build-fuzz/proofs}

# Sums one libFuzzer final statistic over the workers' logs.
sum_stat() {
  local name=$1; shift
  grep -ho "stat::$name: *[0-9]*" "$@" 2>/dev/null | grep -o '[0-9]*$' | awk '{ total += $1 } END { print total + 0 }'
}

status=0
for target in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$target  # the seeds plus what the fuzzer adds; the repository stays untouched
  mkdir -p "$corpus"
  cp -n fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  start=$(date +%s)
  marker=$(mktemp)
  export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0${extra_asan[$target]:-}"
  logs=()
  pids=()
  for ((worker = 0; worker < workers; ++worker)); do
    share=$(( runs / workers + (worker < runs % workers ? 1 : 0) ))
    log=build-fuzz/$target.log
    ((workers > 1)) && log=build-fuzz/$target.worker$worker.log
    logs+=("$log")
    # Workers pick up each other's new inputs every minute (libFuzzer's default, every second,
    # rescans the shared folder between almost every execution once it holds thousands of inputs).
    # shellcheck disable=SC2086  # extra_flags holds whole flags
    build-fuzz/fuzz/"$target" -runs="$share" -max_len="${max_len[$target]}" -timeout=60 -rss_limit_mb=4096 \
      -seed=$((worker + 1)) -reload=60 ${extra_flags[$target]:-} -print_final_stats=1 \
      -artifact_prefix=build-fuzz/findings/"$target"- "$corpus" >"$log" 2>&1 &
    pids+=($!)
  done
  result=0
  for pid in "${pids[@]}"; do wait "$pid" || result=$?; done
  executions=$(sum_stat number_of_executed_units "${logs[@]}")
  seconds=$(( $(date +%s) - start ))
  # Crashes, leaks, timeouts and out-of-memory inputs of this run (slow units are only noted).
  findings=$(find build-fuzz/findings -maxdepth 1 -name "$target-*" -newer "$marker" ! -name '*slow-unit*' | wc -l)
  rm -f "$marker"
  echo "$target: $executions executions in $seconds s by $workers worker(s), $(( executions / (seconds > 0 ? seconds : 1) )) exec/s in all, $findings finding(s), exit $result (logs: ${logs[*]})"
  if [[ $result -ne 0 ]]; then
    status=1
    grep -h -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|internal error|terminate called' "${logs[@]}" || true
  fi
done
exit $status
