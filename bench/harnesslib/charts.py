"""The harness's charts with matplotlib: speedup per model and variant with its spread and the physical floor marked, and pet's optimization time per model and mode."""
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from harnesslib import gpu_results
from harnesslib.tables import column_title, is_gpu, number, ordered_variants
from harnesslib.variants import INPUT, mode_of

FLOOR_LABEL = "physical floor (the speedup that would run the model at the peak)"


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


class Series:
    """One variant's bars: a value per model and, where measured, how far its spread reaches below and above."""

    def __init__(self, models: int):
        self.values, self.below, self.above = [0.0] * models, [0.0] * models, [0.0] * models


def speedup_bounds(row: dict, base: dict) -> Optional[Tuple[float, float, float]]:
    """(speedup, lowest, highest): the ratio of the medians, and of the medians moved apart or together by
    their spreads (the input's ± half-IQR over the variant's ± half-IQR)."""
    if row.get("check") != "ok" or not base:
        return None
    ms, spread = number(row.get("median_ms")), number(row.get("spread_ms")) or 0.0
    base_ms, base_spread = number(base.get("median_ms")), number(base.get("spread_ms")) or 0.0
    if not ms or not base_ms:
        return None
    return base_ms / ms, (base_ms - base_spread) / (ms + spread), (base_ms + base_spread) / max(ms - spread, 1e-9)


def speedup_series(rows: List[dict], variant: str, models: List[str]) -> Series:
    inputs = {f"{r['model']} b{r['batch']}": r for r in rows if r["variant"] == INPUT}
    mine = {f"{r['model']} b{r['batch']}": r for r in rows if r["variant"] == variant}
    series = Series(len(models))
    for index, model in enumerate(models):
        bounds = speedup_bounds(mine[model], inputs.get(model)) if model in mine else None
        if bounds:
            value, low, high = bounds
            series.values[index], series.below[index], series.above[index] = value, value - low, high - value
    return series


def floor_speedups(rows: List[dict], models: List[str]) -> List[Optional[float]]:
    """Per model, the input's median over the floor's time: where a variant at the hardware's peak would stand."""
    found = []
    for model in models:
        base = next((r for r in rows if f"{r['model']} b{r['batch']}" == model and r["variant"] == INPUT), None)
        ms, floor = (number(base.get("median_ms")), number(base.get("floor_ms"))) if base else (None, None)
        found.append(ms / floor if ms and floor else None)
    return found


def mark_floors(axes, floors: List[Optional[float]], top: float) -> None:
    """A dashed line across each model's bars at its floor; an arrow and the figure where it is above the chart."""
    labelled = False
    for group, floor in enumerate(floors):
        if floor is None:
            continue
        label = None if labelled else FLOOR_LABEL
        labelled = True
        if floor <= top:
            axes.hlines(floor, group - 0.45, group + 0.45, colors="black", linestyles="dashed", linewidth=1.2, label=label)
        else:
            axes.plot([group], [top * 0.97], marker="^", color="black", linestyle="none", label=label)
            axes.annotate(f"floor {floor:.1f}x", (group, top * 0.97), textcoords="offset points", xytext=(0, -14),
                          ha="center", fontsize="x-small")


def speedup_chart(plt, groups: List[str], series: Dict[str, Series], floors: List[Optional[float]], title: str,
                  path: Path) -> None:
    figure, axes = plt.subplots(figsize=(max(6.0, 0.45 * len(groups) * max(1, len(series))) + 4.5, 4.5))
    width = 0.8 / max(1, len(series))
    highest = 1.0
    for index, (name, bars) in enumerate(series.items()):
        positions = [g + (index - (len(series) - 1) / 2) * width for g in range(len(groups))]
        axes.bar(positions, bars.values, width, yerr=[bars.below, bars.above], capsize=2, error_kw={"linewidth": 0.8},
                 label=name)
        highest = max([highest] + [v + a for v, a in zip(bars.values, bars.above)])
    floors_drawn = [f for f in floors if f is not None]
    # The axis reaches the floors where that keeps the bars readable (up to 3x the tallest); above, an arrow.
    top = max(highest * 1.25, min(max(floors_drawn, default=0) * 1.1, highest * 3))
    axes.axhline(1.0, color="black", linewidth=0.8)
    mark_floors(axes, floors, top)
    axes.set_ylim(0, top)
    finish(plt, figure, axes, groups, "speedup over the input (median, ± spreads)", title, path)


def time_chart(plt, groups: List[str], series: Dict[str, List[float]], title: str, path: Path) -> None:
    figure, axes = plt.subplots(figsize=(max(6.0, 0.45 * len(groups) * max(1, len(series))) + 4.5, 4.5))
    width = 0.8 / max(1, len(series))
    for index, (name, values) in enumerate(series.items()):
        axes.bar([g + (index - (len(series) - 1) / 2) * width for g in range(len(groups))], values, width, label=name)
    finish(plt, figure, axes, groups, "pet-opt time (s)", title, path)


def finish(plt, figure, axes, groups: List[str], ylabel: str, title: str, path: Path) -> None:
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


def opt_seconds(rows: List[dict], variant: str, models: List[str]) -> List[float]:
    found = {f"{r['model']} b{r['batch']}": number(r.get("opt_seconds")) or 0.0 for r in rows if r["variant"] == variant}
    return [found.get(model, 0.0) for model in models]


def chart_names(target: str, threads: int, group: List[dict]) -> Tuple[str, str]:
    """(file stem, title prefix): per CPU target and thread count, or the GPU with its card."""
    if target == gpu_results.GPU_TARGET:
        return "gpu", f"GPU {group[0].get('card', '')}"
    return f"{target}_t{threads}", f"{target}, {threads} thread(s)"


def write_charts(rows: List[dict], out: Path) -> List[Path]:
    """speedup_<target>_t<N>.png (speedup_gpu.png for the GPU) and opt_time_<target>_t<N>.png; the paths written."""
    plt = pyplot()
    written = []
    for (target, threads), group in by_target(rows).items():
        models, (stem, title) = models_of(group), chart_names(target, threads, group)
        variants = [v for v in ordered_variants(group) if v != INPUT]
        gpu = is_gpu(group[0])
        path = out / f"speedup_{stem}.png"
        speedup_chart(plt, models, {column_title(v, gpu): speedup_series(group, v, models) for v in variants},
                      floor_speedups(group, models), f"{title}: speedup over the input model", path)
        written.append(path)
        times = {column_title(v, gpu): opt_seconds(group, v, models) for v in variants if mode_of(v)}
        if any(any(values) for values in times.values()):
            path = out / f"opt_time_{stem}.png"
            time_chart(plt, models, times, f"{title}: pet's optimization time", path)
            written.append(path)
    return written
