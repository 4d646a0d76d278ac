# Session start (ab60573 = 08bd8c9 code) against now, alternated, 3 rounds.
OUT=/tmp/m46; M=/work/main/build/models
for round in 1 2 3; do
  for model in inception_v3_299_b1 resnet18_b16 csrnet_b1 bert_s128_b1; do
    for v in start now; do
      /usr/bin/time -f "%e %M" -o $OUT/time.tmp $OUT/pet-opt-$v $M/$model/model.onnx --target h200 --replay -o $OUT/$model.$v.onnx > $OUT/$model.$v.$round.log 2>&1
      mut=$(grep -oE "partial in [0-9.]+ s" $OUT/$model.$v.$round.log | grep -oE "[0-9.]+")
      search=$(grep -oE "nodes\), [0-9.]+ s" $OUT/$model.$v.$round.log | grep -oE "[0-9.]+ s$" | cut -d' ' -f1)
      echo "opt $round $model $v wall_rss $(cat $OUT/time.tmp) search $search mutants $mut md5 $(md5sum < $OUT/$model.$v.onnx | cut -c1-12)" >> $OUT/opt.txt
    done
  done
done
