#!/bin/bash
# BERT-s128 PET on ort-cpu (the default target), an empty profile DB each run: before/after interleaved.
M=/work/main/build/models/bert_s128_b1/model.onnx
export PET_PROOF_CACHE=off
for r in 1 2; do
  order="before after"; [ $r = 2 ] && order="after before"
  for v in $order; do
    bin=/tmp/wt790/build/tools/pet-opt; [ $v = after ] && bin=/tmp/w54/after-pet-opt
    rm -f /tmp/w54/db-$v.json /tmp/w54/out-$v.onnx
    echo -n "round $r $v: "
    python3 /tmp/w54/peak.py $bin $M -o /tmp/w54/out-$v.onnx --report /tmp/w54/report-$v.json --profile-db /tmp/w54/db-$v.json
    cp /tmp/w54/last.log /tmp/w54/log-$r-$v.txt
  done
  cmp /tmp/w54/out-before.onnx /tmp/w54/out-after.onnx && echo "round $r: same bytes"
done
