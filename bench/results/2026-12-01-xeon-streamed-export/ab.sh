#!/bin/bash
# BERT-s128 PET, an empty profile DB each run: before/after interleaved, on the target given ($1, default ort-cpu).
M=/work/main/build/models/bert_s128_b1/model.onnx
T=${1:-ort-cpu}
export PET_PROOF_CACHE=off
mkdir -p /tmp/w54 /tmp/w55  # peak.py writes the run's stderr to /tmp/w54/last.log
for r in 1 2; do
  order="before after"; [ $r = 2 ] && order="after before"
  for v in $order; do
    bin=/tmp/w55/$v-pet-opt  # before: built at ae3b9a4; after: at eb3351f
    rm -f /tmp/w55/db-$v.json /tmp/w55/out-$v.onnx
    echo -n "$T round $r $v: "
    python3 "$(dirname "$0")/../2026-11-30-xeon-runtime-models/peak.py" $bin $M --target $T -o /tmp/w55/out-$v.onnx --report /tmp/w55/report-$v.json --profile-db /tmp/w55/db-$v.json
    cp /tmp/w54/last.log /tmp/w55/log-$T-$r-$v.txt
  done
  cmp /tmp/w55/out-before.onnx /tmp/w55/out-after.onnx && echo "$T round $r: same bytes"
done
