#!/usr/bin/env bash
# Builds pet and its unit tests with AddressSanitizer + UndefinedBehaviorSanitizer (build-fuzz/ or build-asan/)
# and runs them under ctest; any report (leak, overflow, use after free, undefined behaviour) fails.
#
# Not run by CI (.ci/run): on two cores the instrumented build and the suite take well over the
# CI's ~20 minute budget (see docs/TESTING.md, "Fuzzing and sanitizers"). Tests that need the exported
# evaluation models (models.*, the model tests, pet-opt on exported models) are left out: they
# spend their time in torch and onnxruntime, not in pet's code. The instrumented code runs about
# ten times slower, so a test whose result depends on a clock limit (the mutant generator's) may
# differ from a normal build's.
#
# Usage: bash scripts/sanitize.sh [-j N] [ctest arguments...]   (e.g. -R 'Conv' to run a subset)
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
if [[ "${1:-}" == "-j" ]]; then
  jobs="$2"
  shift 2
fi

# With clang 16 or later (the fuzzers' compiler) the build is build-fuzz/, configured exactly as
# scripts/fuzz.sh configures it (the fuzzers' coverage instrumentation does not change what the tests
# check), so one instrumented build serves both scripts; without it, the default compiler in build-asan/.
# RelWithDebInfo: reports carry file:line. CUDA and the benchmarks are off. OpenVINO is left out:
# its TBB loads a library with RTLD_DEEPBIND, which the sanitizer runtime refuses (the process
# ends), so the openvino-cpu bridge reports it unavailable and its tests are skipped below.
build=build-asan
configuration=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPET_SANITIZE=ON -DPET_BUILD_CUDA=OFF -DPET_BUILD_BENCH=OFF
               -DCMAKE_DISABLE_FIND_PACKAGE_OpenVINO=ON)
for version in 21 20 19 18 17 16; do
  if command -v clang++-$version >/dev/null; then
    build=build-fuzz
    configuration+=(-DCMAKE_C_COMPILER=clang-$version -DCMAKE_CXX_COMPILER=clang++-$version -DPET_BUILD_FUZZERS=ON)
    break
  fi
done
cmake -S . -B "$build" "${configuration[@]}" >/dev/null
cmake --build "$build" -j"$jobs"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
start=$(date +%s)
status=0
ctest --test-dir "$build" -j"$jobs" --output-on-failure --timeout 3600 \
      -E '^models\.|^Batch1/Model\.|^search\.onnxruntime_matches_original$|OpenVino' "$@" || status=$?
echo "sanitize: ctest took $(( $(date +%s) - start )) s, exit status $status"
exit $status
