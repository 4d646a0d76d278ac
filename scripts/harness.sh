#!/usr/bin/env bash
# The evaluation in one command: builds pet-opt (and pet's OpenVINO extension) when needed, then runs
# bench/harness.py with the given arguments, exporting the models it names when missing (--export), e.g.
#   scripts/harness.sh --models resnet18,csrnet_backend --batches 1 --targets ort-cpu --threads 1
#   scripts/harness.sh                              (all models, batch 1 and 16, both targets, 1 and 2 threads)
#   scripts/harness.sh --replay --profile-db db.json  (pet-opt reads the DB only; the runtimes still time)
# Results: build/harness/harness.md, harness.csv, speedup_<target>_t<N>.png, opt_time_<target>_t<N>.png;
# python3 bench/harness.py --help lists the flags; PET_BUILD_JOBS limits the build (default: all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f build/CMakeCache.txt ]]; then
  cuda=ON
  [[ -x /usr/local/cuda/bin/nvcc ]] || cuda=OFF
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPET_BUILD_CUDA=$cuda >/dev/null
fi
targets=(pet-opt)
# The extension exists where OpenVINO was found at configure time.
available=$(cmake --build build --target help)
if [[ $available == *pet_openvino_extension* ]]; then targets+=(pet_openvino_extension); fi
cmake --build build -j"${PET_BUILD_JOBS:-$(nproc)}" --target "${targets[@]}"
exec python3 bench/harness.py --export "$@"
