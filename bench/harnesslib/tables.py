"""The harness's CSV (one row per model, batch, target, threads and variant) and its Markdown report, the GPU's measured rows beside the CPU's."""
import csv
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from harnesslib import gpu_results
from harnesslib.stats import geometric_mean, verdict
from harnesslib.variants import INPUT, PEER_LABELS, label_of, mode_of

COLUMNS = ["model", "batch", "target", "threads", "variant", "median_ms", "spread_ms", "speedup_vs_input",
           "opt_seconds", "check", "label", "max_abs_error", "flops", "floor_ms", "floor_fraction",
           "gpu_estimate_us", "transformations", "by_evidence", "by_family", "corrected_mutant", "correction_share", "chosen_on", "chosen", "stop_reason", "seed",
           "repeats", "card"]
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


def is_gpu(row: dict) -> bool:
    return row.get("target") == gpu_results.GPU_TARGET


def milliseconds(ms: float, scale: Optional[float] = None) -> str:
    """Two decimals, three where `scale` (the median it goes with; by default `ms`) is below 1 ms, as the GPU's
    times are, so that no median prints as 0.00."""
    return f"{ms:.3f}" if (ms if scale is None else scale) < 1 else f"{ms:.2f}"


def cell_text(row: dict) -> str:
    speedup, ms, spread = number(row.get("speedup_vs_input")), number(row.get("median_ms")), number(row.get("spread_ms"))
    if ms is None:
        return "n/a*"
    figure = f"({milliseconds(ms)} ± {milliseconds(spread, ms)})"
    text = f"{speedup:.3f}x {figure}" if speedup else figure
    return text if row.get("check") == "ok" else text + " *"


def column_title(variant: str, gpu: bool) -> str:
    return gpu_results.VARIANT_LABELS.get(variant, variant) if gpu else label_of(variant)


def table_header(first: List[str], variants: List[str], gpu: bool = False) -> List[str]:
    titles = first + [column_title(v, gpu) for v in variants]
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


def speedup_table(cells: Dict[CellKey, Dict[str, dict]], variants: List[str], gpu: bool = False) -> List[str]:
    lines = table_header(["model", "batch"], variants, gpu)
    for key, cell in cells.items():
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cell_text(cell[v]) if v in cell else "" for v in variants) + " |")
    means = []
    for v in variants:
        mean = geometric_mean(number(c[v].get("speedup_vs_input")) for c in cells.values()
                              if v in c and c[v].get("check") == "ok")
        means.append(f"**{mean:.3f}x**" if mean else "")
    lines.append("| geometric mean | | " + " | ".join(means) + " |")
    return lines


def floor_table(cells: Dict[CellKey, Dict[str, dict]], variants: List[str], gpu: bool = False) -> List[str]:
    lines = table_header(["model", "batch", "GFLOP", "floor ms"], variants, gpu)
    for key, cell in cells.items():
        first = cell.get(INPUT, next(iter(cell.values())))
        flops, floor = number(first.get("flops")), number(first.get("floor_ms"))
        fractions = []
        for v in variants:
            fraction = number(cell[v].get("floor_fraction")) if v in cell else None
            fractions.append(f"{100 * fraction:.1f} %" if fraction else "")
        lines.append(f"| {key[0]} | {key[1]} | {flops / 1e9:.2f} | {milliseconds(floor)} | " + " | ".join(fractions) + " |"
                     if flops and floor else f"| {key[0]} | {key[1]} | | | " + " | ".join(fractions) + " |")
    return lines


def measured(row: Optional[dict]) -> bool:
    return bool(row) and row.get("check") == "ok" and number(row.get("median_ms")) is not None


def figure(row: dict, gpu: bool) -> str:
    ms = number(row["median_ms"])
    return f"{column_title(row['variant'], gpu)} {milliseconds(ms)} ± {milliseconds(number(row['spread_ms']), ms)} ms"


def pet_versus_best_peer(key: CellKey, cell: Dict[str, dict], gpu: bool = False) -> str:
    """One line: PET's mode (or the best measured pet mode) against the fastest peer whose check passed
    (on the GPU, the fastest PyTorch variant)."""
    pet = cell.get("pet") if measured(cell.get("pet")) else None
    if pet is None:
        pets = [r for v, r in cell.items() if mode_of(v) and measured(r)]
        pet = min(pets, key=lambda r: number(r["median_ms"])) if pets else None
    peer_names = gpu_results.PYTORCH_VARIANTS if gpu else PEER_LABELS
    peers = [r for v, r in cell.items() if v in peer_names and measured(r)]
    name, rival = f"{key[0]} b{key[1]}", "PyTorch variant" if gpu else "peer"
    if pet is None or not peers:
        return f"- {name}: " + ("no pet mode measured" if pet is None else f"no {rival} measured")
    peer = min(peers, key=lambda r: number(r["median_ms"]))
    outcome = verdict(number(pet["median_ms"]), number(pet["spread_ms"]), number(peer["median_ms"]),
                      number(peer["spread_ms"]))
    return f"- {name}: {figure(pet, gpu)} **{outcome}** the best {rival}, {figure(peer, gpu)}"


def flagged_lines(rows: List[dict]) -> List[str]:
    return [f"- {r['model']} b{r['batch']} {r['target'] if is_gpu(r) else r['target'] + ' t' + str(r['threads'])} "
            f"{column_title(r['variant'], is_gpu(r))}: {r['check']}" for r in rows if r.get("check") != "ok"]


def pet_runs_table(rows: List[dict]) -> List[str]:
    lines = ["| model | batch | target | threads | mode | opt s | chosen | transformations | by evidence | by family | "
             "stop |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if mode_of(r["variant"]) and not is_gpu(r):
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


def cpu_section(target: str, threads: int, rows: List[dict]) -> List[str]:
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


def gpu_section(rows: List[dict]) -> List[str]:
    """The GPU's measured table (bench/gpu/e2e.py's results, --gpu-results): pet-gpu's three models and PyTorch's three ways."""
    cells = by_cell(rows)
    variants = ordered_variants(rows)
    lines = [f"## GPU: {rows[0].get('card', '?')}, measured end to end", "",
             "Speedup over the input model in pet-gpu, then the median ms ± spread (bench/gpu/e2e.py: interleaved "
             "rounds, CUDA events, TF32 on both sides). `*`: flagged (see Flags).", ""]
    lines += speedup_table(cells, variants, gpu=True)
    lines += ["", "PET against the fastest PyTorch variant (beats or loses when the medians differ by more than both "
              "spreads):", ""]
    lines += [pet_versus_best_peer(key, cell, gpu=True) for key, cell in cells.items()]
    lines += ["", "Fraction of the physical floor each variant reaches (the model's Conv/MatMul/Gemm FLOPs at the "
              "card's measured TF32 GEMM rate, over its median time):", ""]
    lines += floor_table(cells, variants, gpu=True)
    lines += written_programs_table(rows)
    return lines + [""]


def share_text(row: dict) -> str:
    if not row.get("corrected_mutant") or row.get("corrected_mutant") == "False":
        return "-"
    share = number(row.get("correction_share"))
    return f"{100 * share:.1f} %" if share is not None else "not measured"


def written_programs_table(rows: List[dict]) -> List[str]:
    """What TASO-only and PET wrote for the card (the kit's pet-opt reports), and the corrections' measured share."""
    written = [r for r in rows if r.get("by_family") is not None and r.get("transformations") not in (None, "")]
    if not written:
        return []
    lines = ["", "What pet wrote for the card's target, chosen on the card (pet-opt --live in the session) or in the kit "
             "(pet-opt --replay on the profile DB of its day), and the correction kernels' share of the PET program's "
             "time (pet-gpu time --per-step):", "",
             "| model | batch | variant | chosen on | transformations | by family | corrected partial mutant | "
             "corrections' share |",
             "|---|---|---|---|---|---|---|---|"]
    for r in written:
        corrected = "yes" if r.get("corrected_mutant") in (True, "True") else "no"
        chosen_on = CHOSEN_ON.get(r.get("chosen_on") or "kit", r.get("chosen_on"))  # none: a file from before --live
        lines.append(f"| {r['model']} | {r['batch']} | {column_title(r['variant'], True)} | {chosen_on} | "
                     f"{r['transformations']} | {r['by_family'] or '-'} | {corrected} | {share_text(r)} |")
    return lines


CHOSEN_ON = {"card": "the card (--live)", "kit": "the kit (--replay)"}


def group_title(target: str, threads: int, rows: List[dict]) -> str:
    return f"GPU {rows[0].get('card', '?')}" if target == gpu_results.GPU_TARGET else f"{target} t{threads}"


def overview_table(groups: Dict[Tuple[str, int], List[dict]]) -> List[str]:
    """TASO-only's and PET's speedups over the input on every CPU target and the GPU side by side, one row per
    model and batch (only with GPU rows: otherwise the sections below say it all)."""
    if gpu_results.GPU_TARGET not in {target for target, _ in groups}:
        return []
    titles = [f"{group_title(t, n, rows)}: {label}" for (t, n), rows in groups.items()
              for label in ("TASO-only", "PET")]
    lines = ["## TASO-only and PET on every target", "", "Speedup over the input model on that target (`*`: "
             "flagged; empty: not run there).", "", "| model | batch | " + " | ".join(titles) + " |",
             "|" + "---|" * (2 + len(titles))]
    cells = {key: cell for rows in groups.values() for key, cell in by_cell(rows).items()}
    for model, batch in dict.fromkeys((key[0], key[1]) for key in cells):
        texts = []
        for target, threads in groups:
            cell = cells.get((model, batch, target, threads), {})
            texts += [speedup_text(cell.get(variant)) for variant in ("pet-taso", "pet")]
        lines.append(f"| {model} | {batch} | " + " | ".join(texts) + " |")
    return lines + [""]


def speedup_text(row: Optional[dict]) -> str:
    if not row:
        return ""
    speedup = number(row.get("speedup_vs_input"))
    return (f"{speedup:.3f}x" if speedup else "n/a") + ("" if row.get("check") == "ok" else " *")


def write_markdown(rows: List[dict], header: List[str], path: Path) -> None:
    """harness.md: the header, one section per target and thread count, the GPU's section, pet's runs, the GPU
    estimate, the flags."""
    lines = list(header)
    groups: Dict[Tuple[str, int], List[dict]] = {}
    for row in rows:
        groups.setdefault((row["target"], int(row["threads"])), []).append(row)
    lines += overview_table(groups)
    for (target, threads), group in groups.items():
        lines += gpu_section(group) if target == gpu_results.GPU_TARGET else cpu_section(target, threads, group)
    lines += ["## pet's runs", "", "Optimization time is the sum of pet-opt's reported stage times; transformations "
              "are those of the model pet wrote (none when it kept the input).", ""]
    lines += pet_runs_table(rows) + [""]
    lines += gpu_table(rows)
    flags = flagged_lines(rows)
    lines += ["## Flags", ""] + (flags or ["None: every variant ran and matched the input model's outputs."]) + [""]
    path.write_text("\n".join(lines))
