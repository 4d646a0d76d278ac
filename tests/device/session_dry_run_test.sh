#!/usr/bin/env bash
# The GPU session script's dry run on a machine without a GPU: every stage runs, says "no device"
# (the kit stage "ok"), and the three result files come back with every stage's files inside; with
# FAKE_WORKER (pet_fake_gpu_worker) and the BUILD folder, the live stage also runs on a stand-in
# card, and its DB, brought home by after-check.sh, replays each run's choice (replay-live.sh), and
# --rehearse-live runs it on the kit as it is with the fake worker standing in for pet-gpu worker.
#   bash tests/device/session_dry_run_test.sh KIT_ARCHIVE [FAKE_WORKER BUILD]
set -euo pipefail
cd "$(dirname "$0")/../.."
kit=$1
fake_worker=${2:-}
build=${3:-build}
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "a GPU is visible here: the dry run is for machines without one"; exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
OUT="$out" bash scripts/device/session.sh --kit "$kit" > "$out.stdout" 2>&1 || { cat "$out.stdout"; echo "session.sh failed"; exit 1; }
fail() { echo "FAILED: $*"; echo "--- summary.txt"; cat "$out/summary.txt" 2>/dev/null; exit 1; }

for file in summary.txt session.log results.tar.gz; do [[ -s "$out/$file" ]] || fail "$file was not written"; done
expect_stage() {  # stage, outcome prefix
  grep -qE "^$1 +[0-9]+s +$2" "$out/summary.txt" || fail "stage $1 should say '$2'"
}
expect_stage kit "ok: commit"
expect_stage environment "no device"
expect_stage ceilings "no device"
expect_stage unit_tests "no device: [0-9]+ passed, 0 failed, [0-9]+ skipped, 0 binaries without results"
expect_stage memcheck "no device"
expect_stage executor "no device"
expect_stage measure "no device"
expect_stage e2e "no device"
expect_stage written "no device"
diff -q <(tail -n "$(wc -l < "$out/summary.txt")" "$out/session.log") "$out/summary.txt" >/dev/null ||
  fail "the summary is not printed last"

listing=$(tar -tzf "$out/results.tar.gz")
for file in kit.manifest environment.txt ceilings.txt memcheck.txt executor.txt measure.txt e2e.txt \
            gtest-pet_kernels.json gtest-pet_cuda_emit.json gtest-pet_gpu_executor.json gtest-pet_gpu_codegen.json; do
  grep -qx "results/$file" <<< "$listing" || fail "results.tar.gz lacks $file"
done
tar -xzf "$out/results.tar.gz" -C "$out"
grep -q "^no CUDA device: " "$out/results/environment.txt" || fail "environment.txt lacks pet-gpu's no-device line"
grep -q "^loaded libraries:" "$out/results/environment.txt" || fail "environment.txt lacks the loaded libraries"
grep -q "^work/conv_relu/model.pet " "$out/results/kit.manifest" || fail "the kit carries no weight-free work models"
# A cap given on the command line replaces the stage's own; a malformed one is a usage error.
OUT="$out/capped" bash scripts/device/session.sh --kit "$kit" --stages kit,e2e --cap e2e=7 > "$out/capped.stdout" 2>&1 ||
  fail "session.sh --cap e2e=7 failed"
grep -q "stage e2e (cap 7s)" "$out/capped.stdout" || fail "--cap e2e=7 did not set the e2e stage's cap"
# --stages runs the stages in the order given, the kit first.
OUT="$out/ordered" bash scripts/device/session.sh --kit "$kit" --stages e2e,written > "$out/ordered.stdout" 2>&1 ||
  fail "session.sh --stages e2e,written failed"
[[ "$(grep -o 'stage [a-z_0-9]* (cap' "$out/ordered.stdout" | tr '\n' ' ')" == "stage kit (cap stage e2e (cap stage written (cap " ]] ||
  fail "--stages e2e,written ran: $(grep -o 'stage [a-z_0-9]* (cap' "$out/ordered.stdout" | tr '\n' ' ')"
# The compile stage runs only when named, with the models --compile-models gives.
OUT="$out/compile" bash scripts/device/session.sh --kit "$kit" --stages compile --compile-models resnet18 \
  > "$out/compile.stdout" 2>&1 || fail "session.sh --stages compile failed"
grep -qE "^compile +[0-9]+s +no device" "$out/compile/summary.txt" || fail "the compile stage: $(cat "$out/compile/summary.txt")"
grep -q "stage compile" "$out.stdout" && fail "the compile stage ran without being named"
# The kit's decisions from earlier checks are where the session's decision file starts.
mkdir -p "$out/seeded-kit"
tar -xJf "$kit" -C "$out/seeded-kit"
printf 'card\tconv a\t1\t0.5\t0.6\n' > "$out/seeded-kit/kit/conv-cache.tsv"
tar -C "$out/seeded-kit" -cJf "$out/seeded-kit.tar.xz" kit
OUT="$out/seeded" bash scripts/device/session.sh --kit "$out/seeded-kit.tar.xz" --stages environment > "$out/seeded.stdout" 2>&1 ||
  fail "session.sh with a seeded kit failed"
mkdir -p "$out/seeded/unpacked"
tar -xzf "$out/seeded/results.tar.gz" -C "$out/seeded/unpacked"
cmp -s "$out/seeded-kit/kit/conv-cache.tsv" "$out/seeded/unpacked/results/conv-cache.tsv" ||
  fail "the session did not start from the kit's convolution decisions"
# The live stage runs only when named; without a device it says so.
OUT="$out/live-nodevice" bash scripts/device/session.sh --kit "$kit" --stages live > "$out/live-nodevice.stdout" 2>&1 ||
  fail "session.sh --stages live failed"
grep -qE "^live +[0-9]+s +no device" "$out/live-nodevice/summary.txt" || fail "the live stage: $(cat "$out/live-nodevice/summary.txt")"
grep -q "stage live" "$out.stdout" && fail "the live stage ran without being named"
if OUT="$out/bad-jobs" bash scripts/device/session.sh --live-jobs 0 > "$out/bad-jobs.stdout" 2>&1; then fail "--live-jobs 0 was accepted"; fi
grep -q "^session: --live-jobs takes a positive count, got '0'" "$out/bad-jobs.stdout" || fail "--live-jobs 0's message"
if OUT="$out/bad-db" bash scripts/device/session.sh --live-db "$out/none.json" > "$out/bad-db.stdout" 2>&1; then
  fail "--live-db of no file was accepted"
fi
grep -q "^session: --live-db names no file: '$out/none.json'" "$out/bad-db.stdout" || fail "--live-db's message"
if [[ -n "$fake_worker" ]]; then
  # The live stage on a stand-in card: the kit's pet-gpu replaced by a script that reports one GPU and
  # answers pet-opt --live with the fake worker (its times by a fixed rule); the kit's libraries and
  # misses left out to keep it small (this machine has the libraries). Two runs at once, as a check
  # runs them: one model's two modes wait for each other (session.sh's per-model lock).
  mkdir -p "$out/fake-kit"
  tar -xJf "$kit" -C "$out/fake-kit"
  rm -rf "$out/fake-kit/kit/lib" "$out/fake-kit/kit/misses" "$out/fake-kit/kit/work-written"
  mkdir -p "$out/fake-kit/kit/lib"
  target=$(sed -n 's/^target \([a-z0-9]*\) .*/\1/p' "$out/fake-kit/kit/MANIFEST" | head -1)
  card="NVIDIA ${target^^} (test double)"  # the card of the kit's target
  cat > "$out/fake-kit/kit/bin/pet-gpu" <<STUB
#!/usr/bin/env bash
case "\$1" in
  devices) echo "GPU 0: $card" ;;
  worker) PET_FAKE_GPU_CARD="$card" exec "$fake_worker" "\$@" ;;
  *) echo "no CUDA device: a stand-in for pet-gpu"; exit 0 ;;
esac
STUB
  chmod +x "$out/fake-kit/kit/bin/pet-gpu"
  tar -C "$out/fake-kit" -cJf "$out/fake-kit.tar.xz" kit
  OUT="$out/live" bash scripts/device/session.sh --kit "$out/fake-kit.tar.xz" --stages live \
    --live-models conv_relu,not_a_model,mlp --live-jobs 2 --cap live=240 --live-written "$out/kept" > "$out/live.stdout" 2>&1 ||
    fail "session.sh --stages live failed"
  grep -qE "^live +[0-9]+s +ok: 4 of 4 runs started finished \(0 cut at the cap, 0 failed\) in [0-9]+ s, [1-9][0-9]* entries in live-db.json" \
    "$out/live/summary.txt" || { cat "$out/live.stdout"; fail "the live stage on the stand-in: $(cat "$out/live/summary.txt")"; }
  grep -q "\"device\": \"$target | fake pet-gpu tf32 math (a test double), kernels [0-9a-f]* | $card | 1 thread\"" \
    "$out/live/live-db.json" || fail "live-db.json holds no entry of the stand-in card"
  mkdir -p "$out/live/unpacked"
  tar -xzf "$out/live/results.tar.gz" -C "$out/live/unpacked"
  for run in conv_relu.taso conv_relu.pet mlp.taso mlp.pet; do
    [[ -s "$out/live/unpacked/results/live/$run.json" ]] || fail "no report of $run"
  done
  grep -q "^not_a_model: not in this kit" "$out/live/unpacked/results/live.txt" || fail "live.txt does not name the missing model"
  grep -q "^written models kept for the e2e stage: 4$" "$out/live/unpacked/results/live.txt" ||
    fail "the live runs' written models were not kept for e2e: $(cat "$out/live/unpacked/results/live.txt")"
  # mlp's TASO-only run proves rule instances: they join the kit's proof store.
  grep -qE "^proof store: [0-9]+ instance proofs from the kit, [1-9][0-9]* after the runs$" \
    "$out/live/unpacked/results/live.txt" || fail "the live runs kept no proof: $(cat "$out/live/unpacked/results/live.txt")"
  # --live-written kept them past the call: conv_relu and mlp, each mode's model and report.
  [[ $(ls "$out/kept" | sort | tr '\n' ' ') == "conv_relu.pet.json conv_relu.pet.onnx conv_relu.taso.json conv_relu.taso.onnx mlp.pet.json mlp.pet.onnx mlp.taso.json mlp.taso.onnx " ]] ||
    fail "--live-written kept: $(ls "$out/kept")"
  # A second run started from the first's DB (--live-db) times nothing the first timed, and its e2e
  # stage would find the first call's models beside its own; <model>.<mode> runs that mode alone.
  OUT="$out/live2" bash scripts/device/session.sh --kit "$out/fake-kit.tar.xz" --stages live --live-models conv_relu.taso \
    --live-db "$out/live/live-db.json" --live-written "$out/kept" > "$out/live2.stdout" 2>&1 || fail "session.sh --live-db failed"
  mkdir -p "$out/live2/unpacked"
  tar -xzf "$out/live2/results.tar.gz" -C "$out/live2/unpacked"
  grep -q "^conv_relu.taso: kernel costs: 0 measured (0.0 s), [1-9][0-9]* replayed, 0 estimated; profile DB .*; [0-9]* s in all$" \
    "$out/live2/unpacked/results/live.txt" || fail "the run from --live-db: $(cat "$out/live2/unpacked/results/live.txt")"
  grep -q "^written models kept for the e2e stage: 4$" "$out/live2/unpacked/results/live.txt" ||
    fail "the second call does not see the first's models: $(cat "$out/live2/unpacked/results/live.txt")"
  ! grep -q "conv_relu.pet" "$out/live2/unpacked/results/live.txt" ||
    fail "--live-models conv_relu.taso ran the pet mode too: $(cat "$out/live2/unpacked/results/live.txt")"
  # --rehearse-live: the same stage on the kit as it is (its own pet-gpu, which finds no device here),
  # the fake worker standing in for pet-gpu worker; the summary says it was a rehearsal.
  OUT="$out/rehearsal" bash scripts/device/session.sh --kit "$kit" --stages live --live-models conv_relu \
    --rehearse-live "$fake_worker" --live-written "$out/rehearsal-written" > "$out/rehearsal.stdout" 2>&1 ||
    fail "session.sh --rehearse-live failed"
  grep -qE "^live +[0-9]+s +rehearsal with $(basename "$fake_worker"), no card: ok: 2 of 2 runs started finished" \
    "$out/rehearsal/summary.txt" || { cat "$out/rehearsal.stdout"; fail "the rehearsal: $(cat "$out/rehearsal/summary.txt")"; }
  if OUT="$out/bad-rehearsal" bash scripts/device/session.sh --rehearse-live "$out/none" > "$out/bad-rehearsal.stdout" 2>&1; then
    fail "--rehearse-live of no worker was accepted"
  fi
  grep -q "^session: --rehearse-live names no executable worker: '$out/none'" "$out/bad-rehearsal.stdout" ||
    fail "--rehearse-live's message: $(cat "$out/bad-rehearsal.stdout")"
  # Home: the DB merged into a stand-in for bench/profiles/<target>.json, each run replayed from it.
  echo '{"entries": []}' > "$out/card-db.json"
  bash scripts/device/after-check.sh "$out/live" 2026-11-28-card --results "$out/home" --kit "$out/fake-kit.tar.xz" \
    --db "$out/card-db.json" --build "$build" > "$out/after-check.stdout" 2>&1 || fail "after-check: $(cat "$out/after-check.stdout")"
  # conv_relu as a user has it: an ONNX file with its own weights, not the weight-free form's.
  mkdir -p "$out/models/conv_relu_b1"
  "$build/tools/pet-opt" tests/kernels/gpu/executor_models/conv_relu.pet --mode none --target "$target" --replay \
    --profile-db "$out/card-db.json" -o "$out/models/conv_relu_b1/model.onnx" > "$out/models.stdout" 2>&1 ||
    fail "conv_relu as ONNX: $(cat "$out/models.stdout")"
  bash scripts/device/replay-live.sh "$out/home/2026-11-28-card" --kit "$out/fake-kit.tar.xz" --db "$out/card-db.json" \
    --build "$build" --models "$out/models" > "$out/replay.stdout" 2>&1 || fail "replay-live: $(cat "$out/replay.stdout")"
  [[ $(grep -c ": ok$" "$out/home/2026-11-28-card/replay-live.txt") == 6 ]] ||
    fail "replay-live.txt: $(cat "$out/home/2026-11-28-card/replay-live.txt")"
  grep -q "^conv_relu.pet on $out/models/conv_relu_b1/model.onnx (its weights): the replay .* with 0 costs estimated: ok$" \
    "$out/home/2026-11-28-card/replay-live.txt" || fail "no replay of the ONNX form: $(cat "$out/home/2026-11-28-card/replay-live.txt")"
fi
if OUT="$out/bad" bash scripts/device/session.sh --cap e2e > "$out/bad.stdout" 2>&1; then fail "--cap e2e was accepted"; fi
grep -q "^session: --cap takes STAGE=SECONDS, got 'e2e'" "$out/bad.stdout" || fail "--cap e2e's message: $(cat "$out/bad.stdout")"
echo "dry run: $(tail -n +2 "$out/summary.txt" | wc -l) stages, $(wc -l <<< "$listing") files"
cat "$out/summary.txt"
