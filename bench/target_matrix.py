#!/usr/bin/env python3
"""Runs pet-opt on a matrix of models x batches x measured targets x thread counts and tabulates each run.

Each cell is one `pet-opt --beam 8 --target T --threads N` run on build/models/<model>_b<batch>/model.onnx
with its written check; the table gives the measured input and written latencies (median +- half the
IQR of pet-opt's interleaved selection), what was chosen, the best candidate's measured ratio, the
calibration error, the search and total times, the kernel groups timed, the peak memory and the check.
Results go to OUT/matrix.csv (one row per cell; a cell already there is skipped, so a stopped run
resumes) and OUT/matrix.md. Nothing here is asserted: it reports.

Usage: python3 bench/target_matrix.py --models resnet18,csrnet_backend --batches 1 16 \
           --targets ort-cpu openvino-cpu --threads 1 2 [--out build/matrix] [--profile-db FILE]
"""
import argparse
import csv
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

COLUMNS = ["model", "batch", "target", "threads", "exit", "input_ms", "input_spread_ms", "written_ms",
           "written_spread_ms", "speedup", "chosen", "best_candidate", "calibration_pct", "search_s", "total_s",
           "groups_measured", "groups_replayed", "measuring_s", "peak_mb", "check", "runtime", "cpu", "transformations",
           "best_candidate_changes", "check_s", "calibration_standalone_pct", "ranking", "ranked_programs",
           "ranking_s", "floor_pct_input", "floor_pct_written"]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", required=True, help="comma-separated model names (folders <model>_b<batch>)")
    parser.add_argument("--batches", type=int, nargs="+", default=[1])
    parser.add_argument("--targets", nargs="+", default=["ort-cpu", "openvino-cpu"])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--models-dir", default="build/models")
    parser.add_argument("--pet-opt", default="build/tools/pet-opt")
    parser.add_argument("--out", default="build/matrix")
    parser.add_argument("--profile-db", default="", help="pet-opt's --profile-db (default: its per-user cache)")
    parser.add_argument("--extra", default="", help="more pet-opt flags, space-separated (e.g. '--select-runs 6')")
    return parser.parse_args()


def peak_mb(stderr_text):
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr_text)
    return round(int(found.group(1)) / 1024) if found else ""


def row_from_report(report, cell, exit_code, total_s, memory_mb):
    target = report.get("target", {})
    selection = target.get("selection", {})
    candidates = selection.get("candidates", [])
    by_label = {c["label"]: c for c in candidates}
    row = dict(cell, exit=exit_code, total_s=round(total_s, 1), peak_mb=memory_mb,
               runtime=target.get("runtime", ""), cpu=target.get("cpu", ""))
    if candidates:
        source, chosen = candidates[0], by_label[selection["chosen"]]
        row.update(input_ms=round(source["median_us"] / 1000, 3), input_spread_ms=round(source["spread_us"] / 1000, 3),
                   written_ms=round(chosen["median_us"] / 1000, 3),
                   written_spread_ms=round(chosen["spread_us"] / 1000, 3),
                   speedup=round(source["median_us"] / chosen["median_us"], 3), chosen=selection["chosen"])
        others = [c for c in candidates[1:] if c["median_us"] > 0]
        if others:
            best = min(others, key=lambda c: c["median_us"])
            row["best_candidate"] = f'{best["label"]} {source["median_us"] / best["median_us"]:.3f}x'
            row["best_candidate_changes"] = "; ".join(best.get("changes", []))
        cleaned = by_label.get("cleaned")
        if cleaned and cleaned["median_us"] > 0:
            row["calibration_pct"] = round(100 * (cleaned["predicted_us"] / cleaned["median_us"] - 1), 1)
            if target.get("standalone_predicted_us"):
                row["calibration_standalone_pct"] = round(
                    100 * (target["standalone_predicted_us"] / cleaned["median_us"] - 1), 1)
    costs = target.get("kernel_costs", {})
    row.update(groups_measured=costs.get("measured", ""), groups_replayed=costs.get("replayed", ""),
               measuring_s=round(costs.get("measuring_seconds", 0), 1),
               search_s=round(report.get("search", {}).get("seconds", 0), 1),
               transformations="; ".join(t.get("name", "") for t in report.get("transformations", [])))
    floor = target.get("physical_floor", {})
    if floor:  # how close the input and the written model run to the CPU's arithmetic peak
        row.update(floor_pct_input=round(100 * floor["input_fraction"], 1),
                   floor_pct_written=round(100 * floor["written_fraction"], 1))
    ranking = report.get("search", {}).get("measured_ranking", {})
    row.update(ranking="on" if ranking.get("on") else "off", ranked_programs=ranking.get("timed", ""),
               ranking_s=round(ranking.get("seconds", 0), 1))
    stage_seconds = report.get("seconds", {})
    row["check_s"] = round(stage_seconds.get("differential", 0) + stage_seconds.get("written-check", 0), 1)
    written = report.get("written_check", {})
    row["check"] = "ok" if written.get("passed") else "FAILED"
    return row


def run_cell(args, cell, out):
    folder = Path(args.models_dir) / f'{cell["model"]}_b{cell["batch"]}'
    name = f'{cell["model"]}_b{cell["batch"]}_{cell["target"]}_t{cell["threads"]}'
    command = ["/usr/bin/time", "-v", args.pet_opt, "--beam", "8", "--target", cell["target"], "--threads",
               str(cell["threads"]), str(folder / "model.onnx"), "-o", str(out / f"{name}.onnx"), "--report",
               str(out / f"{name}.json"), "--report-times"]
    if args.profile_db:
        command += ["--profile-db", args.profile_db]
    command += args.extra.split()
    start = time.monotonic()
    finished = subprocess.run(command, capture_output=True, text=True)
    total_s = time.monotonic() - start
    (out / f"{name}.log").write_text(finished.stdout + finished.stderr)
    report_path = out / f"{name}.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    return row_from_report(report, cell, finished.returncode, total_s, peak_mb(finished.stderr))


def load_rows(path):
    if not path.exists():
        return []
    with path.open() as handle:
        return list(csv.DictReader(handle))


def key(row):
    return (row["model"], str(row["batch"]), row["target"], str(row["threads"]))


def write_markdown(rows, path):
    lines = [f"# pet-opt on measured targets ({time.strftime('%Y-%m-%d')}, {platform.node()})", "",
             "Medians of pet-opt's interleaved end-to-end selection runs; +- is half the interquartile range.", "",
             "| model | batch | target | threads | input ms | written ms | speedup | chosen | best candidate | "
             "calibration (stand-alone) | ranking (programs, s) | search s | total s | groups (s) | peak MB | "
             "% of floor (input, written) | check |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in sorted(rows, key=lambda r: (r["model"], int(r["batch"]), r["target"], int(r["threads"]))):
        lines.append(
            f'| {row["model"]} | {row["batch"]} | {row["target"]} | {row["threads"]} | '
            f'{row["input_ms"]} +- {row["input_spread_ms"]} | {row["written_ms"]} +- {row["written_spread_ms"]} | '
            f'{row["speedup"]}x | {row["chosen"]} | {row["best_candidate"]} | {row["calibration_pct"]}% '
            f'({row.get("calibration_standalone_pct", "")}%) | {row.get("ranking", "")} '
            f'({row.get("ranked_programs", "")}, {row.get("ranking_s", "")}) | '
            f'{row["search_s"]} | {row["total_s"]} | {row["groups_measured"]} ({row["measuring_s"]}) | '
            f'{row["peak_mb"]} | {row.get("floor_pct_input", "")}, {row.get("floor_pct_written", "")} | '
            f'{row["check"] if str(row["exit"]) == "0" else "exit " + str(row["exit"])} |')
    path.write_text("\n".join(lines) + "\n")


def main():
    args = parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / "matrix.csv"
    rows = load_rows(csv_path)
    done = {key(row) for row in rows}
    for model in args.models.split(","):
        for batch in args.batches:
            if not (Path(args.models_dir) / f"{model}_b{batch}" / "model.onnx").exists():
                print(f"target_matrix: no {model}_b{batch} in {args.models_dir}; skipped", file=sys.stderr)
                continue
            for target in args.targets:
                for threads in args.threads:
                    cell = {"model": model, "batch": batch, "target": target, "threads": threads}
                    if key({k: str(v) for k, v in cell.items()}) in done:
                        continue
                    row = run_cell(args, cell, out)
                    rows.append({c: row.get(c, "") for c in COLUMNS})
                    with csv_path.open("w", newline="") as handle:
                        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
                        writer.writeheader()
                        writer.writerows(rows)
                    write_markdown(rows, out / "matrix.md")
                    print(f'{model} b{batch} {target} t{threads}: exit {row["exit"]}, {row.get("speedup", "?")}x '
                          f'({row.get("chosen", "?")}), {row["total_s"]} s, check {row.get("check", "?")}', flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
