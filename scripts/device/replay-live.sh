#!/usr/bin/env bash
# After a check with a live stage (scripts/device/session.sh --stages live), here: each live run's
# model, the kit's weight-free work model it read there, optimized again with --replay from the
# profile DB its times were merged into (after-check.sh), which must make the run's choice with no
# cost estimated; and so must the evaluation model it stands for, the ONNX file with its weights
# (MODELS/<model>_b1 or _b16, where it was exported), since the DB's keys are blind to weight
# values. Writes FOLDER/replay-live.txt, one line per run, and fails when one differs.
#
#   bash scripts/device/replay-live.sh FOLDER [--kit .device/kit.tar.xz] [--db FILE] [--build DIR]
#                                             [--models DIR]
#
# FOLDER: the results folder after-check.sh laid out (its live/<model>.<mode>.json reports); --db:
# default bench/profiles/<the kit's target>.json; --models: default BUILD/models.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() { echo "replay-live: $*" >&2; exit 1; }
(($# >= 1)) || { sed -n '2,15p' "$0"; exit 2; }
folder=$1
shift
kit=.device/kit.tar.xz db="" build=build models=""
while (($#)); do
  case "$1" in
    --models) models="$2"; shift 2 ;;
    --kit) kit="$2"; shift 2 ;;
    --db) db="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    *) echo "replay-live: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
reports=("$folder"/live/*.json)
[[ -f "${reports[0]}" ]] || fail "$folder/live holds no reports: not a check with a live stage"
[[ -f "$kit" ]] || fail "no kit at $kit: the replays read its work models"
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
tar -C "$unpacked" -xJf "$kit" kit/MANIFEST kit/work || fail "$kit does not unpack"
target=$(sed -n 's/^target \([a-z0-9]*\) .*/\1/p' "$unpacked/kit/MANIFEST" | head -1)
db=${db:-bench/profiles/${target:-h100}.json}
models=${models:-$build/models}

# A report's model (its folder under the kit's work/), mode and choice.
read_report() {
  python3 -c 'import json, os, sys
r = json.load(open(sys.argv[1]))
print(os.path.basename(os.path.dirname(r["model"])), r["mode"], r["chosen"])' "$1"
}
# The replay's estimated costs and choice, from its report (the choice last: "program 2" has a space).
read_replay() {
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["target"]["kernel_costs"]["estimated"], r["chosen"])' "$1"
}

# The exported evaluation model a kit work model stands for (resnet18 -> resnet18_b1, resnet18_b16
# itself); empty where it was not exported here.
evaluation_model() {
  local name=$1
  [[ "$name" == *_b16 ]] || name=${name}_b1
  [[ -f "$models/$name/model.onnx" ]] && echo "$models/$name/model.onnx"
  return 0
}

# One replay of MODEL as run RUN (a name for its files), compared with the live choice: prints
# "the replay CHOSEN with N costs estimated: ok|DIFFERS", or why it failed; status 1 when not ok.
replay_one() {  # model, run, mode, live choice
  if ! "$build/tools/pet-opt" "$1" --target "$target" --replay --profile-db "$db" --mode "$3" \
       -o "$unpacked/$2.onnx" --report "$unpacked/$2.json" > "$unpacked/$2.log" 2>&1; then
    echo "the replay failed: $(tail -n 1 "$unpacked/$2.log")"
    return 1
  fi
  local replayed estimated
  read -r estimated replayed < <(read_replay "$unpacked/$2.json")
  if [[ "$replayed" == "$4" && "$estimated" == 0 ]]; then
    echo "the replay $replayed with $estimated costs estimated: ok"
  else
    echo "the replay $replayed with $estimated costs estimated: DIFFERS"
    return 1
  fi
}

differed=0
: > "$folder/replay-live.txt"
for report in "${reports[@]}"; do
  read -r model mode chosen < <(read_report "$report")
  run=$(basename "$report" .json)
  line=$(replay_one "$unpacked/kit/work/$model/model.pet" "$run" "$mode" "$chosen") || differed=1
  echo "$run: live chose $chosen, $line" >> "$folder/replay-live.txt"
  onnx=$(evaluation_model "$model")
  [[ -n "$onnx" ]] || continue
  line=$(replay_one "$onnx" "$run.onnx" "$mode" "$chosen") || differed=1
  echo "$run on $onnx (its weights): $line" >> "$folder/replay-live.txt"
done
cat "$folder/replay-live.txt"
((differed == 0)) || fail "a replay differs from its live run ($folder/replay-live.txt)"
