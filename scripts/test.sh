#!/usr/bin/env bash
# Sets up, builds and runs every test: the one command the README and CI use.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cuda=ON
[[ -x /usr/local/cuda/bin/nvcc ]] || cuda=OFF
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPET_BUILD_CUDA=$cuda >/dev/null
# ONNX 1.16's node tests (opsets 18-21, float16) for the conformance suite: generated once, before
# the build, since the test list is discovered at build time.
bash scripts/onnx-testdata.sh build/onnx-testdata-1.16
cmake --build build -j"$(nproc)"
ctest --test-dir build -j"$(nproc)" --output-on-failure --timeout 1800 "$@"
# The conformance counts (ran / passed / skipped as unsupported), visible in the log.
build/tests/pet_conformance --gtest_filter='ConformanceSummary.*' | grep '^conformance'
