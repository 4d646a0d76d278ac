#!/bin/bash
# The wheel's pet-opt console script (which runs the pet/bin/pet-opt binary the wheel carries) against
# the same wheel's module run in Python's process (what the console script ran before: pet_opt_main
# with Python's malloc), interleaved, the order turned each round. Inception-v3 TASO-only at
# --target h200 --replay (the wheel's own h200 DB), one warm proof store. Prints the report's search
# seconds and allocator and the written model's md5.
#   bash ab.sh WHEEL ROUNDS
set -euo pipefail
wheel=$1 rounds=${2:-3}
model=/work/main/build/models/inception_v3_299_b1/model.onnx
work=$(mktemp -d)
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$wheel" > /dev/null
export PET_PROOF_CACHE=$work/proofs
flags=("$model" --mode taso --target h200 --replay -o "$work/out.onnx" --report "$work/r.json" --report-times)
one() {  # label
  case $1 in
    script) (cd "$work" && "$work/venv/bin/pet-opt" "${flags[@]}") ;;
    in-process) (cd "$work" && "$work/venv/bin/python" -c \
                 "import sys; from pet import _pet; sys.exit(_pet.pet_opt_main(sys.argv[1:]))" "${flags[@]}") ;;
  esac > /dev/null 2>&1
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(f\"{sys.argv[2]:<11} search {r['seconds']['search']:6.2f} s  {r['allocator']:<40} md5 {sys.argv[3]}\")" \
    "$work/r.json" "$1" "$(md5sum < "$work/out.onnx" | cut -c1-12)"
}
echo "wheel $(basename "$wheel"); console script: $(head -c 300 "$work/venv/bin/pet-opt" | tail -n +2 | tr '\n' ' ' | cut -c1-120)"
one script > /dev/null  # the proof store warmed
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then order=(script in-process); else order=(in-process script); fi
  for v in "${order[@]}"; do one "$v"; done
done
rm -rf "$work"
