"""The harness's charts with matplotlib: speedup per model and variant, and pet's optimization time per model and mode."""
from pathlib import Path
from typing import Dict, List, Tuple

from harnesslib.tables import number, ordered_variants
from harnesslib.variants import INPUT, label_of, mode_of


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def grouped_bars(plt, groups: List[str], series: Dict[str, List[float]], ylabel: str, title: str, path: Path,
                 baseline: float = None) -> None:
    figure, axes = plt.subplots(figsize=(max(5.0, 0.45 * len(groups) * max(1, len(series))) + 3.0, 4.5))
    width = 0.8 / max(1, len(series))
    for index, (name, values) in enumerate(series.items()):
        positions = [g + (index - (len(series) - 1) / 2) * width for g in range(len(groups))]
        axes.bar(positions, values, width, label=name)
    if baseline is not None:
        axes.axhline(baseline, color="black", linewidth=0.8)
    axes.set_xticks(range(len(groups)))
    axes.set_xticklabels(groups, rotation=30, ha="right")
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def by_target(rows: List[dict]) -> Dict[Tuple[str, int], List[dict]]:
    groups: Dict[Tuple[str, int], List[dict]] = {}
    for row in rows:
        groups.setdefault((row["target"], int(row["threads"])), []).append(row)
    return groups


def models_of(rows: List[dict]) -> List[str]:
    return list(dict.fromkeys(f"{r['model']} b{r['batch']}" for r in rows))


def values(rows: List[dict], variant: str, models: List[str], column: str) -> List[float]:
    found = {f"{r['model']} b{r['batch']}": r for r in rows if r["variant"] == variant}
    result = []
    for model in models:
        row = found.get(model)
        ok = row is not None and (column != "speedup_vs_input" or row.get("check") == "ok")
        result.append((number(row.get(column)) or 0.0) if ok else 0.0)
    return result


def write_charts(rows: List[dict], out: Path) -> List[Path]:
    """speedup_<target>_t<N>.png and opt_time_<target>_t<N>.png per target and thread count; the paths written."""
    plt = pyplot()
    written = []
    for (target, threads), group in by_target(rows).items():
        models = models_of(group)
        variants = [v for v in ordered_variants(group) if v != INPUT]
        path = out / f"speedup_{target}_t{threads}.png"
        grouped_bars(plt, models, {label_of(v): values(group, v, models, "speedup_vs_input") for v in variants},
                     "speedup over the input (median)", f"{target}, {threads} thread(s): speedup over the input model",
                     path, baseline=1.0)
        written.append(path)
        modes = [v for v in variants if mode_of(v)]
        if modes:
            path = out / f"opt_time_{target}_t{threads}.png"
            grouped_bars(plt, models, {label_of(v): values(group, v, models, "opt_seconds") for v in modes},
                         "pet-opt time (s)", f"{target}, {threads} thread(s): pet's optimization time", path)
            written.append(path)
    return written
