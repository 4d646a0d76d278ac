#!/bin/bash
# pet-opt under jemalloc without the alpha queue trim (before: built at cb2226e) and with it (after), interleaved,
# the order turned each round: pet-opt MODEL --mode M --target T --replay --report-times, each build
# with a warm proof store of its own (their prover versions differ, core/ having changed, so a shared
# store would have each build prove again what the other's runs replaced). Prints the report's search and total seconds, /usr/bin/time's
# peak resident KB and the written model's md5.
#   bash ab.sh NOTRIM_PET_OPT TRIM_PET_OPT ROUNDS
set -euo pipefail
notrim=$1 trim=$2 rounds=${3:-2}
models=/work/main/build/models
work=$(mktemp -d)
one() {  # label binary model mode target [flags]
  local label=$1 bin=$2 model=$3 mode=$4 target=$5
  shift 5
  PET_PROOF_CACHE=$work/proofs-$(basename "$bin") /usr/bin/time -f %M -o "$work/peak" "$bin" "$models/$model/model.onnx" --mode "$mode" --target "$target" --replay \
    -o "$work/out.onnx" --report "$work/report.json" --report-times "$@" > /dev/null 2>&1
  python3 - "$work/report.json" "$label" "$model" "$mode" "$target" "$(cat "$work/peak")" "$(md5sum < "$work/out.onnx" | cut -c1-12)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["seconds"]
print(f"{sys.argv[3]:<20} {sys.argv[4]:<4} {sys.argv[5]:<7} {sys.argv[2]:<8} search {s['search']:6.2f} s  total {sum(s.values()):6.2f} s  peak {int(sys.argv[6])//1024:5d} MiB  md5 {sys.argv[7]}")
PY
}
cases=("inception_v3_299_b1 taso h200" "bert_s128_b1 taso h200" "bert_s128_b1 pet h200" "resnet18_b16 pet h200" "r3d_18_b1 taso h200")
for c in "${cases[@]}"; do  # warm the proof store
  read -r model mode target <<< "$c"
  flags=(); [[ $target == ort-cpu ]] && flags=(--profile-db "$work/ort.json") || flags=(--profile-db /work/main/bench/profiles/h200.json)
  one warm "$notrim" "$model" "$mode" "$target" "${flags[@]}" > /dev/null
  one warm "$trim" "$model" "$mode" "$target" "${flags[@]}" > /dev/null
done
for ((r = 1; r <= rounds; r++)); do
  for c in "${cases[@]}"; do
    read -r model mode target <<< "$c"
    flags=(); [[ $target == ort-cpu ]] && flags=(--profile-db "$work/ort.json") || flags=(--profile-db /work/main/bench/profiles/h200.json)
    if ((r % 2)); then order=(notrim trim); else order=(trim notrim); fi
    for v in "${order[@]}"; do
      bin=$notrim; [[ $v == trim ]] && bin=$trim
      one "$v" "$bin" "$model" "$mode" "$target" "${flags[@]}"
    done
  done
done
rm -rf "$work"
