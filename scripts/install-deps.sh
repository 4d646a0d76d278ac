#!/usr/bin/env bash
# Installs what pet needs to build, export models and test, when missing. Idempotent: it says
# nothing and changes nothing when everything is already there.
set -euo pipefail

apt_packages=(
  cmake g++ make ccache pkg-config
  libonnx-dev libprotobuf-dev protobuf-compiler libz3-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libbenchmark-dev libopenblas-dev libjemalloc-dev
  python3-torch python3-torchvision python3-onnx libonnx-testdata
)

missing=()
for package in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Independent checks run PyPI's onnxruntime under the default python3 (not Debian's torch python).
if ! python3 -c "import onnx, onnxruntime, numpy" >/dev/null 2>&1; then
  echo "install-deps: installing onnx, onnxruntime and numpy for $(command -v python3)"
  python3 -m pip install -q onnx onnxruntime numpy 2>/dev/null ||
    python3 -m pip install -q --break-system-packages onnx onnxruntime numpy
fi

# The openvino-cpu target links OpenVINO's C++ runtime from its PyPI wheel (headers, libs, CMake package).
if ! python3 -c "import openvino" >/dev/null 2>&1; then
  echo "install-deps: installing openvino for $(command -v python3)"
  python3 -m pip install -q openvino 2>/dev/null ||
    python3 -m pip install -q --break-system-packages openvino
fi

# The harness (bench/harness.py) draws its charts with matplotlib and compares pet with the tools ONNX
# users run today; a peer that is missing is reported as "not available", not a failure.
for package in matplotlib onnxsim onnxslim onnxoptimizer; do
  python3 -c "import $package" >/dev/null 2>&1 && continue
  echo "install-deps: installing $package for $(command -v python3)"
  python3 -m pip install -q "$package" 2>/dev/null || python3 -m pip install -q --break-system-packages "$package" ||
    echo "install-deps: $package did not install; the harness reports it as not available" >&2
done

# The Python package (python/): nanobind builds its module in the suite's build, pytest tests it.
if ! python3 -c "import nanobind, pytest" >/dev/null 2>&1; then
  echo "install-deps: installing nanobind and pytest for $(command -v python3)"
  python3 -m pip install -q nanobind pytest 2>/dev/null ||
    python3 -m pip install -q --break-system-packages nanobind pytest
fi

if [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "install-deps: no CUDA toolkit in /usr/local/cuda; configure with -DPET_BUILD_CUDA=OFF" >&2
fi

# -- modern PyTorch export (issue 14): not installed here on purpose. PyPI's torch for Linux pulls
# -- about 3 GB of CUDA wheels (nvidia-*, triton; about 7 minutes measured), its CPU-only wheels are
# -- not on PyPI, and without those wheels `import torch` fails. Opt in by hand (models/README.md):
# --   python3 -m pip install torch onnxscript
# -- scripts/test.sh then exports the model pet_modern_model_tests reads; without it they skip.
# -- end of the modern PyTorch note
