"""The GPU end-to-end results file (bench/gpu/e2e.py writes it, the harness reads it): its format, checked once, and its harness rows.

The file is one JSON object:
  format      "pet-gpu-e2e/1"
  fixture     true only in test fixtures, whose figures are invented (`note` says so)
  card        the GPU's name as CUDA reports it, e.g. "NVIDIA H100 80GB HBM3"
  versions    {"driver", "torch", "cuda", "cudnn", "pet_gpu"}: strings as loaded on the machine
  math        "tf32": TF32 for matmuls and convolutions on both sides (pet-gpu --tf32, torch allow_tf32)
  clocks      {"before", "after"}: nvidia-smi's clocks, power and temperature lines, read, never set
  ceiling     {"tf32_gemm_tflops", "how"}: the measured cuBLAS TF32 GEMM rate, the floor's rate
  method      {"rounds", "runs", "warmup", "compile_budget_s", "order", "written" (where the written models came from)}
  results     one entry per model, batch and variant (VARIANTS): {"model", "batch", "variant", "status"
              (STATUSES), "reason" (unless ok), "median_us", "spread_us", "runs", "rounds_us" (when ok)}
              The TASO-only and PET entries may add what pet wrote (its pet-opt report): "transformations"
              (count), "by_family" ("family=count;..."), "corrected_mutant" (a corrected partial mutant is in
              the program), "chosen_on" ("card": pet-opt --live in the session; "kit": make-kit.sh --written),
              and for a measured program with one, "correction_steps" and "correction_share" (the
              correction kernels' fraction of the per-step time, pet-gpu time --per-step) or
              "correction_share_error".
A variant's median is the median of its per-round medians; its spread is the larger of half the
interquartile range of those round medians and the median of the rounds' own half-IQRs.
Several runs on one card (the session's e2e and compile stages) merge into one document whose rows
of each model and batch all come from one run, the one that measured most of its variants, so every
ratio stays one of figures timed side by side; such a document lists its runs under "runs" and each
entry names its run ("run": the index).
"""
import json
from pathlib import Path
from typing import Dict, List, Optional

FORMAT = "pet-gpu-e2e/1"
GPU_TARGET = "gpu"
GPU_THREADS = 0  # the CSV's threads column on GPU rows: not applicable

# (name, label): the table order of the GPU columns; "input" is the speedups' base.
VARIANTS = [
    ("input", "input (pet-gpu)"),
    ("pet-taso", "TASO-only (pet-gpu)"),
    ("pet", "PET (pet-gpu)"),
    ("torch-eager", "PyTorch eager"),
    ("torch-cuda-graph", "PyTorch CUDA graph"),
    ("torch-cuda-graph-channels-last", "PyTorch CUDA graph, channels-last"),
    ("torch-compile", "torch.compile"),
]
VARIANT_LABELS: Dict[str, str] = dict(VARIANTS)
PYTORCH_VARIANTS = ["torch-eager", "torch-cuda-graph", "torch-cuda-graph-channels-last", "torch-compile"]
STATUSES = ["ok", "failed", "skipped", "missing"]
REQUIRED_KEYS = ["format", "card", "versions", "math", "clocks", "ceiling", "method", "results"]


class GpuResultsError(Exception):
    """The file is not a GPU results file of this format: what is wrong and where."""


def check_entry(entry: dict, index: int) -> None:
    where = f"results[{index}]"
    for key in ("model", "batch", "variant", "status"):
        if key not in entry:
            raise GpuResultsError(f"{where} has no '{key}'")
    if entry["variant"] not in VARIANT_LABELS:
        raise GpuResultsError(f"{where}: variant '{entry['variant']}' is not one of {', '.join(VARIANT_LABELS)}")
    if entry["status"] not in STATUSES:
        raise GpuResultsError(f"{where}: status '{entry['status']}' is not one of {', '.join(STATUSES)}")
    if entry["status"] == "ok":
        for key in ("median_us", "spread_us", "runs"):
            if not isinstance(entry.get(key), (int, float)) or entry[key] < 0:
                raise GpuResultsError(f"{where}: an ok result needs a non-negative number '{key}'")
    elif not entry.get("reason"):
        raise GpuResultsError(f"{where}: a result that is not ok needs its 'reason'")


def check(document: dict) -> dict:
    """The document itself when it is of FORMAT with every required key and valid results."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise GpuResultsError(f"not a {FORMAT} file (its format is {document.get('format') if isinstance(document, dict) else None!r})")
    missing = [key for key in REQUIRED_KEYS if key not in document]
    if missing:
        raise GpuResultsError(f"no {', '.join(missing)}")
    for index, entry in enumerate(document["results"]):
        check_entry(entry, index)
    return document


def merged(documents: List[dict]) -> dict:
    """One document of several runs on one card: each model and batch from the run that measured most of its
    variants (the later run on a tie), its entries marked with the run's index; the first run's header."""
    if len(documents) == 1:
        return documents[0]
    cards = {document["card"] for document in documents}
    if len(cards) > 1:
        raise GpuResultsError(f"the runs were on different cards ({', '.join(sorted(cards))}); merge one card's runs")
    counts = [measured_counts(document) for document in documents]
    chosen: Dict[tuple, int] = {}
    order: List[tuple] = []
    for index, document_counts in enumerate(counts):
        for key, count in document_counts.items():
            if key not in chosen:
                order.append(key)
            if key not in chosen or count >= counts[chosen[key]][key]:
                chosen[key] = index
    results = [dict(entry, run=chosen[key]) for key in order for entry in documents[chosen[key]]["results"]
               if (entry["model"], int(entry["batch"])) == key]
    runs = [{"started": document.get("started", ""), "method": document["method"]} for document in documents]
    return dict(documents[0], results=results, runs=runs)


def measured_counts(document: dict) -> Dict[tuple, int]:
    """Per (model, batch), how many of its variants were measured, in the file's order."""
    counts: Dict[tuple, int] = {}
    for entry in document["results"]:
        key = (entry["model"], int(entry["batch"]))
        counts[key] = counts.get(key, 0) + (entry["status"] == "ok")
    return counts


def load_all(paths: List[Path]) -> dict:
    """The checked files merged (merged()); GpuResultsError naming the file that is unreadable or invalid."""
    return merged([load(path) for path in paths])


def load(path: Path) -> dict:
    """The checked results file; GpuResultsError naming the file when it is unreadable or invalid."""
    try:
        return check(json.loads(Path(path).read_text()))
    except (OSError, json.JSONDecodeError) as error:
        raise GpuResultsError(f"{path}: {error}") from error
    except GpuResultsError as error:
        raise GpuResultsError(f"{path}: {error}") from error


def card_text(document: dict) -> str:
    """'NVIDIA H100 80GB HBM3 (driver ..., torch ..., CUDA ..., cuDNN ...), TF32', with FIXTURE when it is one."""
    versions = document["versions"]
    text = (f"{document['card']} (driver {versions.get('driver', '?')}, torch {versions.get('torch', '?')}, CUDA "
            f"{versions.get('cuda', '?')}, cuDNN {versions.get('cudnn', '?')}), {document['math'].upper()} on both sides")
    return ("FIXTURE, invented figures: " + text) if document.get("fixture") else text


def floor_ms(flops: Optional[float], document: dict) -> Optional[float]:
    """The model's Conv/MatMul/Gemm FLOPs at the card's measured TF32 GEMM rate, in ms."""
    rate = document["ceiling"].get("tf32_gemm_tflops")
    return flops / (rate * 1e12) * 1000 if flops and rate else None


def significant(value: float) -> float:
    """Four significant digits: a small model's floor on a large card is far below a microsecond."""
    return float(f"{value:.4g}")


def entry_row(entry: dict, document: dict) -> dict:
    """One harness row (tables.COLUMNS) of one result entry; times in ms like the CPU rows."""
    row = {"model": entry["model"], "batch": int(entry["batch"]), "target": GPU_TARGET, "threads": GPU_THREADS,
           "variant": entry["variant"], "label": VARIANT_LABELS[entry["variant"]], "card": document["card"],
           "repeats": document["method"].get("rounds", "")}
    for key in ("transformations", "by_family", "corrected_mutant", "correction_share", "chosen_on"):
        if key in entry:
            row[key] = entry[key]
    if entry["status"] == "ok":
        row.update(check="ok", median_ms=round(entry["median_us"] / 1000, 5), spread_ms=round(entry["spread_us"] / 1000, 5))
    else:
        row["check"] = f"{entry['status']}: {entry['reason']}"
    return row


def rows(document: dict, flops: Dict[tuple, float]) -> List[dict]:
    """The harness rows of every result, in the file's order, with the floor where the FLOPs of (model, batch) are known."""
    found = [entry_row(entry, document) for entry in document["results"]]
    for row in found:
        floor = floor_ms(flops.get((row["model"], row["batch"])), document)
        if floor:
            row["flops"], row["floor_ms"] = flops[(row["model"], row["batch"])], significant(floor)
            ms = row.get("median_ms")
            row["floor_fraction"] = significant(floor / ms) if ms else ""
    return found
