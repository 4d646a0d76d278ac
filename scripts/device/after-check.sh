#!/usr/bin/env bash
# What follows a GPU check here, in one command: the files the device tool brought back laid out
# under bench/results/<folder>/ (results.tar.gz unpacked beside summary.txt, session.log, e2e.json,
# measure.results.jsonl and live-db.json; torch-compile.tar.gz into torch-compile/), the measured
# timings imported into the kit target's profile DB (pet-profile --import, with the kit's misses)
# and the live stage's DB merged into it (pet-profile --merge), the harness's GPU section rendered
# from e2e.json into <folder>/harness.md, and the card's times (the executor stage's per-step
# times, the DB's kernel-group times of the kit's misses) set beside the target's analytic spec
# (spec-fit.md, and a fitted spec to adopt or not). It commits nothing: it prints what to commit.
#
#   bash scripts/device/after-check.sh FILES_AT FOLDER [--kit .device/kit.tar.xz] [--db FILE] [--build DIR]
#                                      [--results DIR]
#
# FILES_AT: where the device tool put the returned files (its files_at); FOLDER: the results
# folder's name under --results (default bench/results; <date>-<card>[/<run>]); --db: the profile
# DB to extend (default bench/profiles/<the kit's target>.json). Fails, naming the cause, when FILES_AT holds no
# summary.txt or FOLDER exists already (the returned files are the only copy: nothing is overwritten).
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() { echo "after-check: $*" >&2; exit 1; }
(($# >= 2)) || { sed -n '2,14p' "$0"; exit 2; }
files_at=$1 name=$2
shift 2
kit=.device/kit.tar.xz db="" build=build results=bench/results
while (($#)); do
  case "$1" in
    --kit) kit="$2"; shift 2 ;;
    --db) db="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --results) results="$2"; shift 2 ;;
    *) echo "after-check: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
folder=$results/$name
[[ -f "$files_at/summary.txt" ]] || fail "$files_at holds no summary.txt: not what a session returned"
[[ ! -e "$folder" ]] || fail "$folder exists already; name another folder (the returned files are the only copy)"

mkdir -p "$folder"
for file in summary.txt session.log e2e.json e2e-compile.json measure.results.jsonl live-db.json; do
  [[ -f "$files_at/$file" ]] && cp "$files_at/$file" "$folder/"
done
if [[ -f "$files_at/results.tar.gz" ]]; then
  work=$(mktemp -d)
  tar -C "$work" -xzf "$files_at/results.tar.gz"
  cp -rn "$work"/results/* "$folder/" 2>/dev/null || true
  rm -rf "$work"
fi
# torch.compile's artifacts of the compile stage (<torch version>--<card>/<model>_b<batch>.bin):
# committed with the results, they are what the next kit carries (make-kit.sh).
if [[ -f "$files_at/torch-compile.tar.gz" ]]; then
  tar -C "$folder" -xzf "$files_at/torch-compile.tar.gz" torch-compile
  echo "after-check: torch.compile artifacts of $(find "$folder/torch-compile" -name '*.bin' | wc -l) model-batches in $folder/torch-compile"
fi
echo "after-check: $folder: $(ls "$folder" | wc -l) files"

# The profile DB of the kit's target (its manifest says which), unless --db names one.
kit_target() {
  local manifest
  manifest=$(tar -xJOf "$kit" kit/MANIFEST 2>/dev/null) || fail "$kit holds no MANIFEST: not a kit of make-kit.sh"
  sed -n 's/^target \([a-z0-9]*\) .*/\1/p' <<< "$manifest" | head -1
}

# The timings into that DB, read with the kit's misses and their models.
if [[ -s "$folder/measure.results.jsonl" ]]; then
  if [[ -f "$kit" ]]; then
    unpacked=$(mktemp -d)
    trap 'rm -rf "$unpacked"' EXIT
    tar -C "$unpacked" -xJf "$kit" kit/MANIFEST kit/misses || fail "$kit holds no misses (make-kit.sh --misses)"
    db=${db:-bench/profiles/$(kit_target).json}
    "$build/tools/pet-profile" --import "$folder/measure.results.jsonl" --misses "$unpacked/kit/misses/misses.jsonl" \
      --out "$db"
  else
    echo "after-check: no kit at $kit, so the timings are not imported (pet-profile --import needs its misses)"
  fi
fi

# What the live stage's pet-opt --live runs measured (its DB started from this session's measure
# results, so an entry already imported is merged again, unchanged).
if [[ -s "$folder/live-db.json" ]]; then
  [[ -n "$db" || -f "$kit" ]] || fail "no kit at $kit to name the target of live-db.json; pass --db FILE"
  db=${db:-bench/profiles/$(kit_target).json}
  "$build/tools/pet-profile" --merge "$folder/live-db.json" --out "$db"
fi

# The harness's GPU section alone: an empty CPU part merged with the e2e results (and the compile
# stage's, each model and batch whole from one run).
if [[ -s "$folder/e2e.json" ]]; then
  empty=$(mktemp -d) rendered=$(mktemp -d) gpu_files="$folder/e2e.json"
  [[ -s "$folder/e2e-compile.json" ]] && gpu_files="$gpu_files,$folder/e2e-compile.json"
  printf 'model,batch,target,threads,variant\n' > "$empty/harness.csv"
  python3 bench/harness.py --merge "$empty" --gpu-results "$gpu_files" --out "$rendered" > /dev/null
  # The part header names the empty folder: say instead what was rendered, and how.
  python3 - "$rendered/harness.md" "$folder/harness.md" "$gpu_files" <<'PY'
import sys
text = open(sys.argv[1]).read()
body = text[text.index("- GPU ("):]
open(sys.argv[2], "w").write(
    "# pet harness: the GPU's section alone\n\nRendered by scripts/device/after-check.sh from " + sys.argv[3]
    + " (bench/harness.py --merge over an empty CPU part), so no CPU columns.\n\n" + body)
PY
  cp "$rendered/harness.csv" "$folder/"
  [[ -f "$rendered/speedup_gpu.png" ]] && cp "$rendered/speedup_gpu.png" "$folder/"
  rm -rf "$empty" "$rendered"
  echo "after-check: $folder/harness.md: the GPU section of the harness"
fi
# The card's times against the target's analytic spec (bench/gpu/fit_spec.py): the executor
# stage's per-step times of the kit's work models, and the DB's kernel-group times of the kit's
# misses (what the measure stage and the live runs timed): the committed spec's error and a fit,
# reported; adopting the fit is a decision (it changes what pet-opt writes, so the next kit's too).
if [[ -f "$kit" ]] && [[ -s "$folder/executor.txt" || ( -n "$db" && -f "$db" ) ]]; then
  spec_target=$(kit_target)
  unpacked_kit=$(mktemp -d)
  # One pass over the archive: a kit without misses makes tar report the missing member, and only
  # the work models are required.
  tar -C "$unpacked_kit" -xJf "$kit" --wildcards 'kit/work/*' 'kit/misses/*' 2>/dev/null || true
  [[ -d "$unpacked_kit/kit/work" ]] || fail "$kit holds no work models"
  sources=()
  [[ -s "$folder/executor.txt" ]] && sources+=(--executor "$folder/executor.txt" --work "$unpacked_kit/kit/work")
  [[ -n "$db" && -f "$db" && -f "$unpacked_kit/kit/misses/misses.jsonl" ]] &&
    sources+=(--db "$db" --misses "$unpacked_kit/kit/misses/misses.jsonl")
  if ((${#sources[@]})); then
    status=0
    python3 bench/gpu/fit_spec.py "${sources[@]}" --spec "$spec_target" --pet-profile "$build/tools/pet-profile" \
      --report "$folder/spec-fit.md" --out-spec "$folder/$spec_target-fitted.json" > "$folder/spec-fit.log" 2>&1 || status=$?
    if ((status == 3)); then
      rm -f "$folder/spec-fit.log"
      echo "after-check: no kernel-group time of $spec_target for the kit's misses in $db, and no executor stage: no spec fit"
    elif ((status)); then
      fail "bench/gpu/fit_spec.py failed: $(tail -3 "$folder/spec-fit.log")"
    else
      echo "after-check: $folder/spec-fit.md: $(grep -m1 -o '[0-9.]* before, [0-9.]* fitted' "$folder/spec-fit.md")"
      echo "after-check: to adopt the fit: cp $folder/$spec_target-fitted.json search/cost/devices/$spec_target.json" \
        "(then rebuild, and the kit: pet-opt's choices change)"
    fi
  fi
  rm -rf "$unpacked_kit"
elif [[ -s "$folder/executor.txt" ]]; then
  echo "after-check: no kit at $kit, so the executor's step times are not set beside the spec (its work models)"
fi

# What the DB now holds per device, and whether this build replays it.
[[ -n "$db" && -f "$db" ]] && "$build/tools/pet-profile" --summary "$db"
echo "after-check: now commit $folder${db:+ and $db}"
