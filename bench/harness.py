#!/usr/bin/env python3
"""The harness: measures, side by side in one run, the input model, the tools users run today and pet's modes, per runtime and thread count.

For each model x batch it makes every variant's file once (onnxsim, onnxslim, onnxoptimizer, ONNX
Runtime's offline ENABLE_ALL; pet's analytic H100 estimate per mode), then per target x threads runs
pet-opt in each mode for that target and times all variants of the cell interleaved in one process of
the target runtime, checking each one's outputs against the input model's. Writes OUT/harness.csv,
OUT/harness.md and OUT/speedup_*.png, OUT/opt_time_*.png; --gpu-results adds the GPU's measured rows
(bench/gpu/e2e.py). The matrix runs in parts (--preset b1|b16, --models M; --plan lists them with
their estimated durations) that --merge joins. Usage: bash scripts/harness.sh --help
"""
import argparse
import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harnesslib import charts, environment, gpu_results, presets, tables  # noqa: E402
from harnesslib.flops import count_flops  # noqa: E402
from harnesslib.merge import MergeError, merged_rows  # noqa: E402
from harnesslib.peers import NOT_APPLICABLE, NOT_INSTALLED  # noqa: E402
from harnesslib.petopt import run_pet_opt  # noqa: E402
from harnesslib.variants import INPUT, PEERS, PET_MODES, TARGETS, pet_variant, variants_for  # noqa: E402

REPOSITORY = Path(__file__).resolve().parent.parent
LIBRARY = Path(__file__).resolve().parent / "harnesslib"
MEASURE_TIMEOUT_S = 4 * 3600
PEER_TIMEOUT_S = 1800


class HarnessError(Exception):
    """A user error: what is wrong, where, and how to fix it (exit status 2)."""


def zoo_names(dictionary: str) -> List[str]:
    """The model names of models/zoo.py's MODELS or EXTRA_MODELS, read without importing torch."""
    tree = ast.parse((REPOSITORY / "models" / "zoo.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == dictionary:
            return [call.args[0].value for call in ast.walk(node.value)
                    if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "ModelSpec"]
    raise HarnessError(f"models/zoo.py has no {dictionary}")


def all_models() -> List[str]:
    """`--models all`: the nine evaluation models, then the extra torchvision CNNs and the vision transformer."""
    return zoo_names("MODELS") + zoo_names("EXTRA_MODELS")


def split_list(text: str, flag: str, known: Optional[List[str]] = None) -> List[str]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise HarnessError(f"{flag} is empty; give a comma-separated list")
    unknown = [item for item in items if known is not None and item not in known]
    if unknown:
        raise HarnessError(f"{flag}: unknown {', '.join(unknown)}; known: {', '.join(known)}")
    return list(dict.fromkeys(items))


def select_models(text: str, models_dir: str, batches: List[int]) -> List[str]:
    """`all`, or names from models/zoo.py or of folders already exported to the models folder (a test's model)."""
    known = all_models()
    if text == "all":
        return known
    exported = [name for name in split_list(text, "--models")
                if all((Path(models_dir) / f"{name}_b{b}" / "model.onnx").is_file() for b in batches)]
    return split_list(text, "--models", known + exported)


def positive_ints(text: str, flag: str) -> List[int]:
    values = []
    for item in split_list(text, flag):
        if not item.isdigit() or int(item) < 1:
            raise HarnessError(f"{flag}: '{item}' is not a positive integer")
        values.append(int(item))
    return values


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="harness", description=__doc__.split("\n")[0])
    p.add_argument("--models", default="all", help="comma-separated model names, or all (default: all)")
    p.add_argument("--batches", default="1,16", help="batch sizes (default: 1,16)")
    p.add_argument("--targets", default="ort-cpu,openvino-cpu", help="runtimes (default: ort-cpu,openvino-cpu)")
    p.add_argument("--threads", default="1,2", help="runtime thread counts (default: 1,2)")
    p.add_argument("--modes", default=",".join(PET_MODES), help=f"pet's modes (default: {','.join(PET_MODES)})")
    p.add_argument("--peers", default=",".join(PEERS), help=f"peer tools, or none (default: {','.join(PEERS)})")
    p.add_argument("--repeats", type=int, default=10, help="timed interleaved rounds per cell (default: 10)")
    p.add_argument("--warmup", type=int, default=2, help="untimed rounds before them (default: 2)")
    p.add_argument("--seed", type=int, default=2026, help="seed of the random inputs (default: 2026)")
    p.add_argument("--out", default=str(REPOSITORY / "build" / "harness"), help="output folder (default: build/harness)")
    p.add_argument("--models-dir", default=str(REPOSITORY / "build" / "models"), help="exported models (default: build/models)")
    p.add_argument("--pet-opt", default=str(REPOSITORY / "build" / "tools" / "pet-opt"), help="pet-opt binary")
    p.add_argument("--profile-db", default="", help="pet-opt's --profile-db (default: pet-opt's own default)")
    p.add_argument("--replay", action="store_true", help="pass --replay to pet-opt (reads the profile DB only)")
    p.add_argument("--time-limit", type=float, default=None, help="pet-opt's --time-limit in seconds")
    p.add_argument("--pet-args", default="", help="more pet-opt flags, space-separated")
    p.add_argument("--gpu-estimate", action=argparse.BooleanOptionalAction, default=True,
                   help="also run pet-opt --target h100 per model, batch and mode for the analytic estimate (default: on)")
    p.add_argument("--openvino-extension", default="", help="pet's OpenVINO extension (default: next to pet-opt's build)")
    p.add_argument("--peak-size", type=int, default=2048, help="side of the sgemm that measures each runtime's best rate")
    p.add_argument("--cpu-peak", default=str(REPOSITORY / "build" / "bench" / "pet_cpu_peak"),
                   help="pet_cpu_peak binary: the CPU's arithmetic peak, the physical floor (default: build/bench/)")
    p.add_argument("--export", action="store_true",
                   help="export missing models with Debian's torch (/usr/bin/python3 models/export_models.py)")
    p.add_argument("--resume", action="store_true", help="keep the cells already in OUT/harness.csv and skip them")
    p.add_argument("--preset", choices=sorted(presets.PRESETS), default="",
                   help="one part of the evaluation: batch 1 or 16 with every target, thread count, mode and peer; "
                   "give --models to run one model (the flags given override the preset's)")
    p.add_argument("--plan", action="store_true",
                   help="print the selection's parts (one model each, or one target and thread count when a model "
                   "would pass 90 minutes) with their durations estimated from bench/results/*/matrix.csv; run nothing")
    p.add_argument("--merge", nargs="+", default=[], metavar="DIR",
                   help="join these harness runs' folders (parts) into one table in --out; measure nothing")
    p.add_argument("--gpu-results", default="", metavar="FILE[,FILE...]",
                   help="bench/gpu/e2e.py's results file: adds the GPU's measured columns and charts; several runs on "
                   "one card merge, each model and batch taken whole from the run that measured most of its variants")
    return p


def with_preset(argv: List[str]) -> argparse.Namespace:
    """The flags, the preset's values standing in for the defaults of the flags not given."""
    p = parser()
    chosen = p.parse_known_args(argv)[0].preset
    if chosen:
        p.set_defaults(**presets.PRESETS[chosen])
    return p.parse_args(argv)


def parse_args(argv: List[str]) -> argparse.Namespace:
    args = with_preset(argv)
    args.batches = positive_ints(args.batches, "--batches")
    args.models = select_models(args.models, args.models_dir, args.batches)
    args.targets = split_list(args.targets, "--targets", TARGETS)
    args.threads = positive_ints(args.threads, "--threads")
    args.modes = split_list(args.modes, "--modes", PET_MODES)
    args.peers = [] if args.peers == "none" else split_list(args.peers, "--peers", PEERS)
    if args.repeats < 1 or args.warmup < 0:
        raise HarnessError("--repeats must be at least 1 and --warmup at least 0")
    args.pet_extra = (["--profile-db", args.profile_db] if args.profile_db else []) + (["--replay"] if args.replay else [])
    args.pet_extra += (["--time-limit", f"{args.time_limit:g}"] if args.time_limit is not None else []) + args.pet_args.split()
    try:
        files = [Path(f) for f in args.gpu_results.split(",") if f]
        args.gpu_document = gpu_results.load_all(files) if files else None
    except gpu_results.GpuResultsError as error:
        raise HarnessError(f"--gpu-results {error}") from error
    if not args.openvino_extension:
        args.openvino_extension = str(Path(args.pet_opt).resolve().parent.parent / "kernels" / "openvino_extension" /
                                      "libpet_openvino_extension.so")
    return args


def model_path(args, model: str, batch: int) -> Path:
    return Path(args.models_dir) / f"{model}_b{batch}" / "model.onnx"


def export_missing(args) -> None:
    """Exports the models and batches the run needs and the models folder lacks (the export script skips the rest)."""
    for batch in args.batches:
        missing = [m for m in args.models if not model_path(args, m, batch).is_file()]
        if missing:
            command = ["/usr/bin/python3", str(REPOSITORY / "models" / "export_models.py"), "--out", args.models_dir,
                       "--models", ",".join(missing), "--batch", str(batch)]
            print("harness: exporting: " + " ".join(command), flush=True)
            if subprocess.call(command) != 0:
                raise HarnessError(f"exporting {', '.join(missing)} at batch {batch} failed (see above)")


def check_setup(args) -> None:
    """Refuses a missing pet-opt or model before any work, saying how to make it."""
    if not Path(args.pet_opt).is_file():
        raise HarnessError(f"no pet-opt at {args.pet_opt}; build it with `cmake --build build --target pet-opt` "
                           "(scripts/harness.sh does), or name one with --pet-opt")
    if args.export:
        export_missing(args)
    missing = [f"{m} batch {b}" for m in args.models for b in args.batches if not model_path(args, m, b).is_file()]
    if missing:
        raise HarnessError(f"no exported model for {', '.join(missing)} in {args.models_dir}; export with "
                           f"`/usr/bin/python3 models/export_models.py --out {args.models_dir} --models "
                           f"{','.join(args.models)} --batch {' '.join(map(str, args.batches))}`, or pass --export "
                           "(scripts/harness.sh does)")


def run_json_process(script: str, request: dict, folder: Path, name: str) -> dict:
    """Runs harnesslib/<script> on a request file; its result, or {'error': why} when it failed."""
    request_path, result_path = folder / f"{name}.request.json", folder / f"{name}.result.json"
    request_path.write_text(json.dumps(request, indent=1))
    result_path.unlink(missing_ok=True)
    try:
        finished = subprocess.run([sys.executable, str(LIBRARY / script), str(request_path), str(result_path)],
                                  capture_output=True, text=True, timeout=MEASURE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"error": f"measurement ran past {MEASURE_TIMEOUT_S} s"}
    if finished.returncode != 0 or not result_path.exists():
        lines = [line for line in (finished.stderr + finished.stdout).splitlines() if line.strip()] or ["no output"]
        return {"error": f"measurement process exit {finished.returncode}: {lines[-1][:200]}"}
    return json.loads(result_path.read_text())


def hardware_peak(args, threads: int) -> dict:
    """The CPU's arithmetic peak at `threads` threads (pet_cpu_peak: float32 FMA and bf16 dot
    products), or {} with a printed reason when the binary is missing or fails."""
    try:
        return environment.cpu_peak(args.cpu_peak, threads)
    except environment.CpuPeakError as error:
        print(f"harness: {error}; the floor falls back to each runtime's best kernel", flush=True)
        return {}


def floor_rate(target: str, hardware: dict, runtime_peak: dict) -> tuple:
    """(GFLOP/s, what it is) of the physical floor for `target`: the CPU's peak in the precision the
    runtime computes in (OpenVINO in bf16 where the CPU has bf16 units), else the runtime's best kernel."""
    if hardware:
        if target == "openvino-cpu" and hardware.get("bf16_gflops") and environment.openvino_precision() == "bf16":
            return hardware["bf16_gflops"], "bf16 dot-product peak"
        return hardware["fp32_gflops"], "float32 FMA peak"
    return runtime_peak.get("gflops", 0), "the runtime's best kernel"


def measure_peaks(args, out: Path) -> Dict[tuple, dict]:
    """Per (target, threads): the physical floor's rate (`gflops`, the CPU's arithmetic peak in the
    runtime's precision) and the runtime's own best rate as deployed (measure.measure_peak)."""
    peaks = {}
    hardware = {threads: hardware_peak(args, threads) for threads in args.threads}
    for threads, found in hardware.items():
        if found:
            print(f"harness: CPU peak at {threads} thread(s) ({found['isa']}): float32 FMA {found['fp32_gflops']:.1f} "
                  f"GFLOP/s, bf16 dot {found['bf16_gflops'] or 0:.1f} GFLOP/s", flush=True)
    for target in args.targets:
        for threads in args.threads:
            request = {"kind": "peak", "runtime": target, "threads": threads, "size": args.peak_size,
                       "repeats": args.repeats, "seed": args.seed}
            peak = run_json_process("measure.py", request, out, f"peak_{target}_t{threads}")
            if "error" in peak:
                print(f"harness: the best rate of {target} at {threads} threads was not measured: {peak['error']}",
                      flush=True)
                peak = {}
            else:
                print(f"harness: best rate of {target} at {threads} thread(s): {peak['gflops']:.1f} GFLOP/s "
                      f"(MatMul {peak['matmul_gflops']:.1f}, conv {peak['conv_gflops']:.1f})", flush=True)
            gflops, source = floor_rate(target, hardware[threads], peak)
            if gflops:
                peaks[(target, threads)] = dict(peak, runtime_gflops=peak.get("gflops"), gflops=gflops, floor=source)
    return peaks


def make_peer_file(args, tool: str, source: Path, folder: Path) -> dict:
    """{'path': file} or {'status': why there is none}; an existing file is reused with --resume."""
    target = folder / f"{tool}.onnx"
    if args.resume and target.is_file():
        return {"path": str(target)}
    target.unlink(missing_ok=True)
    try:
        finished = subprocess.run([sys.executable, str(LIBRARY / "peers.py"), tool, str(source), str(target)],
                                  capture_output=True, text=True, timeout=PEER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"status": f"failed: {tool} ran past {PEER_TIMEOUT_S} s"}
    if finished.returncode == NOT_INSTALLED:
        return {"status": "not available (not installed)"}
    if finished.returncode == NOT_APPLICABLE:
        return {"status": "not applicable: " + finished.stderr.strip().split(": ", 1)[-1][:200]}
    if finished.returncode != 0 or not target.is_file():
        lines = [line for line in finished.stderr.splitlines() if line.strip()] or ["no output"]
        return {"status": f"failed: {tool} exit {finished.returncode}: {lines[-1][:200]}"}
    return {"path": str(target)}


def gpu_estimates(args, source: Path, folder: Path) -> Dict[str, float]:
    """pet's analytic H100 cost per mode (and of the input, under INPUT); nothing is measured."""
    estimates: Dict[str, float] = {}
    extra = [flag for flag in args.pet_args.split()] + (["--time-limit", f"{args.time_limit:g}"] if args.time_limit else [])
    for mode in args.modes:
        found = run_pet_opt(args.pet_opt, source, folder / f"h100_{mode}.onnx", "h100", mode, extra)
        if found["status"] != "ok":
            print(f"  H100 estimate, mode {mode}: {found['status']}", flush=True)
            continue
        estimates[pet_variant(mode)] = round(found["cost_optimized_us"], 1)
        estimates.setdefault(INPUT, round(found["cost_original_us"], 1))
    return estimates


def run_pet_modes(args, source: Path, folder: Path, target: str, threads: int) -> Dict[str, dict]:
    found = {}
    for mode in args.modes:
        output = folder / f"pet-{mode}_{target}_t{threads}.onnx"
        found[pet_variant(mode)] = run_pet_opt(args.pet_opt, source, output, target, mode, args.pet_extra, threads)
        found[pet_variant(mode)]["path"] = str(output)
        print(f"  pet-opt {target} t{threads} {mode}: {found[pet_variant(mode)]['status']}, "
              f"{found[pet_variant(mode)].get('opt_seconds', '?')} s, chosen {found[pet_variant(mode)].get('chosen', '?')}",
              flush=True)
    return found


def cell_rows(args, cell: tuple, files: Dict[str, dict], measured: dict, facts: dict) -> List[dict]:
    """The CSV rows of one cell, every variant's, whether it was measured or flagged."""
    model, batch, target, threads = cell
    rows = []
    for variant in variants_for(args.peers, args.modes):
        made = files.get(variant.name, {})
        result = measured.get(variant.name, {}) if "error" not in measured else {"check": f"failed: {measured['error']}"}
        row = {"model": model, "batch": batch, "target": target, "threads": threads, "variant": variant.name,
               "label": variant.label, "seed": args.seed, "repeats": args.repeats, "flops": facts["flops"],
               "gpu_estimate_us": facts["gpu"].get(variant.name, "")}
        if made.get("status", "ok") != "ok":
            row["check"] = made["status"]
        else:
            row.update(check=result.get("check", "not measured"), max_abs_error=result.get("max_abs_error", ""),
                       median_ms=rounded(result.get("median_ms")), spread_ms=rounded(result.get("spread_ms")))
        for key in ("opt_seconds", "transformations", "by_evidence", "by_family", "chosen", "stop_reason"):
            row[key] = made.get(key, "")
        rows.append(row)
    tables.speedups(rows)
    add_floor(rows, facts)
    return rows


def rounded(value) -> object:
    return "" if value is None else round(value, 4)


def add_floor(rows: List[dict], facts: dict) -> None:
    peak = facts["peaks"].get((rows[0]["target"], int(rows[0]["threads"]))) if rows else None
    if not peak or not facts["flops"]:
        return
    floor_ms = facts["flops"] / (peak["gflops"] * 1e9) * 1000
    for row in rows:
        row["floor_ms"] = round(floor_ms, 4)
        ms = tables.number(row.get("median_ms"))
        row["floor_fraction"] = round(floor_ms / ms, 4) if ms else ""


def measure_cell(args, cell: tuple, files: Dict[str, dict], folder: Path) -> dict:
    model, batch, target, threads = cell
    variants = [{"name": name, "path": made["path"]} for name, made in files.items()
                if made.get("status", "ok") == "ok" and "path" in made]
    request = {"runtime": target, "threads": threads, "repeats": args.repeats, "warmup": args.warmup,
               "seed": args.seed, "extension": args.openvino_extension, "variants": variants}
    return run_json_process("measure.py", request, folder, f"measure_{target}_t{threads}")


class Run:
    """The rows gathered so far and the files they are written to after every cell."""

    def __init__(self, args, peaks: Dict[tuple, dict], header: Optional[List[str]] = None):
        self.args, self.peaks, self.header = args, peaks, header
        self.out = Path(args.out)
        kept = tables.read_csv(self.out / "harness.csv") if args.resume else []
        self.rows = [r for r in kept if not tables.is_gpu(r)]
        self.done = {tables.cell_key(r) for r in self.rows}

    def save(self, cell: tuple, rows: List[dict]) -> None:
        self.rows = [r for r in self.rows if tables.cell_key(r) != cell] + rows
        self.rows.sort(key=lambda r: order_key(self.args, r))
        everything = self.rows + gpu_rows(self.args, self.rows)
        tables.write_csv(everything, self.out / "harness.csv")
        header = self.header or environment.header_lines(self.args, self.peaks, REPOSITORY)
        tables.write_markdown(everything, header + gpu_header(self.args), self.out / "harness.md")


def model_flops(args, rows: List[dict]) -> Dict[tuple, float]:
    """FLOPs per (model, batch) of the GPU's results: from the CPU rows, else from the exported model when there is one."""
    found = {(r["model"], int(r["batch"])): float(r["flops"]) for r in rows if tables.number(r.get("flops"))}
    for entry in args.gpu_document["results"]:
        key = (entry["model"], int(entry["batch"]))
        if key not in found and model_path(args, *key).is_file():
            found[key] = count_flops(str(model_path(args, *key)))["flops"]
    return found


def gpu_rows(args, rows: List[dict]) -> List[dict]:
    """The rows of --gpu-results (none without it), with their speedups over the input in pet-gpu, floored with
    the FLOPs the CPU rows or the models give."""
    if not args.gpu_document:
        return []
    found = gpu_results.rows(args.gpu_document, model_flops(args, rows))
    for cell in tables.by_cell(found).values():
        tables.speedups(list(cell.values()))
    return found


def gpu_header(args) -> List[str]:
    """The header's lines on the GPU results: the card, its versions, clocks, ceiling and method."""
    if not args.gpu_document:
        return []
    document, method = args.gpu_document, args.gpu_document["method"]
    lines = [f"- GPU ({args.gpu_results}): {gpu_results.card_text(document)}; clocks (read, never set) before "
             f"{document['clocks'].get('before', '?')}, after {document['clocks'].get('after', '?')}; floor at "
             f"{document['ceiling'].get('tf32_gemm_tflops', '?')} TFLOP/s ({document['ceiling'].get('how', '?')}); "
             f"{method.get('rounds')} interleaved rounds of {method.get('runs')} runs after {method.get('warmup')} "
             f"warm-ups, torch.compile budget {method.get('compile_budget_s')} s"]
    if document.get("fixture"):
        lines.append(f"- **The GPU figures are a test fixture's, invented: {document.get('note', '')}**")
    return lines + [""]


def order_key(args, row: dict) -> tuple:
    """Rows in the order of the flags: target, threads, model, batch, then the variants' table order."""
    def index(items, item):
        return items.index(item) if item in items else len(items)
    variants = [v.name for v in variants_for(PEERS, PET_MODES)]
    return (index(args.targets, row["target"]), int(row["threads"]), index(args.models, row["model"]), int(row["batch"]),
            index(variants, row["variant"]))


def run_model(run: Run, model: str, batch: int) -> None:
    args = run.args
    cells = [(model, batch, t, n) for t in args.targets for n in args.threads if (model, batch, t, n) not in run.done]
    if not cells:
        return
    source = model_path(args, model, batch)
    folder = run.out / "files" / f"{model}_b{batch}"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{model} b{batch}:", flush=True)
    facts = {"flops": count_flops(str(source))["flops"], "peaks": run.peaks,
             "gpu": gpu_estimates(args, source, folder) if args.gpu_estimate and args.modes else {}}
    shared = {INPUT: {"path": str(source)}}
    shared.update({tool: make_peer_file(args, tool, source, folder) for tool in args.peers})
    for tool in args.peers:
        print(f"  {tool}: {shared[tool].get('status', 'ok')}", flush=True)
    for cell in cells:
        files = dict(shared, **run_pet_modes(args, source, folder, cell[2], cell[3]))
        rows = cell_rows(args, cell, files, measure_cell(args, cell, files, folder), facts)
        run.save(cell, rows)
        print(f"  {cell[2]} t{cell[3]}: " + ", ".join(f"{r['variant']} {r.get('speedup_vs_input') or '-'}x"
                                                   f"{'' if r.get('check') == 'ok' else ' [' + r['check'] + ']'}"
                                                   for r in rows), flush=True)


def selection_flags(argv: List[str]) -> List[List[str]]:
    """The flags of argv that a part's command repeats, each [flag] or [flag, value]: all but --plan, --preset
    and --models."""
    groups: List[List[str]] = []
    for item in argv:
        if item.startswith("--") or not groups:
            groups.append([item])
        else:
            groups[-1].append(item)
    return [g for g in groups if g[0].split("=")[0] not in ("--plan", "--preset", "--models")]


def print_plan(args, argv: List[str]) -> int:
    runs = presets.recorded_runs()
    print("\n".join(presets.plan_lines(presets.plan(args, runs), args.preset, runs, selection_flags(argv))))
    return 0


def merge(args) -> int:
    """--merge: the parts' rows (and --gpu-results') written as one run in --out; 2 when a folder is not a part."""
    try:
        rows, header = merged_rows([Path(folder) for folder in args.merge])
    except MergeError as error:
        print(f"harness: --merge: {error}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    run = Run(args, {}, header)
    run.rows = [r for r in rows if not tables.is_gpu(r)]
    return finish(run, out)


def measure_all(args) -> int:
    try:
        check_setup(args)
    except HarnessError as error:
        print(f"harness: {error}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"harness: random inputs seed {args.seed}; results in {out}", flush=True)
    run = Run(args, measure_peaks(args, out))
    for model in args.models:
        for batch in args.batches:
            run_model(run, model, batch)
    return finish(run, out)


def finish(run: Run, out: Path) -> int:
    """The tables and charts of every row gathered; 1 when there is none."""
    if not run.rows and not run.args.gpu_document:
        print("harness: nothing measured", file=sys.stderr)
        return 1
    run.save(None, [])
    rows = run.rows + gpu_rows(run.args, run.rows)
    try:
        written = charts.write_charts(rows, out)
        print("harness: charts " + ", ".join(p.name for p in written), flush=True)
    except ImportError:
        print("harness: matplotlib is not installed (python3 -m pip install matplotlib); no charts", file=sys.stderr)
    print(f"harness: wrote {out / 'harness.md'} and {out / 'harness.csv'}", flush=True)
    return 0


def main(argv: List[str]) -> int:
    try:
        args = parse_args(argv)
    except HarnessError as error:
        print(f"harness: {error}", file=sys.stderr)
        return 2
    if args.plan:
        return print_plan(args, argv)
    return merge(args) if args.merge else measure_all(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
