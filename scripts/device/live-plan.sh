#!/usr/bin/env bash
# Which of a kit's models the next check's live stage should run: those whose written runs in the
# kit (make-kit.sh --written: pet-opt --replay here, modes pet and taso) priced a kernel group by
# estimate or chose the written program on estimates, so the card has not yet decided them. Prints
# their work names, comma-separated, in the live stage's order (session.sh's default list first,
# then the rest, batch 1 before batch 16, by name), each as <model>.<mode> where only that mode is
# undecided, or nothing when every written run already replays the card's times.
#
#   bash scripts/device/live-plan.sh [KIT_ARCHIVE]      (default .device/kit.tar.xz)
set -euo pipefail
cd "$(dirname "$0")/../.."

kit=${1:-.device/kit.tar.xz}
[[ -f "$kit" ]] || { echo "live-plan: no kit at $kit (make one: scripts/device/prepare-check.sh)" >&2; exit 1; }
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
tar -C "$unpacked" -xJf "$kit" --wildcards 'kit/work-written/*/report.json' 2> /dev/null ||
  { echo "live-plan: $kit holds no written runs (make it with make-kit.sh --written)" >&2; exit 1; }
default_order=$(sed -n 's/^live_models=//p' scripts/device/session.sh | head -1)

python3 - "$unpacked/kit/work-written" "$default_order" <<'EOF'
import json, os, sys

folder, default_order = sys.argv[1], sys.argv[2].split(",")
undecided = {}  # model -> its undecided modes
for run in os.listdir(folder):  # "<model>.<mode>", e.g. resnet18_b16.pet
    model, mode = run.rsplit(".", 1)
    with open(os.path.join(folder, run, "report.json")) as f:
        target = json.load(f)["target"]
    estimated = target.get("kernel_costs", {}).get("estimated", 0)
    chosen_on = target.get("selection", {}).get("source", "estimated")
    if estimated > 0 or chosen_on not in ("measured", "replayed"):
        undecided.setdefault(model, set()).add(mode)
first = [m for m in default_order if m in undecided]
rest = sorted(set(undecided) - set(first), key=lambda m: (m.endswith("_b16"), m))  # batch 1 first: shorter runs
# A model with both modes undecided runs both (session.sh: taso then pet); else only the one.
print(",".join(m if len(undecided[m]) == 2 else f"{m}.{next(iter(undecided[m]))}" for m in first + rest))
EOF
