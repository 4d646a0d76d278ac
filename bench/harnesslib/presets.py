"""The CPU evaluation in parts: the presets' flag values, and each part's duration estimated from earlier pet-opt runs recorded in bench/results/*/matrix.csv.

A part is one preset and one model (`harness.py --preset b16 --models resnet18`), split by target,
thread count and batch when its estimate passes the budget; the parts' union is the preset's matrix and
`harness.py --merge` joins their folders into one table.
"""
import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from harnesslib.variants import PEERS, PET_MODES, TARGETS

PART_BUDGET_S = 90 * 60  # one part's wall clock on the project's 2-core machines
# Flag values by preset; flags given on the command line override them.
PRESETS: Dict[str, Dict[str, object]] = {
    "b1": {"batches": "1", "targets": ",".join(TARGETS), "threads": "1,2", "modes": ",".join(PET_MODES),
           "peers": ",".join(PEERS), "repeats": 10, "warmup": 2, "gpu_estimate": False},
    "b16": {"batches": "16", "targets": ",".join(TARGETS), "threads": "1,2", "modes": ",".join(PET_MODES),
            "peers": ",".join(PEERS), "repeats": 10, "warmup": 2, "gpu_estimate": False},
}
RUNS_FOLDER = Path(__file__).resolve().parents[1] / "results"

Cell = Tuple[str, int, str, int]  # model, batch, target, threads


@dataclass(frozen=True)
class Recorded:
    """One earlier pet-opt run of a cell (bench/target_matrix.py's matrix.csv): its input's median and its times."""
    input_ms: float
    total_s: float      # pet-opt's wall clock, its kernel groups timed cold
    measuring_s: float  # of which timing kernel groups, which later modes find in the profile DB
    source: str


def recorded_runs(folder: Path = RUNS_FOLDER) -> Dict[Cell, Recorded]:
    """Every cell of every matrix.csv under `folder`, the newest folder (by its dated name) winning."""
    found: Dict[Cell, Recorded] = {}
    for path in sorted(folder.glob("*/matrix.csv")):
        with path.open() as handle:
            for row in csv.DictReader(handle):
                if row.get("exit") not in ("0", None) or not row.get("input_ms"):
                    continue
                cell = (row["model"], int(row["batch"]), row["target"], int(row["threads"]))
                found[cell] = Recorded(float(row["input_ms"]), float(row["total_s"]), float(row.get("measuring_s") or 0),
                                       path.parent.name)
    return found


def variants_timed(target: str, peers: List[str], modes: List[str]) -> int:
    """How many variants a cell times: ONNX Runtime's own tools write ops OpenVINO cannot load (flagged cells, not timed)."""
    return 1 + len([p for p in peers if not (p.startswith("ort-") and target == "openvino-cpu")]) + len(modes)


def cell_seconds(recorded: Recorded, args, target: str) -> float:
    """pet-opt in every mode (the first times its kernel groups, the others find them in the DB), then the
    interleaved rounds: one output check, the warm-ups and the repeats of every variant at about the input's time."""
    pet_s = recorded.total_s + (len(args.modes) - 1) * max(recorded.total_s - recorded.measuring_s, 0)
    rounds = 1 + args.warmup + args.repeats
    return pet_s + rounds * variants_timed(target, args.peers, args.modes) * recorded.input_ms / 1000


def estimate(cells: List[Cell], args, runs: Dict[Cell, Recorded]) -> Tuple[float, List[Cell]]:
    """(seconds of the cells with a recorded run, the cells without one)."""
    seconds, unknown = 0.0, []
    for cell in cells:
        if cell in runs:
            seconds += cell_seconds(runs[cell], args, cell[2])
        else:
            unknown.append(cell)
    return seconds, unknown


@dataclass
class Part:
    flags: List[str]      # harness.py flags besides --preset
    cells: List[Cell]
    seconds: float
    unknown: List[Cell]   # cells no earlier run recorded: not in `seconds`

    def over_budget(self) -> bool:
        return self.seconds > PART_BUDGET_S


# What a part past the budget is split by, in turn: (flag, the cell's field, the selection's values).
SPLITS = (("--targets", 2, lambda args: args.targets), ("--threads", 3, lambda args: args.threads),
          ("--batches", 1, lambda args: args.batches))


def split(cells: List[Cell], flags: List[str], runs: Dict[Cell, Recorded], args) -> List[Part]:
    """The cells as one part when it fits the budget, else one part per target, then per target and thread
    count, then per batch; a part past the budget with nothing left to split by is kept whole."""
    seconds, unknown = estimate(cells, args, runs)
    if seconds <= PART_BUDGET_S or len(cells) == 1:
        return [Part(flags, cells, seconds, unknown)]
    for flag, field, values in SPLITS:
        if flag not in flags and len(values(args)) > 1:
            return [part for value in values(args)
                    for part in split([c for c in cells if c[field] == value], flags + [flag, str(value)], runs, args)]
    return [Part(flags, cells, seconds, unknown)]


def model_parts(model: str, args, runs: Dict[Cell, Recorded]) -> List[Part]:
    """One part for the model, split by target, thread count, then batch, where the whole would pass the budget."""
    cells = [(model, b, t, n) for b in args.batches for t in args.targets for n in args.threads]
    return split(cells, ["--models", model], runs, args)


def plan(args, runs: Optional[Dict[Cell, Recorded]] = None) -> List[Part]:
    """The parts of the selected matrix, each model's in order."""
    runs = recorded_runs() if runs is None else runs
    return [part for model in args.models for part in model_parts(model, args, runs)]


def part_command(part: Part, preset: str, given: List[List[str]]) -> str:
    """The part's harness.py command: the preset, the flags given to --plan that the part does not set
    (each [flag] or [flag, value]), then its own."""
    own = set(part.flags[0::2])
    kept = [item for group in given if group[0].split("=")[0] not in own for item in group]
    return " ".join(["python3 bench/harness.py"] + (["--preset", preset] if preset else []) + kept + part.flags)


def plan_lines(parts: List[Part], preset: str, runs: Dict[Cell, Recorded], given: List[List[str]] = ()) -> List[str]:
    """The plan as printed by --plan: each part's command and estimate, what it rests on, and the total.
    `given`: the other flags given to --plan, which every part's command repeats."""
    sources = sorted({runs[c].source for p in parts for c in p.cells if c in runs})
    lines = [f"harness plan: preset {preset or '(none)'}, {len(parts)} parts, budget {PART_BUDGET_S // 60} min each; "
             f"estimated from pet-opt's recorded runs in bench/results/{{{','.join(sources)}}}/matrix.csv "
             "(peers' file making not included)"]
    for part in parts:
        figure = f"{part.seconds / 60:.0f} min" + (" OVER BUDGET" if part.over_budget() else "")
        if part.unknown:
            figure += f" + {len(part.unknown)} cells with no recorded run"
        command = part_command(part, preset, list(given))
        folder = "_".join(([preset] if preset else []) + part.flags[1::2])
        lines.append(f"  {figure:>12}: {command} --out build/harness/{folder}")
    known = sum(p.seconds for p in parts)
    lines.append(f"total {known / 3600:.1f} h estimated; merge with: python3 bench/harness.py --merge build/harness/* "
                 "--out build/harness-merged")
    return lines
