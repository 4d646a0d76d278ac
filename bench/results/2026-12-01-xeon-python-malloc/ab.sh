#!/bin/bash
# pet-opt's search in three forms, interleaved, the order turned each round: the built tool
# (build/tools/pet-opt, jemalloc linked), the Python module's pet_opt_main in python3 (what the
# pip-installed pet-opt runs: glibc's malloc), and the same module with jemalloc preloaded. Inception-v3
# TASO-only at --target h200 --replay, one warm proof store (all three are one build). Prints the
# report's search seconds and allocator.
#   bash ab.sh ROUNDS
set -euo pipefail
rounds=${1:-3}
root=/work/main
model=$root/build/models/inception_v3_299_b1/model.onnx
work=$(mktemp -d)
export PET_PROOF_CACHE=$work/proofs
module() { PYTHONPATH=$root/build/python python3 -c "import sys; from pet import _pet; sys.exit(_pet.pet_opt_main(sys.argv[1:]))" "$@"; }
one() {  # label
  local flags=("$model" --mode taso --target h200 --replay -o "$work/out.onnx" --report "$work/r.json" --report-times)
  case $1 in
    tool) "$root/build/tools/pet-opt" "${flags[@]}" ;;
    python) module "${flags[@]}" ;;
    python+jemalloc) LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 TBB_ENABLE_SANITIZERS=1 module "${flags[@]}" ;;
  esac > /dev/null 2>&1
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(f\"{sys.argv[2]:<16} search {r['seconds']['search']:6.2f} s  {r['allocator']}\")" "$work/r.json" "$1"
}
one tool > /dev/null  # the proof store warmed
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then order=(tool python python+jemalloc); else order=(python+jemalloc python tool); fi
  for v in "${order[@]}"; do one "$v"; done
done
rm -rf "$work"
