"""Runs pet-opt for one model, mode and target, and reads what the harness reports from its JSON report."""
import json
import re
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional

PET_OPT_TIMEOUT_S = 3600  # a backstop far past pet-opt's own --time-limit; a hang is a flagged cell


def transformation_family(kind: str, name: str) -> str:
    """A transformation's family: a mutant's template family, or a rule's left side without its numbers.

    The rule library names rules `<left ops>-to-<right ops>-<hash>`, e.g. conv-conv-concat-1-to-...:
    its family is the left side's op names (conv-conv-concat).
    """
    if kind != "rule":
        return f"{kind}:{name}"
    left = name.split("-to-")[0] if "-to-" in name else name
    tokens = [t for t in left.split("-") if t and not t.isdigit()]
    return "rule:" + ("-".join(tokens) if tokens else name)


def count_by(items: List[str]) -> str:
    """'a=2;b=1': counts, most frequent first, ties by name (deterministic)."""
    counts = Counter(items)
    return ";".join(f"{k}={v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def summarize_report(report: dict) -> Dict[str, object]:
    """The report's figures the harness tabulates."""
    steps = report.get("transformations", [])
    selection = report.get("target", {}).get("selection", {})
    totals = report.get("totals", {})
    return {
        "opt_seconds": round(sum(report.get("seconds", {}).values()), 2),
        "transformations": len(steps),
        "by_family": count_by([transformation_family(s.get("kind", ""), s.get("name", "")) for s in steps]),
        "by_evidence": count_by([s.get("evidence_kind", "") for s in steps]),
        "chosen": selection.get("chosen", ""),
        "stop_reason": report.get("search", {}).get("stop_reason", ""),
        "cost_original_us": totals.get("cost_original_us"),
        "cost_optimized_us": totals.get("cost_optimized_us"),
    }


def last_error_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if re.search(r"error|failed", line, re.IGNORECASE)]
    return ((errors or lines or ["no output"])[-1])[:200]


def run_pet_opt(pet_opt: str, model: Path, output: Path, target: str, mode: str, extra: List[str],
                threads: Optional[int] = None) -> Dict[str, object]:
    """One pet-opt run writing `output` and its report beside it; {'status': 'ok', ...figures} or the failure."""
    report_path = output.with_suffix(".json")
    command = [pet_opt, str(model), "-o", str(output), "--report", str(report_path), "--target", target,
               "--mode", mode, "--report-times"]
    if threads is not None:
        command += ["--threads", str(threads)]
    command += extra
    start = time.monotonic()
    try:
        finished = subprocess.run(command, capture_output=True, text=True, timeout=PET_OPT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"status": f"failed: pet-opt ran past {PET_OPT_TIMEOUT_S} s", "wall_seconds": PET_OPT_TIMEOUT_S}
    except OSError as error:  # missing, not executable, or being relinked by a build: a flagged cell, not a crash
        return {"status": f"failed: cannot run {pet_opt}: {error.strerror or error}", "wall_seconds": 0}
    wall = time.monotonic() - start
    output.with_suffix(".log").write_text(" ".join(command) + "\n" + finished.stdout + finished.stderr)
    if finished.returncode != 0 or not report_path.exists():
        return {"status": f"failed: pet-opt exit {finished.returncode}: {last_error_line(finished.stderr + finished.stdout)}",
                "wall_seconds": wall}
    return dict(summarize_report(json.loads(report_path.read_text())), status="ok", wall_seconds=round(wall, 2))
