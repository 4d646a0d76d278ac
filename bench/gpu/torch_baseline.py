#!/usr/bin/env python3
"""pet-gpu against PyTorch on the same architectures and batch, on the GPU, interleaved.

Per model and round: `pet-gpu time` on the kit's weight-free model (CUDA-graph replays, TF32),
then PyTorch eager with cudnn.benchmark, then that eager forward captured in a CUDA graph, TF32
on in both (allow_tf32 for matmuls and convolutions). PyTorch's modules are the ones
models/export_models.py exports (models/zoo.py: same seeds, BatchNorms calibrated the same way);
their weights differ from the weight-free ones, which changes no time. Inputs are random, never
zeros. Each measurement is a median of CUDA-event timed runs after warm-up; a model's figure is
the median over the rounds with the lowest and highest round beside it.

    python3 bench/gpu/torch_baseline.py --pet-gpu KIT/bin/pet-gpu --work KIT/work --out FILE.jsonl
Without a CUDA device it says so and exits 0 (the session script's dry run).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

EVALUATION_MODELS = ["resnet18", "resnet50", "inception_v3_299", "inception_v3_330", "csrnet", "csrnet_backend",
                     "bert_s128", "bert_s512", "r3d_18"]
PET_GPU_LINE = re.compile(r"^end to end: median ([0-9.]+) ms \(q1 ([0-9.]+), q3 ([0-9.]+)\) over ([0-9]+) runs", re.M)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pet-gpu", required=True, help="the kit's pet-gpu")
    parser.add_argument("--work", required=True, help="the kit's work folder (WORK/<model>/model.pet)")
    parser.add_argument("--out", required=True, help="JSON lines, one per model")
    parser.add_argument("--models", default=",".join(EVALUATION_MODELS))
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=300, help="stop starting models after this long")
    return parser.parse_args(argv)


def event_samples(torch, work, runs, warmup):
    """Per-run milliseconds of work() between CUDA events on the current stream, after warm-up."""
    for _ in range(warmup):
        work()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        work()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return times


def event_times(torch, work, runs, warmup):
    """The median of event_samples, in ms."""
    return statistics.median(event_samples(torch, work, runs, warmup))


def captured_graph(torch, forward):
    """forward() captured in a CUDA graph after three runs on a side stream (what capture needs)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            forward()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        forward()
    return graph


def torch_model(torch, name, batch):
    """The exported architecture on the GPU, with random inputs of its kinds."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "models"))
    from zoo import MODELS, seed_for  # noqa: E402
    from export_models import build_model, random_input  # noqa: E402

    spec = MODELS[name]
    model, seed = build_model(spec)
    gen = torch.Generator().manual_seed(seed)
    inputs = [random_input(i, batch, gen).cuda() for i in spec.inputs]
    return model.cuda().eval(), inputs


def torch_times(torch, model, inputs, runs, warmup):
    """Eager (cudnn.benchmark) and the same forward replayed from a CUDA graph, in ms."""
    with torch.no_grad():
        eager = event_times(torch, lambda: model(*inputs), runs, warmup)
        graph = captured_graph(torch, lambda: model(*inputs))
        replayed = event_times(torch, graph.replay, runs, warmup)
    return eager, replayed


def pet_gpu_summary(pet_gpu, model_file, runs, warmup):
    """`pet-gpu time MODEL --tf32`: {'median', 'q1', 'q3', 'runs'} in ms of its CUDA-graph replays."""
    done = subprocess.run([pet_gpu, "time", model_file, "--tf32", "--runs", str(runs), "--warmup", str(warmup)],
                          capture_output=True, text=True, timeout=120)
    found = PET_GPU_LINE.search(done.stdout)
    if done.returncode != 0 or not found:
        raise RuntimeError(f"pet-gpu time {model_file} exited {done.returncode}: {(done.stdout + done.stderr)[-400:]}")
    return {"median": float(found.group(1)), "q1": float(found.group(2)), "q3": float(found.group(3)),
            "runs": int(found.group(4))}


def pet_gpu_time(args, name):
    return pet_gpu_summary(args.pet_gpu, os.path.join(args.work, name, "model.pet"), args.runs, args.warmup)["median"]


def spread(values):
    return {"median": statistics.median(values), "low": min(values), "high": max(values), "rounds": len(values)}


def measure(torch, args, name):
    model, inputs = torch_model(torch, name, args.batch)
    rounds = {"pet-gpu graph": [], "torch eager": [], "torch cuda graph": []}
    for _ in range(args.rounds):
        rounds["pet-gpu graph"].append(pet_gpu_time(args, name))
        eager, replayed = torch_times(torch, model, inputs, args.runs, args.warmup)
        rounds["torch eager"].append(eager)
        rounds["torch cuda graph"].append(replayed)
    record = {"model": name, "batch": args.batch, "ms": {k: spread(v) for k, v in rounds.items()}}
    pet, graph = record["ms"]["pet-gpu graph"]["median"], record["ms"]["torch cuda graph"]["median"]
    record["pet-gpu vs torch cuda graph"] = graph / pet
    return record


def main(argv):
    args = parse_args(argv)
    try:
        import torch
    except ImportError as error:
        print(f"no torch here ({error}): nothing measured")
        with open(args.out, "w") as out:
            out.write(json.dumps({"no_torch": str(error)}) + "\n")
        return 0
    if not torch.cuda.is_available():
        print("no CUDA device: torch.cuda.is_available() is False; nothing measured")
        with open(args.out, "w") as out:
            out.write(json.dumps({"no_device": True}) + "\n")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    header = {"card": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
              "cudnn": torch.backends.cudnn.version(), "tf32": True, "runs": args.runs, "warmup": args.warmup}
    started = time.time()
    failed = 0
    with open(args.out, "w") as out:
        out.write(json.dumps(header) + "\n")
        for name in args.models.split(","):
            if time.time() - started > args.seconds:
                print(f"{name}: not started, {args.seconds:.0f} s spent")
                continue
            try:
                record = measure(torch, args, name)
            except Exception as error:  # one model's failure is its own line, the next model still runs
                failed += 1
                record = {"model": name, "error": str(error)[-600:]}
            out.write(json.dumps(record) + "\n")
            out.flush()
            if "error" in record:
                print(f"{name}: FAILED: {record['error']}")
            else:
                ms = record["ms"]
                print(f"{name} b{args.batch}: pet-gpu {ms['pet-gpu graph']['median']:.3f} ms, torch eager "
                      f"{ms['torch eager']['median']:.3f} ms, torch CUDA graph {ms['torch cuda graph']['median']:.3f} ms "
                      f"({record['pet-gpu vs torch cuda graph']:.2f}x)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
