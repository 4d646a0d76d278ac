#!/usr/bin/env bash
# The README's main command as a user runs it after the test suite: it prints the measured
# latencies before and after and no warning (in particular none about a stale profile DB: the
# suite never writes the user's DB). Setup is skipped: the suite's own build is used.
#   bash tests/readme_main_command_test.sh OUTPUT_FOLDER
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
mkdir -p "$out"
log="$out/optimize-resnet18.log"
PET_SKIP_SETUP=1 bash scripts/optimize-resnet18.sh -o "$out/resnet18.opt.onnx" 2>&1 | tee "$log"
grep -q "latency in onnxruntime" "$log" || { echo "FAILED: no measured before/after latency in the output"; exit 1; }
if grep -q "warning: " "$log"; then echo "FAILED: the main command printed a warning (above)"; exit 1; fi
[[ -s "$out/resnet18.opt.onnx" && -s "$out/resnet18.opt.json" ]] || { echo "FAILED: no model or report written"; exit 1; }
echo "main command: measured latencies printed, no warning, model and report written"
