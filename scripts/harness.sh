#!/usr/bin/env bash
# The evaluation in one command: exports the batch-1 and batch-16 models when missing (the export
# stamps make this a quick no-op otherwise), builds pet_harness and runs it with the given
# arguments (all passed through; see build/bench/pet_harness --help), e.g.
#   scripts/harness.sh --models resnet18,bert_s128 --time-limit 30
#   scripts/harness.sh --target ort-cpu --threads 1     (measured here: end-to-end times, the default)
#   scripts/harness.sh --target h100                    (estimated by the GPU cost model, times nothing)
#   scripts/harness.sh --target ort-cpu --replay --profile-db db.json   (reads the DB, times nothing)
# Results: build/harness/harness.md, harness.csv, cost.png, speedup.png, search_time.png.
set -euo pipefail
cd "$(dirname "$0")/.."
models_dir=build/models
if [[ ! -f build/CMakeCache.txt ]]; then
  cuda=ON
  [[ -x /usr/local/cuda/bin/nvcc ]] || cuda=OFF
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPET_BUILD_CUDA=$cuda -DPET_BUILD_BENCH=ON >/dev/null
fi
/usr/bin/python3 models/export_models.py --out "$models_dir" --batch 1 16
cmake --build build -j"$(nproc)" --target pet_harness
exec build/bench/pet_harness --models-dir "$models_dir" "$@"
