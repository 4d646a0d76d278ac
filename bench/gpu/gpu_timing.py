"""What bench/gpu/e2e.py times with on the GPU: CUDA-event samples after warm-up, a forward
captured in a CUDA graph, the exported PyTorch architectures with their seeded random inputs
(models/zoo.py, never zeros), and `pet-gpu time`'s summary line.
"""

import os
import re
import subprocess
import sys

EVALUATION_MODELS = ["resnet18", "resnet50", "inception_v3_299", "inception_v3_330", "csrnet", "csrnet_backend",
                     "bert_s128", "bert_s512", "r3d_18"]
PET_GPU_STEP = re.compile(r"^  step [0-9]+ ([a-z_-]+) '.*?( \[patch\])?: ([0-9.]+) ms \(q1", re.M)
PET_GPU_LINE = re.compile(r"^end to end: median ([0-9.]+) ms \(q1 ([0-9.]+), q3 ([0-9.]+)\) over ([0-9]+) runs", re.M)


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


def cache_flags(conv_cache):
    """pet-gpu's --conv-cache FILE where one is given: later loads take earlier loads' conv decisions."""
    return ["--conv-cache", str(conv_cache)] if conv_cache else []


def pet_gpu_summary(pet_gpu, model_file, runs, warmup, conv_cache=None):
    """`pet-gpu time MODEL --tf32`: {'median', 'q1', 'q3', 'runs'} in ms of its CUDA-graph replays."""
    done = subprocess.run([pet_gpu, "time", model_file, "--tf32", "--runs", str(runs), "--warmup", str(warmup)]
                          + cache_flags(conv_cache), capture_output=True, text=True, timeout=120)
    found = PET_GPU_LINE.search(done.stdout)
    if done.returncode != 0 or not found:
        raise RuntimeError(f"pet-gpu time {model_file} exited {done.returncode}: {(done.stdout + done.stderr)[-400:]}")
    return {"median": float(found.group(1)), "q1": float(found.group(2)), "q3": float(found.group(3)),
            "runs": int(found.group(4))}


def step_times(text):
    """[(kind, ms)] of pet-gpu time --per-step's lines; a step computing only corrections' patches is 'patch:<kind>'."""
    return [(("patch:" if patch else "") + kind, float(ms)) for kind, patch, ms in PET_GPU_STEP.findall(text)]


def pet_gpu_step_times(pet_gpu, model_file, runs, warmup, conv_cache=None):
    """`pet-gpu time MODEL --tf32 --per-step`: [(step kind, median ms)] of its eager, event-timed steps."""
    done = subprocess.run([pet_gpu, "time", model_file, "--tf32", "--per-step", "--runs", str(runs), "--warmup",
                           str(warmup)] + cache_flags(conv_cache), capture_output=True, text=True, timeout=120)
    steps = step_times(done.stdout)
    if done.returncode != 0 or not steps:
        raise RuntimeError(f"pet-gpu time --per-step {model_file} exited {done.returncode}: "
                           f"{(done.stdout + done.stderr)[-400:]}")
    return steps
