#!/bin/bash
# The trim's A/B through the jemalloc folder's script: pet-opt built at cb2226e (no trim) against the
# trimming build, three rounds, the TASO-only searches the trim is for and two PET ones.
#   bash run.sh NOTRIM_PET_OPT TRIM_PET_OPT > runs.txt
set -euo pipefail
bash "$(dirname "$0")/../2026-12-01-xeon-jemalloc/ab.sh" notrim "$1" trim "$2" 3 \
  "inception_v3_299_b1 taso h200" "bert_s128_b1 taso h200" "bert_s128_b1 pet h200" "resnet18_b16 pet h200" "r3d_18_b1 taso h200"
