#!/bin/bash
# Two pet-opt builds, interleaved, the order turned each round: pet-opt MODEL --mode M --target T
# --replay --report-times, each build with a warm proof store of its own (two builds' prover
# versions differ when core/ changed, so a shared store would have each build prove again what the
# other's runs replaced). Prints the report's search and total seconds, /usr/bin/time's peak
# resident MiB and the written model's md5. Run here as
#   bash ab.sh glibc <pet-opt built at eb3351f> jemalloc <pet-opt built at cb2226e> 3
# and by ../2026-12-01-xeon-queue-trim/run.sh with its own labels and cases.
#   bash ab.sh LABEL_A PET_OPT_A LABEL_B PET_OPT_B ROUNDS ["MODEL MODE TARGET" ...]
set -euo pipefail
label_a=$1 bin_a=$2 label_b=$3 bin_b=$4 rounds=${5:-2}
shift 5 || shift $#
cases=("$@")
((${#cases[@]})) || cases=("inception_v3_299_b1 taso h200" "bert_s128_b1 pet h200" "resnet18_b16 pet h200" "csrnet_b1 pet h200"
                           "r3d_18_b1 taso h200" "resnet18_b1 pet ort-cpu")
models=/work/main/build/models
work=$(mktemp -d)
one() {  # label binary model mode target [flags]
  local label=$1 bin=$2 model=$3 mode=$4 target=$5
  shift 5
  PET_PROOF_CACHE=$work/proofs-$label /usr/bin/time -f %M -o "$work/peak" "$bin" "$models/$model/model.onnx" --mode "$mode" \
    --target "$target" --replay -o "$work/out.onnx" --report "$work/report.json" --report-times "$@" > /dev/null 2>&1
  python3 - "$work/report.json" "$label" "$model" "$mode" "$target" "$(cat "$work/peak")" "$(md5sum < "$work/out.onnx" | cut -c1-12)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["seconds"]
print(f"{sys.argv[3]:<20} {sys.argv[4]:<4} {sys.argv[5]:<7} {sys.argv[2]:<8} search {s['search']:6.2f} s  total {sum(s.values()):6.2f} s  peak {int(sys.argv[6])//1024:5d} MiB  md5 {sys.argv[7]}")
PY
}
db_of() {  # label target: the profile DB the build replays
  if [[ $2 == ort-cpu ]]; then echo "$work/ort-$1.json"; else echo "/work/main/bench/profiles/$2.json"; fi
}
# An ort-cpu case replays a DB a first live run of the same build recorded (a DB holds kernel
# groups, and two builds that order nodes differently group them differently: session 56).
if [[ " ${cases[*]} " == *" ort-cpu"* ]]; then
  for l in a b; do
    if [[ $l == a ]]; then label=$label_a bin=$bin_a; else label=$label_b bin=$bin_b; fi
    PET_PROOF_CACHE=off "$bin" "$models/resnet18_b1/model.onnx" --target ort-cpu --profile-db "$work/ort-$label.json" \
      -o "$work/warm.onnx" > /dev/null 2>&1
  done
fi
for c in "${cases[@]}"; do  # warm each build's proof store
  read -r model mode target <<< "$c"
  one "$label_a" "$bin_a" "$model" "$mode" "$target" --profile-db "$(db_of "$label_a" "$target")" > /dev/null
  one "$label_b" "$bin_b" "$model" "$mode" "$target" --profile-db "$(db_of "$label_b" "$target")" > /dev/null
done
for ((r = 1; r <= rounds; r++)); do
  for c in "${cases[@]}"; do
    read -r model mode target <<< "$c"
    if ((r % 2)); then order=(a b); else order=(b a); fi
    for v in "${order[@]}"; do
      if [[ $v == a ]]; then one "$label_a" "$bin_a" "$model" "$mode" "$target" --profile-db "$(db_of "$label_a" "$target")"
      else one "$label_b" "$bin_b" "$model" "$mode" "$target" --profile-db "$(db_of "$label_b" "$target")"; fi
    done
  done
done
rm -rf "$work"
