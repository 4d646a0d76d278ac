#!/bin/bash
# The in-place fusion's A/B through the jemalloc folder's script: pet-opt built at 92586da (fusions
# rebuild the fused node, then re-sort) against the build that fuses in place, three rounds each.
#   bash run.sh REBUILD_PET_OPT INPLACE_PET_OPT
# writes runs-first.txt (ab.sh's default cases) and runs-second.txt (the ort-cpu case again, each build
# replaying a DB it recorded itself, and two PET searches), then summary.txt.
set -euo pipefail
here=$(dirname "$0")
ab=$here/../2026-12-01-xeon-jemalloc/ab.sh
bash "$ab" rebuild "$1" inplace "$2" 3 > "$here/runs-first.txt"
bash "$ab" rebuild "$1" inplace "$2" 3 "resnet18_b1 pet ort-cpu" "resnet50_b1 pet h200" "inception_v3_299_b1 pet h200" \
  > "$here/runs-second.txt"
python3 "$here/summarize.py" rebuild inplace "$here/runs-first.txt" "$here/runs-second.txt" > "$here/summary.txt"
