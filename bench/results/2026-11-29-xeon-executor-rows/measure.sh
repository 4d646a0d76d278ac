# 68d7875 (runs; element-by-element broadcast) against the row-wise broadcast build, alternated.
OUT=/tmp/m47; M=/work/main/build/models
run() {  # round model variant
  /usr/bin/time -f "%e %M" -o $OUT/time.tmp $OUT/pet-opt-$3 $M/$2/model.onnx --target h200 --replay -o $OUT/$2.$3.onnx > $OUT/$2.$3.$1.log 2>&1
  search=$(grep -oE "nodes\), [0-9.]+ s" $OUT/$2.$3.$1.log | grep -oE "[0-9.]+ s$" | cut -d' ' -f1)
  echo "opt $1 $2 $3 wall_rss $(cat $OUT/time.tmp) search $search md5 $(md5sum < $OUT/$2.$3.onnx | cut -c1-12)" >> $OUT/opt.txt
}
for round in 1 2 3; do
  for model in bert_s128_b16 bert_s512_b1 resnet50_b16; do
    for v in runs rows; do run $round $model $v; done
  done
done
for v in runs rows; do run 1 bert_s512_b16 $v; done
