#!/usr/bin/env python3
"""pet-gpu on the input, TASO-only's and PET's written models against PyTorch eager, CUDA graph and torch.compile, interleaved per model and batch, into the GPU results file the harness reads.

Per batch, then model, one run: every variant set up and warmed up, then `--rounds` rounds, each
timing every variant once in a rotating order (round-robin, each round starting one later):
`pet-gpu serve --tf32` (each model loaded once, timed round by round) on the kit's weight-free
models (KIT/work/<model>[_b<B>]/model.pet and KIT/work-written/<model>[_b<B>].<taso|pet>/model.pet,
seeded random inputs; with --written DIR, the models pet-opt --live wrote on this card earlier in the
session, DIR/<model>[_b<B>].<taso|pet>.onnx with its report beside it, in place of the kit's), and
PyTorch on the same architecture and seeds as models/export_models.py builds it (random inputs,
never zeros): eager with cudnn.benchmark, that forward replayed from a CUDA graph, the same in
PyTorch's channels-last layout for a model of images or videos (its weights and inputs NHWC, as
PyTorch users run CNNs on tensor cores), and torch.compile (default mode) while --compile-budget allows, each model first loading its artifacts
from earlier checks (--compile-cache, bench/gpu/compile_cache.py) and saving what it compiled
(--compile-cache-out). TF32 on both sides (pet-gpu --tf32; torch allow_tf32 for matmuls and
convolutions). Times are CUDA-event medians; clocks are read (nvidia-smi), never set.
The format is bench/harnesslib/gpu_results.py's; the file is rewritten after every model.

    python3 bench/gpu/e2e.py --kit KIT --out e2e.json [--models M,...] [--batches 1,16] [--compile-budget S]
                             [--compile-cache DIR] [--compile-cache-out DIR] [--written DIR]
Exit status: 0 all measured, 1 some variant failed, 2 a usage error, 3 no CUDA device (nothing measured).
"""
import argparse
import contextlib
import copy
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harnesslib import gpu_results  # noqa: E402
from harnesslib.petopt import summarize_report  # noqa: E402
from harnesslib.stats import median, quantile, rotation, spread  # noqa: E402
from compile_cache import CompileCache  # noqa: E402
from gpu_timing import (EVALUATION_MODELS, PET_GPU_LINE, cache_flags, captured_graph, event_samples,  # noqa: E402
                        pet_gpu_step_times, pet_gpu_summary, torch_model)

NO_DEVICE = 3
CEILING_SIZE = 8192
WRITTEN_MODES = {"pet-taso": "taso", "pet": "pet"}
CHANNELS_LAST = "torch-cuda-graph-channels-last"
LOAD_MS = re.compile(r"\bload ([0-9.]+) ms")  # in pet-gpu serve's ready line


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kit", required=True, help="the unpacked kit: KIT/bin/pet-gpu, KIT/work, KIT/work-written")
    parser.add_argument("--out", required=True, help="the results file (JSON, format " + gpu_results.FORMAT + ")")
    parser.add_argument("--models", default=",".join(EVALUATION_MODELS), help="comma-separated (default: the nine)")
    parser.add_argument("--batches", default="1,16", help="comma-separated batch sizes (default: 1,16)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default: 3)")
    parser.add_argument("--runs", type=int, default=50, help="timed runs per variant and round (default: 50)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed runs before them (default: 10)")
    parser.add_argument("--compile-budget", type=float, default=0,
                        help="seconds torch.compile may spend compiling, over all models (default: 0, not compiled)")
    parser.add_argument("--compile-cache", default=None,
                        help="torch.compile's artifacts carried from earlier checks (bench/gpu/compile_cache.py), "
                             "loaded before each model compiles (default: none)")
    parser.add_argument("--compile-cache-out", default=None,
                        help="where each model's compile artifacts are saved for later checks (default: not saved)")
    parser.add_argument("--seconds", type=float, default=0, help="start no model after this many seconds (0: no limit)")
    parser.add_argument("--written", default=None,
                        help="pet-opt --live's written models of this session (DIR/<model>[_b<B>].<mode>.onnx and "
                             ".json), timed in place of the kit's where there (default: the kit's alone)")
    parser.add_argument("--conv-cache", default=None,
                        help="pet-gpu's --conv-cache FILE: each convolution's choice timed by the first load, "
                             "reused by the later rounds' processes (default: every load times its own)")
    args = parser.parse_args(argv)
    args.models = [m for m in args.models.split(",") if m]
    if not all(b.strip().isdigit() and int(b) > 0 for b in args.batches.split(",")):
        parser.error(f"--batches: '{args.batches}' is not a comma-separated list of positive integers")
    args.batches = [int(b) for b in args.batches.split(",")]
    return args


def kit_files(kit: Path, model: str, batch: int, written=None) -> dict:
    """{variant: model file} of pet-gpu's variants; the batch-1 folders carry no _b1 suffix. A written model
    pet-opt --live chose on the card (in `written`, a folder) stands in for the kit's, chosen here."""
    folder = model if batch == 1 else f"{model}_b{batch}"
    files = {"input": kit / "work" / folder / "model.pet"}
    for variant, mode in WRITTEN_MODES.items():
        live = Path(written) / f"{folder}.{mode}.onnx" if written else None
        files[variant] = live if live and live.is_file() else kit / "work-written" / f"{folder}.{mode}" / "model.pet"
    return files


def live_first(models: list, written) -> list:
    """The models in order, those with a model pet-opt --live wrote (at any batch) first: a stage cut at its cap
    then has timed what the card chose."""
    if not written:
        return list(models)
    live = {re.sub(r"_b[0-9]+$", "", path.name.split(".")[0]) for path in Path(written).glob("*.onnx")}
    return sorted(models, key=lambda model: model not in live)


def written_source(written) -> str:
    """Where the TASO-only and PET models came from, for the results' header."""
    live = sorted(path.name[:-len(".onnx")] for path in Path(written).glob("*.onnx")) if written else []
    if not live:
        return "the kit's (make-kit.sh --written)"
    return f"pet-opt --live on this card for {', '.join(live)}; the kit's (make-kit.sh --written) for the rest"


def report_of(written_model: Path) -> Path:
    """The pet-opt report of a written model: beside a live run's output as <run>.json, report.json in a kit folder."""
    return written_model.with_suffix(".json") if written_model.suffix == ".onnx" else written_model.parent / "report.json"


def summary_of(samples_ms) -> dict:
    return {"median": median(samples_ms), "q1": quantile(samples_ms, 0.25), "q3": quantile(samples_ms, 0.75),
            "runs": len(samples_ms)}


class PetGpuTimer:
    """`pet-gpu serve`: the model loaded once, in its first round, then timed each round through the
    process's standard input, so a round costs its runs alone; with a pet-gpu that has no serve
    command (an older kit), one `pet-gpu time` process per round."""

    def __init__(self, pet_gpu: Path, model_file: Path, args, flags=()):
        self.pet_gpu, self.model_file, self.args, self.flags = str(pet_gpu), str(model_file), args, list(flags)
        self.process, self.errors, self.served = None, None, True
        self.load_ms = None  # the serving process's load, as its ready line says

    def start(self) -> None:
        self.errors = tempfile.TemporaryFile(mode="w+")
        command = [self.pet_gpu, "serve", self.model_file, "--tf32"] + cache_flags(self.args.conv_cache) + self.flags
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors,
                                        text=True, bufsize=1)
        ready = self.process.stdout.readline()
        if not ready.startswith("ready: "):
            self.process.wait()
            self.errors.seek(0)
            said = (ready + self.errors.read()).strip()[-300:]
            self.close()
            raise RuntimeError(f"pet-gpu serve {self.model_file}: {said}")
        loaded = LOAD_MS.search(ready)
        self.load_ms = float(loaded.group(1)) if loaded else None

    def time_once(self) -> dict:
        if self.served and self.process is None:
            try:
                self.start()
            except RuntimeError as error:
                if "is not a pet-gpu command" not in str(error):
                    raise
                self.served = False
        if not self.served:
            return pet_gpu_summary(self.pet_gpu, self.model_file, self.args.runs, self.args.warmup,
                                   self.args.conv_cache)
        self.process.stdin.write(f"time {self.args.runs} {self.args.warmup}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        found = PET_GPU_LINE.search(answer)
        if not found:
            raise RuntimeError(f"pet-gpu serve {self.model_file}: {answer.strip() or 'no answer (it ended)'}")
        return {"median": float(found.group(1)), "q1": float(found.group(2)), "q3": float(found.group(3)),
                "runs": int(found.group(4))}

    def close(self) -> None:
        """Ends the serving process (quit, then killed if it does not end within 30 s)."""
        if self.errors is not None:
            self.errors.close()
            self.errors = None
        if self.process is None:
            return
        try:
            self.process.stdin.write("quit\n")
            self.process.stdin.close()
            self.process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                pipe.close()
            except OSError:  # stdin of a process that already ended
                pass
        self.process = None


class TorchTimer:
    """A forward callable timed with CUDA events, warmed up before every round."""

    def __init__(self, torch, forward, args):
        self.torch, self.forward, self.args = torch, forward, args

    def time_once(self) -> dict:
        with self.torch.no_grad():
            return summary_of(event_samples(self.torch, self.forward, self.args.runs, self.args.warmup))


class CompileBudget:
    """torch.compile's seconds over the whole run; a model is compiled only while its likely cost fits: the
    longest compile so far of its kind, from the carried cache (`cache`, a CompileCache) or from nothing."""

    def __init__(self, seconds: float, cache=None):
        self.seconds, self.spent, self.cache = seconds, 0.0, cache
        self.longest = {True: 0.0, False: 0.0}  # by whether the compile loaded cached artifacts

    def cached(self, name: str, batch: int) -> bool:
        return bool(self.cache) and self.cache.cached(name, batch)

    def refusal(self, name: str = "", batch: int = 0):
        if self.seconds <= 0:
            return "skipped", "no compile budget (--compile-budget 0)"
        cached = self.cached(name, batch)
        if self.spent + self.longest[cached] > self.seconds:
            kind = "from the carried cache" if cached else "without the carried cache"
            return "skipped", (f"compile budget {self.seconds:.0f} s: {self.spent:.0f} s spent, the longest "
                               f"compile {kind} took {self.longest[cached]:.0f} s")
        return None

    def charge(self, seconds: float, cached: bool = False) -> None:
        self.spent += seconds
        self.longest[cached] = max(self.longest[cached], seconds)


def compiled_timer(torch, model, inputs, name: str, batch: int, budget: CompileBudget, args):
    """A timer of torch.compile(model), compiled now (its first calls, after loading the carried cache's
    artifacts of this model and batch) and charged to the budget; it says what the compile took."""
    recording = budget.cache.recording(name, batch) if budget.cache else contextlib.nullcontext({"loaded": 0})
    started = time.time()
    with recording as cache_use:
        compiled = torch.compile(model)
        with torch.no_grad():
            for _ in range(3):
                compiled(*inputs)
        torch.cuda.synchronize()
    seconds = time.time() - started  # loading and saving the artifacts included
    budget.charge(seconds, cached=cache_use["loaded"] > 0)
    timer = TorchTimer(torch, lambda: compiled(*inputs), args)
    timer.compile = {"compile_s": round(seconds, 2), "compile_cache_artifacts": cache_use["loaded"]}
    return timer


class NoImageInput(Exception):
    """The model reads no image or video, so channels-last is not a layout it has."""


def channels_last_timer(torch, model, inputs, args):
    """The CUDA-graph variant in PyTorch's channels-last layout (NHWC; NDHWC for a video), as PyTorch users
    run convolutional networks on tensor cores: a copy of the model on the card (the NCHW graph keeps
    reading the original's weights), its weights and image inputs in that layout, captured in a CUDA graph."""
    ranks = {x.dim() for x in inputs}
    if not ranks & {4, 5}:
        raise NoImageInput(f"no 4-D or 5-D input (input ranks {sorted(ranks)}): channels-last is a layout of images "
                           "and videos")
    layout, rank = (torch.channels_last, 4) if 4 in ranks else (torch.channels_last_3d, 5)
    model = copy.deepcopy(model).to(memory_format=layout)
    inputs = [x.contiguous(memory_format=layout) if x.dim() == rank else x for x in inputs]
    with torch.no_grad():
        graph = captured_graph(torch, lambda: model(*inputs))
    return TorchTimer(torch, graph.replay, args)


def torch_timers(torch, name: str, batch: int, budget: CompileBudget, args):
    """({variant: timer}, {variant: (status, reason)}) of PyTorch's four variants."""
    timers, outcomes = {}, {}
    model, inputs = torch_model(torch, name, batch)
    timers["torch-eager"] = TorchTimer(torch, lambda: model(*inputs), args)
    with torch.no_grad():
        graph = captured_graph(torch, lambda: model(*inputs))
    timers["torch-cuda-graph"] = TorchTimer(torch, graph.replay, args)
    try:
        timers[CHANNELS_LAST] = channels_last_timer(torch, model, inputs, args)
    except NoImageInput as why:
        outcomes[CHANNELS_LAST] = ("skipped", str(why))
    except Exception as error:  # a layout PyTorch cannot run this model in is its own cell
        outcomes[CHANNELS_LAST] = ("failed", f"channels-last: {str(error)[-300:]}")
    refused = budget.refusal(name, batch)
    if refused:
        outcomes["torch-compile"] = refused
    else:
        try:
            timers["torch-compile"] = compiled_timer(torch, model, inputs, name, batch, budget, args)
        except Exception as error:  # a model torch.compile cannot compile is its own cell
            outcomes["torch-compile"] = ("failed", f"torch.compile: {str(error)[-300:]}")
    return timers, outcomes


def set_up(torch, kit: Path, name: str, batch: int, budget: CompileBudget, args):
    """Every variant's timer, or its status and reason when it has none."""
    timers, outcomes = {}, {}
    for variant, path in kit_files(kit, name, batch, args.written).items():
        if path.is_file():
            timers[variant] = PetGpuTimer(kit / "bin" / "pet-gpu", path, args)
        else:
            made_by = "make-kit.sh" if variant == "input" else "make-kit.sh --written"
            outcomes[variant] = ("missing", f"not in the kit: {path.relative_to(kit)} ({made_by}, batch {batch})")
    try:
        found, refused = torch_timers(torch, name, batch, budget, args)
        timers.update(found)
        outcomes.update(refused)
    except Exception as error:  # PyTorch's side failed to build or capture: its variants say why
        for variant in gpu_results.PYTORCH_VARIANTS:
            outcomes[variant] = ("failed", f"PyTorch set-up: {str(error)[-300:]}")
    return timers, outcomes


def interleave(timers: dict, outcomes: dict, rounds: int, order=None) -> dict:
    """Per variant, its per-round summaries; a variant that fails leaves the rounds, with its reason.
    The rotation goes through `order` (default: the results format's variants that have a timer)."""
    names = order or [v for v, _ in gpu_results.VARIANTS if v in timers]
    found = {v: [] for v in names}
    for round_index in range(rounds):
        for index in rotation(len(names), round_index):
            variant = names[index]
            if variant in outcomes:
                continue
            try:
                found[variant].append(timers[variant].time_once())
            except Exception as error:  # one variant's failure is its own cell; the others go on
                outcomes[variant] = ("failed", str(error)[-300:])
    return found


def entry(name: str, batch: int, variant: str, rounds: list, outcome) -> dict:
    base = {"model": name, "batch": batch, "variant": variant}
    if outcome or not rounds:
        status, reason = outcome or ("failed", "no round measured")
        return dict(base, status=status, reason=reason)
    medians = [r["median"] for r in rounds]
    within = median([(r["q3"] - r["q1"]) / 2 for r in rounds])
    return dict(base, status="ok", median_us=round(1000 * median(medians), 3),
                spread_us=round(1000 * max(spread(medians), within), 3), runs=sum(r["runs"] for r in rounds),
                rounds_us=[round(1000 * m, 3) for m in medians])


def written_program(path: Path) -> dict:
    """What pet wrote (its report: report_of(path)): transformations by family, whether a corrected partial
    mutant is in the program, and what chose it: "card" (pet-opt --live, this session) or "kit" (make-kit.sh
    --written, pet-opt --replay on the profile DB of the kit's day); {} without a report."""
    report_file = report_of(path)
    if not report_file.is_file():
        return {}
    report = json.loads(report_file.read_text())
    figures = summarize_report(report)
    evidence = [s.get("evidence_kind", "") for s in report.get("transformations", [])]
    return {"transformations": figures["transformations"], "by_family": figures["by_family"],
            "corrected_mutant": "partial_correction" in evidence, "chosen_on": "card" if path.suffix == ".onnx" else "kit"}


def correction_share(pet_gpu: Path, path: Path, args) -> dict:
    """The correction kernels' share of the written model's time: their steps' medians over all steps'
    (pet-gpu time --per-step, eager with CUDA events around each step)."""
    try:
        steps = pet_gpu_step_times(str(pet_gpu), str(path), args.runs, args.warmup, args.conv_cache)
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        return {"correction_share_error": str(error)[-300:]}
    corrections = [ms for kind, ms in steps if kind == "correction" or kind.startswith("patch:")]
    total = sum(ms for _, ms in steps)
    return {"correction_steps": len(corrections), "correction_share": round(sum(corrections) / total, 5) if total else 0.0}


def with_written_program(kit: Path, name: str, batch: int, entries: list, args) -> list:
    """The TASO-only and PET entries with what pet wrote and, for a measured PET program, the corrections' share."""
    files = kit_files(kit, name, batch, args.written)
    for e in entries:
        if e["variant"] not in WRITTEN_MODES or not files[e["variant"]].is_file():
            continue
        e.update(written_program(files[e["variant"]]))
        if e["status"] == "ok" and e.get("corrected_mutant"):
            e.update(correction_share(kit / "bin" / "pet-gpu", files[e["variant"]], args))
    return entries


def measure_model(torch, kit: Path, name: str, batch: int, budget: CompileBudget, args) -> list:
    started = time.time()
    timers, outcomes = set_up(torch, kit, name, batch, budget, args)
    set_up_s = time.time() - started
    try:
        found = interleave(timers, outcomes, args.rounds)
    finally:
        for timer in timers.values():
            if hasattr(timer, "close"):
                timer.close()
    entries = [entry(name, batch, v, found.get(v, []), outcomes.get(v)) for v, _ in gpu_results.VARIANTS]
    for e in entries:  # where the stage's seconds went, for the next session's caps
        if getattr(timers.get(e["variant"]), "load_ms", None) is not None:
            e["load_ms"] = timers[e["variant"]].load_ms
        e.update(getattr(timers.get(e["variant"]), "compile", {}))
    print(f"{name} b{batch}: set-up {set_up_s:.1f} s (PyTorch's variants), rounds and pet-gpu loads "
          f"{time.time() - started - set_up_s:.1f} s", flush=True)
    entries = with_written_program(kit, name, batch, entries, args)
    timers.clear()
    if hasattr(torch, "_dynamo"):
        torch._dynamo.reset()
    torch.cuda.empty_cache()
    return entries


def smi_line(fields: str) -> str:
    """nvidia-smi's values of `fields` for GPU 0, read only; why not when it cannot say."""
    if not shutil.which("nvidia-smi"):
        return "nvidia-smi not on PATH"
    done = subprocess.run(["nvidia-smi", "-i", "0", f"--query-gpu={fields}", "--format=csv,noheader"],
                          capture_output=True, text=True, timeout=30)
    return done.stdout.strip() if done.returncode == 0 else f"nvidia-smi exit {done.returncode}"


CLOCK_FIELDS = "clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu"


def kit_commit(kit: Path) -> str:
    manifest = kit / "MANIFEST"
    lines = manifest.read_text().splitlines() if manifest.is_file() else []
    return next((line[len("commit "):] for line in lines if line.startswith("commit ")), "unknown (no MANIFEST)")


def ceiling(torch) -> dict:
    """The measured cuBLAS TF32 GEMM rate on random data: the floor's rate."""
    a, b = (torch.randn(CEILING_SIZE, CEILING_SIZE, device="cuda") for _ in range(2))
    ms = median(event_samples(torch, lambda: torch.matmul(a, b), 20, 5))
    del a, b
    torch.cuda.empty_cache()
    return {"tf32_gemm_tflops": round(2 * CEILING_SIZE ** 3 / (ms / 1000) / 1e12, 1),
            "how": f"torch.matmul {CEILING_SIZE}x{CEILING_SIZE} float32 with TF32, median of 20 CUDA-event runs"}


def header(torch, kit: Path, args) -> dict:
    return {"format": gpu_results.FORMAT, "fixture": False, "card": torch.cuda.get_device_name(0),
            "versions": {"driver": smi_line("driver_version"), "torch": torch.__version__, "cuda": str(torch.version.cuda),
                         "cudnn": str(torch.backends.cudnn.version()), "pet_gpu": kit_commit(kit)},
            "math": "tf32", "clocks": {"before": smi_line(CLOCK_FIELDS)}, "ceiling": ceiling(torch),
            "method": {"rounds": args.rounds, "runs": args.runs, "warmup": args.warmup, "conv_cache": bool(args.conv_cache),
                       "written": written_source(args.written),
                       "compile_budget_s": args.compile_budget,
                       "compile_cache": compile_cache_source(args),
                       "order": "round-robin over the variants, each round starting one later"},
            "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "results": []}


def compile_cache_source(args) -> str:
    """What torch.compile started from, for the results' header."""
    if args.compile_budget <= 0:
        return "not compiled"
    return f"artifacts carried in {args.compile_cache}" if args.compile_cache else "nothing carried (compiled afresh)"


def write(document: dict, path: Path) -> None:
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(gpu_results.check(document), indent=1))
    temporary.replace(path)


def print_entries(entries: list) -> None:
    for e in entries:
        figure = f"{e['median_us']:.1f} ± {e['spread_us']:.1f} us" if e["status"] == "ok" else f"{e['status']}: {e['reason']}"
        print(f"{e['model']} b{e['batch']} {e['variant']}: {figure}", flush=True)


def run_all(torch, kit: Path, args) -> int:
    cache = CompileCache(torch, args.compile_cache, args.compile_cache_out) if args.compile_budget > 0 else None
    document, started, budget = header(torch, kit, args), time.time(), CompileBudget(args.compile_budget, cache)
    out = Path(args.out)
    for batch in args.batches:  # every model at the first batch before any at the next: a cut run keeps whole tables
        for name in live_first(args.models, args.written):
            if args.seconds and time.time() - started > args.seconds:
                reason = f"not started: {time.time() - started:.0f} s of --seconds {args.seconds:g} spent"
                entries = [dict(model=name, batch=batch, variant=v, status="skipped", reason=reason)
                           for v, _ in gpu_results.VARIANTS]
            else:
                entries = measure_model(torch, kit, name, batch, budget, args)
            document["results"] += entries
            document["clocks"]["after"] = smi_line(CLOCK_FIELDS)
            write(document, out)
            print_entries(entries)
    failed = sum(e["status"] == "failed" for e in document["results"])
    measured = [e for e in document["results"] if e["status"] == "ok"]
    compiled = sum(e["variant"] == "torch-compile" for e in measured)
    print(f"e2e: wrote {out}: {len(measured)} measured ({compiled} with torch.compile), {failed} failed")
    return 1 if failed else 0


def cuda_torch():
    """torch with TF32 and cudnn.benchmark on, or (None, why there is no CUDA device)."""
    try:
        import torch
    except ImportError as error:
        return None, f"no torch here ({error})"
    if not torch.cuda.is_available():
        return None, "torch.cuda.is_available() is False"
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    return torch, ""


def main(argv) -> int:
    args = parse_args(argv)
    kit = Path(args.kit)
    if not (kit / "bin" / "pet-gpu").is_file():
        print(f"e2e: no pet-gpu in {kit}/bin; unpack the kit (scripts/device/make-kit.sh) and name it with --kit",
              file=sys.stderr)
        return 2
    if args.rounds < 1 or args.runs < 1 or args.warmup < 0 or not args.models or not args.batches:
        print("e2e: --rounds and --runs must be at least 1, --warmup at least 0, --models and --batches not empty",
              file=sys.stderr)
        return 2
    torch, why = cuda_torch()
    if torch is None:
        print(f"e2e: no CUDA device: {why}; nothing measured, {args.out} not written", file=sys.stderr)
        return NO_DEVICE
    return run_all(torch, kit, args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
