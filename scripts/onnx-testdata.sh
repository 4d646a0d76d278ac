#!/usr/bin/env bash
# Generates ONNX 1.16's node conformance tests (opsets up to 21) into build/onnx-testdata-1.16, once.
#
# Debian's libonnx-testdata is ONNX 1.12 (opsets <= 17). ONNX ships the generator of its node
# tests in the Python package, so a private venv with onnx 1.16 regenerates the newer suite.
# Idempotent: a finished folder (marked by .complete) is reused; a half-written one is redone.
# Usage: scripts/onnx-testdata.sh [OUTPUT_ROOT]   (default build/onnx-testdata-1.16)
set -euo pipefail
cd "$(dirname "$0")/.."

version=1.16.2
root=${1:-build/onnx-testdata-1.16}
venv=build/onnx-testdata-venv
marker=$root/.complete

if [[ -e $marker ]] && [[ $(cat "$marker") == "$version" ]]; then
  exit 0
fi

if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c "import onnx, sys; sys.exit(onnx.__version__ != '$version')" 2>/dev/null; then
  echo "onnx-testdata: creating $venv with onnx $version"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q "onnx==$version" "numpy<2"
fi

echo "onnx-testdata: generating the node tests of onnx $version into $root"
rm -rf "$root.partial"
mkdir -p "$root.partial/node"  # the generator counts what this folder held before
"$venv/bin/python" -m onnx.backend.test.cmd_tools generate-data -o "$root.partial" >/dev/null
rm -rf "$root"
mv "$root.partial" "$root"
echo "$version" >"$marker"
echo "onnx-testdata: $(find "$root/node" -maxdepth 1 -mindepth 1 -type d | wc -l) node tests in $root/node"
