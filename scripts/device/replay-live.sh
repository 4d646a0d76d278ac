#!/usr/bin/env bash
# After a check with a live stage (scripts/device/session.sh --stages live), here: each live run's
# model, the kit's weight-free work model it read there, optimized again with --replay from the
# profile DB its times were merged into (after-check.sh), which must make the run's choice with no
# cost estimated. Writes FOLDER/replay-live.txt, one line per run, and fails when one differs.
#
#   bash scripts/device/replay-live.sh FOLDER [--kit .device/kit.tar.xz] [--db FILE] [--build DIR]
#
# FOLDER: the results folder after-check.sh laid out (its live/<model>.<mode>.json reports); --db:
# default bench/profiles/<the kit's target>.json.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() { echo "replay-live: $*" >&2; exit 1; }
(($# >= 1)) || { sed -n '2,11p' "$0"; exit 2; }
folder=$1
shift
kit=.device/kit.tar.xz db="" build=build
while (($#)); do
  case "$1" in
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

# A report's model (its folder under the kit's work/), mode and choice.
read_report() {
  python3 -c 'import json, os, sys
r = json.load(open(sys.argv[1]))
print(os.path.basename(os.path.dirname(r["model"])), r["mode"], r["chosen"])' "$1"
}
# The replay's choice and estimated costs, from its report.
read_replay() {
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["chosen"], r["target"]["kernel_costs"]["estimated"])' "$1"
}

differed=0
: > "$folder/replay-live.txt"
for report in "${reports[@]}"; do
  read -r model mode chosen < <(read_report "$report")
  run=$(basename "$report" .json)
  if ! "$build/tools/pet-opt" "$unpacked/kit/work/$model/model.pet" --target "$target" --replay --profile-db "$db" \
       --mode "$mode" -o "$unpacked/$run.onnx" --report "$unpacked/$run.json" > "$unpacked/$run.log" 2>&1; then
    echo "$run: the replay failed: $(tail -n 1 "$unpacked/$run.log")" >> "$folder/replay-live.txt"
    differed=1
    continue
  fi
  read -r replayed estimated < <(read_replay "$unpacked/$run.json")
  verdict=ok
  [[ "$replayed" == "$chosen" && "$estimated" == 0 ]] || { verdict=DIFFERS; differed=1; }
  echo "$run: live chose $chosen, the replay $replayed with $estimated costs estimated: $verdict" >> "$folder/replay-live.txt"
done
cat "$folder/replay-live.txt"
((differed == 0)) || fail "a replay differs from its live run ($folder/replay-live.txt)"
