"""The harness's CSV (one row per model, batch, target, threads and variant) and its Markdown report."""
import csv
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from harnesslib.stats import geometric_mean, verdict
from harnesslib.variants import INPUT, PEER_LABELS, label_of, mode_of

COLUMNS = ["model", "batch", "target", "threads", "variant", "median_ms", "spread_ms", "speedup_vs_input",
           "opt_seconds", "check", "label", "max_abs_error", "flops", "floor_ms", "floor_fraction",
           "gpu_estimate_us", "transformations", "by_evidence", "by_family", "chosen", "stop_reason", "seed",
           "repeats"]
GPU_LABEL = "H100 estimate (analytic, not measured)"

CellKey = Tuple[str, int, str, int]


def cell_key(row: dict) -> CellKey:
    return (row["model"], int(row["batch"]), row["target"], int(row["threads"]))


def number(value) -> Optional[float]:
    """A CSV field as a float, None when empty."""
    if value is None or value == "":
        return None
    return float(value)


def write_csv(rows: Iterable[dict], path: Path) -> None:
    """All rows under COLUMNS, written to a temporary file and renamed (a stopped run never leaves half a CSV)."""
    temporary = path.with_suffix(".csv.tmp")
    with temporary.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({c: "" if row.get(c) is None else row.get(c) for c in COLUMNS})
    temporary.replace(path)


def read_csv(path: Path) -> List[dict]:
    if not path.exists():
        return []
    with path.open() as handle:
        return list(csv.DictReader(handle))


def speedups(rows: List[dict]) -> None:
    """Fills speedup_vs_input in the rows of one cell from the input row's median."""
    base = next((number(r.get("median_ms")) for r in rows if r["variant"] == INPUT), None)
    for row in rows:
        ms = number(row.get("median_ms"))
        row["speedup_vs_input"] = round(base / ms, 4) if base and ms else ""


def cell_text(row: dict) -> str:
    speedup, ms, spread = number(row.get("speedup_vs_input")), number(row.get("median_ms")), number(row.get("spread_ms"))
    if ms is None:
        return "n/a*"
    text = f"{speedup:.3f}x ({ms:.2f} ± {spread:.2f})" if speedup else f"({ms:.2f} ± {spread:.2f})"
    return text if row.get("check") == "ok" else text + " *"


def table_header(first: List[str], variants: List[str]) -> List[str]:
    titles = first + [label_of(v) for v in variants]
    return ["| " + " | ".join(titles) + " |", "|" + "---|" * len(titles)]


def by_cell(rows: List[dict]) -> Dict[CellKey, Dict[str, dict]]:
    cells: Dict[CellKey, Dict[str, dict]] = {}
    for row in rows:
        cells.setdefault(cell_key(row), {})[row["variant"]] = row
    return cells


def ordered_variants(rows: List[dict]) -> List[str]:
    seen: List[str] = []
    for row in rows:
        if row["variant"] not in seen:
            seen.append(row["variant"])
    return seen


def speedup_table(cells: Dict[CellKey, Dict[str, dict]], variants: List[str]) -> List[str]:
    lines = table_header(["model", "batch"], variants)
    for key, cell in cells.items():
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cell_text(cell[v]) if v in cell else "" for v in variants) + " |")
    means = []
    for v in variants:
        mean = geometric_mean(number(c[v].get("speedup_vs_input")) for c in cells.values()
                              if v in c and c[v].get("check") == "ok")
        means.append(f"**{mean:.3f}x**" if mean else "")
    lines.append("| geometric mean | | " + " | ".join(means) + " |")
    return lines


def floor_table(cells: Dict[CellKey, Dict[str, dict]], variants: List[str]) -> List[str]:
    lines = table_header(["model", "batch", "GFLOP", "floor ms"], variants)
    for key, cell in cells.items():
        first = cell.get(INPUT, next(iter(cell.values())))
        flops, floor = number(first.get("flops")), number(first.get("floor_ms"))
        fractions = []
        for v in variants:
            fraction = number(cell[v].get("floor_fraction")) if v in cell else None
            fractions.append(f"{100 * fraction:.1f} %" if fraction else "")
        lines.append(f"| {key[0]} | {key[1]} | {flops / 1e9:.2f} | {floor:.2f} | " + " | ".join(fractions) + " |"
                     if flops and floor else f"| {key[0]} | {key[1]} | | | " + " | ".join(fractions) + " |")
    return lines


def measured(row: Optional[dict]) -> bool:
    return bool(row) and row.get("check") == "ok" and number(row.get("median_ms")) is not None


def pet_versus_best_peer(key: CellKey, cell: Dict[str, dict]) -> str:
    """One line: PET's mode (or the best measured pet mode) against the fastest peer whose check passed."""
    pet = cell.get("pet") if measured(cell.get("pet")) else None
    if pet is None:
        pets = [r for v, r in cell.items() if mode_of(v) and measured(r)]
        pet = min(pets, key=lambda r: number(r["median_ms"])) if pets else None
    peers = [r for v, r in cell.items() if v in PEER_LABELS and measured(r)]
    name = f"{key[0]} b{key[1]}"
    if pet is None or not peers:
        return f"- {name}: " + ("no pet mode measured" if pet is None else "no peer measured")
    peer = min(peers, key=lambda r: number(r["median_ms"]))
    outcome = verdict(number(pet["median_ms"]), number(pet["spread_ms"]), number(peer["median_ms"]),
                      number(peer["spread_ms"]))
    return (f"- {name}: {label_of(pet['variant'])} {number(pet['median_ms']):.2f} ± {number(pet['spread_ms']):.2f} ms "
            f"**{outcome}** the best peer, {label_of(peer['variant'])} {number(peer['median_ms']):.2f} ± "
            f"{number(peer['spread_ms']):.2f} ms")


def flagged_lines(rows: List[dict]) -> List[str]:
    return [f"- {r['model']} b{r['batch']} {r['target']} t{r['threads']} {label_of(r['variant'])}: {r['check']}"
            for r in rows if r.get("check") != "ok"]


def pet_runs_table(rows: List[dict]) -> List[str]:
    lines = ["| model | batch | target | threads | mode | opt s | chosen | transformations | by evidence | by family | "
             "stop |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if mode_of(r["variant"]):
            lines.append(f"| {r['model']} | {r['batch']} | {r['target']} | {r['threads']} | {label_of(r['variant'])} | "
                         f"{r.get('opt_seconds', '')} | {r.get('chosen', '')} | {r.get('transformations', '')} | "
                         f"{r.get('by_evidence', '') or '-'} | {r.get('by_family', '') or '-'} | "
                         f"{r.get('stop_reason', '')} |")
    return lines


def gpu_table(rows: List[dict]) -> List[str]:
    estimates: Dict[Tuple[str, int], Dict[str, str]] = {}
    for r in rows:
        if r.get("gpu_estimate_us") not in (None, ""):
            estimates.setdefault((r["model"], int(r["batch"])), {})[r["variant"]] = r["gpu_estimate_us"]
    if not estimates:
        return []
    variants = ordered_variants([{"variant": v} for e in estimates.values() for v in e])
    lines = [f"## {GPU_LABEL}", "", "pet's analytic roofline cost of the whole model in µs (`pet-opt --target h100 "
             "--mode M`, report totals); the input column is its cost of the input model.", ""]
    lines += table_header(["model", "batch"], variants)
    for (model, batch), e in estimates.items():
        lines.append(f"| {model} | {batch} | " + " | ".join(str(e.get(v, "")) for v in variants) + " |")
    return lines + [""]


def section(target: str, threads: int, rows: List[dict]) -> List[str]:
    cells = by_cell(rows)
    variants = ordered_variants(rows)
    lines = [f"## {target}, {threads} thread{'s' if threads > 1 else ''}", "",
             "Speedup over the input model, then its median ms ± half the interquartile range. "
             "`*`: flagged (see Flags).", ""]
    lines += speedup_table(cells, variants)
    lines += ["", "pet against the best peer (beats or loses when the medians differ by more than both spreads):", ""]
    lines += [pet_versus_best_peer(key, cell) for key, cell in cells.items()]
    lines += ["", "Fraction of the physical floor each variant reaches (the model's Conv/MatMul/Gemm FLOPs at "
              "the CPU's arithmetic peak, over its median time; 1.0 would leave nothing for any rewrite that keeps "
              "the FLOPs):", ""]
    lines += floor_table(cells, variants)
    return lines + [""]


def write_markdown(rows: List[dict], header: List[str], path: Path) -> None:
    """harness.md: the header, one section per target and thread count, pet's runs, the GPU estimate, the flags."""
    lines = list(header)
    groups: Dict[Tuple[str, int], List[dict]] = {}
    for row in rows:
        groups.setdefault((row["target"], int(row["threads"])), []).append(row)
    for (target, threads), group in groups.items():
        lines += section(target, threads, group)
    lines += ["## pet's runs", "", "Optimization time is the sum of pet-opt's reported stage times; transformations "
              "are those of the model pet wrote (none when it kept the input).", ""]
    lines += pet_runs_table(rows) + [""]
    lines += gpu_table(rows)
    flags = flagged_lines(rows)
    lines += ["## Flags", ""] + (flags or ["None: every variant ran and matched the input model's outputs."]) + [""]
    path.write_text("\n".join(lines))
