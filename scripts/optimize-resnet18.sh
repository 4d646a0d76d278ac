#!/usr/bin/env bash
# The main job on a fresh machine: set up, build, export ResNet-18, run pet-opt --beam 8 on it.
# Arguments go to pet-opt. PET_SKIP_SETUP=1 skips installing, configuring and building (the test
# readme.main_command runs the job this way in the build its suite already made).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${PET_SKIP_SETUP:-0}" != 1 ]]; then
  bash scripts/install-deps.sh
  cuda=ON
  [[ -x /usr/local/cuda/bin/nvcc ]] || cuda=OFF
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPET_BUILD_CUDA=$cuda >/dev/null
  cmake --build build -j"$(nproc)" --target pet-opt pet-run
fi
/usr/bin/python3 models/export_models.py --out build/models --models resnet18 --batch 1
cp build/models/resnet18_b1/model.onnx build/resnet18.onnx
build/tools/pet-opt --beam 8 build/resnet18.onnx "$@"
