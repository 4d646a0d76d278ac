#!/usr/bin/env bash
# Sets up, builds and runs every test: the one command the README and CI use.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cuda=ON
[[ -x /usr/local/cuda/bin/nvcc ]] || cuda=OFF
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPET_BUILD_CUDA=$cuda -DPET_BUILD_PYTHON=ON >/dev/null
# ONNX 1.16's node tests (opsets 18-21, float16) for the conformance suite: generated once, before
# the build, since the test list is discovered at build time.
bash scripts/onnx-testdata.sh build/onnx-testdata-1.16
cmake --build build -j"$(nproc)"
# -- modern PyTorch export (issue 14): the model pet_modern_model_tests reads, written by the default
# -- python3's torch (a current PyPI release with onnxscript) through its default ONNX exporter.
if python3 -c "import torch, onnxscript" >/dev/null 2>&1; then
  python3 models/export_modern.py --out build/models-modern
else
  echo "test.sh: python3 has no torch/onnxscript; pet_modern_model_tests will skip (python3 -m pip install torch onnxscript)"
fi
# -- end of the modern PyTorch export
# -- element types (issue 37): a uint8-image CNN and an int32-token model, by Debian's torch.
/usr/bin/python3 models/export_typed.py --out build/models-typed
# -- torch's nn.MultiheadAttention form (pet_multihead_model_tests), by Debian's torch.
/usr/bin/python3 models/export_multihead.py --out build/models-multihead
# -- causal transformers (pet_decoder_model_tests), by Debian's torch.
/usr/bin/python3 models/export_decoder.py --out build/models-decoder
if python3 -c "import torch, onnxscript, transformers" >/dev/null 2>&1; then
  python3 models/export_decoder.py --out build/models-decoder --models hf_gpt2,hf_gpt2_padding
else
  echo "test.sh: python3 has no torch/onnxscript/transformers; pet_decoder_model_tests skips hf_gpt2 and hf_gpt2_padding"
fi
ctest --test-dir build -j"$(nproc)" --output-on-failure --timeout 1800 "$@"
# The conformance counts (ran / passed / skipped as unsupported), visible in the log.
build/tests/pet_conformance --gtest_filter='ConformanceSummary.*' | grep '^conformance'
