#!/usr/bin/env bash
# pet-opt's allocator (tools/CMakeLists.txt): the report with --report-times names the one this
# build linked, and under jemalloc OpenVINO, in pet-opt's own process, compiles and times the model
# (its TBB once freed hwloc's memory with the wrong free and aborted, pet_opt_main.cpp).
#   bash tests/tools/pet_opt_allocator_test.sh PET_OPT jemalloc|glibc
set -euo pipefail
pet_opt=$1
expected=$2
model=tests/kernels/gpu/executor_models/attention.pet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PET_PROOF_CACHE=off
fail() { echo "FAILED: $*" >&2; exit 1; }
run() {  # name, target, more flags
  local name=$1 target=$2
  shift 2
  "$pet_opt" "$model" --mode taso --target "$target" --threads 1 -o "$work/$name.onnx" --report "$work/$name.json" \
    --report-times "$@" > "$work/$name.txt" 2>&1 || fail "pet-opt --target $target: $(tail -n 3 "$work/$name.txt")"
}
allocator_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["allocator"])' "$1"; }

run estimated v100
allocator=$(allocator_of "$work/estimated.json")
echo "pet-opt's allocator: $allocator (expected: $expected)"
[[ $allocator == "$expected "* ]] || fail "the report names '$allocator', the build linked $expected"

# OpenVINO in pet-opt's process, where this build has it.
help=$("$pet_opt" --help)
if [[ $help == *openvino-cpu* ]]; then
  run openvino openvino-cpu --profile-db "$work/db.json"
  line=$(grep -m1 "written file in openvino-cpu" "$work/openvino.txt") ||
    fail "pet-opt --target openvino-cpu ran no model in OpenVINO: $(tail -n 5 "$work/openvino.txt")"
  echo "under $allocator:$line"
else
  echo "skipped the OpenVINO run: this pet-opt has no openvino-cpu target (built without OpenVINO)"
fi
