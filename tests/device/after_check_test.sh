#!/usr/bin/env bash
# after-check.sh on the files the H200 check returned (bench/results/2026-11-28-h200/run3-final, as
# the device tool hands them over, with stand-in torch.compile artifacts): laid out in a new folder, the harness's GPU section rendered,
# no import without a kit, the executor's step times set beside the spec with one, and an existing
# folder or a folder without summary.txt refused.
#   bash tests/device/after_check_test.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
returned=bench/results/2026-11-28-h200/run3-final
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

mkdir -p "$work/files_at/results" "$work/out"
cp "$returned/summary.txt" "$returned/session.log" "$returned/e2e.json" "$returned/measure.results.jsonl" "$work/files_at/"
cp "$returned/executor.status" "$returned/conv-cache.tsv" "$work/files_at/results/"
tar -C "$work/files_at" -czf "$work/files_at/results.tar.gz" results
rm -rf "$work/files_at/results"
# The compile stage's torch.compile artifacts, returned in a file of their own.
mkdir -p "$work/compiled/torch-compile/2.11.0+cu130--NVIDIA_H200"
echo artifacts > "$work/compiled/torch-compile/2.11.0+cu130--NVIDIA_H200/resnet18_b1.bin"
tar -C "$work/compiled" -czf "$work/files_at/torch-compile.tar.gz" torch-compile

bash scripts/device/after-check.sh "$work/files_at" 2026-11-28-h200 --results "$work/out" --kit "$work/no-kit.tar.xz" \
  > "$work/log" 2>&1 || fail "after-check failed: $(cat "$work/log")"
folder=$work/out/2026-11-28-h200
for file in summary.txt session.log e2e.json measure.results.jsonl executor.status conv-cache.tsv harness.md harness.csv; do
  [[ -f "$folder/$file" ]] || fail "$file was not laid out"
done
grep -q "^## GPU: NVIDIA H200, measured end to end" "$folder/harness.md" || fail "harness.md lacks the GPU section"
[[ "$(cat "$folder/torch-compile/2.11.0+cu130--NVIDIA_H200/resnet18_b1.bin")" == artifacts ]] ||
  fail "the torch.compile artifacts were not laid out in torch-compile/"
grep -q "torch.compile artifacts of 1 model-batches" "$work/log" || fail "no word on the artifacts: $(cat "$work/log")"
grep -q "^# pet harness: the GPU's section alone" "$folder/harness.md" || fail "harness.md's header names the empty part"
grep -q "no kit at $work/no-kit.tar.xz, so the timings are not imported" "$work/log" || fail "no word on the import: $(cat "$work/log")"

# With the compile stage's file beside it (ResNet-18 at batch 1 again, torch.compile measured this
# time: a stand-in from the check's own rows with an invented torch.compile figure, 401.5 us), that
# model's row comes whole from it.
python3 - "$returned/e2e.json" "$work/files_at/e2e-compile.json" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
rows = [dict(e) for e in document["results"] if (e["model"], e["batch"]) == ("resnet18", 1)]
for e in rows:
    if e["variant"] == "torch-compile":
        e.update(status="ok", median_us=401.5, spread_us=1.5, runs=90, rounds_us=[401.5, 401.0, 402.0])
        e.pop("reason", None)
json.dump(dict(document, results=rows, started="later"), open(sys.argv[2], "w"))
PY
bash scripts/device/after-check.sh "$work/files_at" 2026-11-28-h200-compile --results "$work/out" \
  --kit "$work/no-kit.tar.xz" > "$work/log4" 2>&1 || fail "after-check with e2e-compile.json failed: $(cat "$work/log4")"
compiled=$work/out/2026-11-28-h200-compile
[[ -f "$compiled/e2e-compile.json" ]] || fail "e2e-compile.json was not laid out"
grep -E '^resnet18,1,gpu,.*torch-compile' "$compiled/harness.csv" | grep -q ',0.4015,' ||
  fail "the merged table lacks the compile run's torch.compile time: $(grep torch-compile "$compiled/harness.csv" | head -3)"

# The live stage's DB comes back as live-db.json and is merged into the DB (here --db, as no kit names it).
cp -r "$work/files_at" "$work/files_live"
rm "$work/files_live/measure.results.jsonl"
entry='"microseconds": 4, "method": "end to end", "libraries": "x", "date": "2026-11-28", "spread_us": 0, "runs": 3'
echo '{"entries": [{"key": "Relu(f32[1,8]) f32", "device": "h200 | pet-gpu live | NVIDIA H200 | 1 thread", '"$entry"'}]}' \
  > "$work/files_live/live-db.json"
echo '{"entries": [{"key": "Relu(f32[1,9]) f32", "device": "h200 | pet-gpu earlier | NVIDIA H200 | 1 thread", '"$entry"'}]}' \
  > "$work/db.json"
bash scripts/device/after-check.sh "$work/files_live" 2026-11-28-h200-live --results "$work/out" --kit "$work/no-kit.tar.xz" \
  --db "$work/db.json" > "$work/log5" 2>&1 || fail "after-check with live-db.json failed: $(cat "$work/log5")"
[[ -f "$work/out/2026-11-28-h200-live/live-db.json" ]] || fail "live-db.json was not laid out"
grep -q "^merged 1 entries from .*live-db.json into $work/db.json" "$work/log5" || fail "no merge: $(cat "$work/log5")"
[[ $(grep -c '"key"' "$work/db.json") == 2 ]] || fail "the merged DB: $(cat "$work/db.json")"
grep -q "^$work/db.json: 2 entries, " "$work/log5" || fail "no summary of the DB: $(cat "$work/log5")"
if bash scripts/device/after-check.sh "$work/files_live" 2026-11-28-h200-live2 --results "$work/out" \
     --kit "$work/no-kit.tar.xz" > "$work/log6" 2>&1; then
  fail "live-db.json was merged without a target"
fi
grep -q "pass --db FILE" "$work/log6" || fail "the refusal says: $(cat "$work/log6")"

# The executor stage's step times come back in results.tar.gz: with a kit (here a stand-in holding one
# work model, whose two steps were timed at what a spec with 10 µs more per convolution prices them),
# the committed spec's error and a fit that lowers it are reported, and nothing under search/ changes.
mkdir -p "$work/tiny/kit/work/convs" "$work/files_exec/results"
echo "target h200 (written models and misses)" > "$work/tiny/kit/MANIFEST"
cat > "$work/tiny/kit/work/convs/model.pet" <<'PET'
graph "convs" opset 13 {
  input %x : f32[1,64,28,28]
  const %w1 : f32[64,64,3,3] = random(1, 0.05)
  const %w2 : f32[128,64,1,1] = random(2, 0.05)
  %c1 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w1) : f32[1,64,28,28]
  %r1 = Relu(%c1) : f32[1,64,28,28]
  %c2 = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[2,2]](%r1, %w2) : f32[1,128,14,14]
  output %c2
}
PET
mkdir -p "$work/tiny/kit/misses/misses.jsonl.models"
cp "$work/tiny/kit/work/convs/model.pet" "$work/tiny/kit/misses/misses.jsonl.models/g.pet"
echo '{"id": 1, "kind": "kernel-groups", "keys": ["Conv(g)"], "models": ["g.pet"]}' > "$work/tiny/kit/misses/misses.jsonl"
tar -C "$work/tiny" -cJf "$work/tiny.tar.xz" kit
printf '== time convs\nend to end: median 0.0400 ms (q1 0.04, q3 0.04)\n  step 0 cudnn-conv '"'c1'"' (+1): 0.0250 ms (q1 0, q3 0)\n  step 1 cudnn-conv '"'c2'"': 0.0150 ms (q1 0, q3 0)\n' \
  > "$work/files_exec/results/executor.txt"
cp "$returned/summary.txt" "$work/files_exec/"
tar -C "$work/files_exec" -czf "$work/files_exec/results.tar.gz" results
rm -rf "$work/files_exec/results"
spec_before=$(md5sum search/cost/devices/h200.json)
bash scripts/device/after-check.sh "$work/files_exec" 2026-11-28-h200-exec --results "$work/out" --kit "$work/tiny.tar.xz" \
  > "$work/log7" 2>&1 || fail "after-check with executor.txt failed: $(cat "$work/log7")"
exec_folder=$work/out/2026-11-28-h200-exec
[[ -f "$exec_folder/spec-fit.md" && -f "$exec_folder/h200-fitted.json" ]] || fail "no fit report: $(cat "$work/log7")"
grep -q "^after-check: $exec_folder/spec-fit.md: [0-9.]* before, [0-9.]* fitted" "$work/log7" || fail "no errors said: $(cat "$work/log7")"
grep -q "to adopt the fit: cp $exec_folder/h200-fitted.json search/cost/devices/h200.json" "$work/log7" ||
  fail "no word on adopting it: $(cat "$work/log7")"
[[ "$(md5sum search/cost/devices/h200.json)" == "$spec_before" ]] || fail "the committed spec was changed"
# The kit's misses with a DB: the card's kernel-group time of a requested key is a second source;
# a DB without one, and no executor stage, is no fit at all (said, not failed).
group_entry='"method": "m", "libraries": "x", "date": "2026-11-29"'
echo '{"entries": [{"key": "Conv(g)", "device": "h200 | pet-gpu x | NVIDIA H200 | 1 thread", "microseconds": 40, '"$group_entry"'}]}' \
  > "$work/group-db.json"
bash scripts/device/after-check.sh "$work/files_exec" 2026-11-28-h200-groups --results "$work/out" --kit "$work/tiny.tar.xz" \
  --db "$work/group-db.json" > "$work/log8" 2>&1 || fail "after-check with kernel-group times failed: $(cat "$work/log8")"
grep -q "^Kernel groups timed stand-alone on the card .*: 1 groups;" "$work/out/2026-11-28-h200-groups/spec-fit.md" ||
  fail "the fit left out the DB's kernel group: $(cat "$work/out/2026-11-28-h200-groups/spec-fit.md")"
echo '{"entries": []}' > "$work/empty-db.json"
rm -rf "$work/files_none" && mkdir -p "$work/files_none" && cp "$returned/summary.txt" "$work/files_none/"
bash scripts/device/after-check.sh "$work/files_none" 2026-11-28-h200-none --results "$work/out" --kit "$work/tiny.tar.xz" \
  --db "$work/empty-db.json" > "$work/log9" 2>&1 || fail "after-check with nothing to fit failed: $(cat "$work/log9")"
grep -q "no kernel-group time of h200 for the kit's misses in $work/empty-db.json, and no executor stage: no spec fit" \
  "$work/log9" || fail "nothing to fit, said: $(cat "$work/log9")"

if bash scripts/device/after-check.sh "$work/files_at" 2026-11-28-h200 --results "$work/out" > "$work/log2" 2>&1; then
  fail "an existing folder was written over"
fi
grep -q "exists already" "$work/log2" || fail "the refusal says: $(cat "$work/log2")"
mkdir -p "$work/empty"
if bash scripts/device/after-check.sh "$work/empty" other --results "$work/out" > "$work/log3" 2>&1; then
  fail "a folder without summary.txt was taken"
fi
grep -q "holds no summary.txt" "$work/log3" || fail "the refusal says: $(cat "$work/log3")"
echo "after-check: laid out $(ls "$folder" | wc -l) files and the GPU section; refusals hold"
