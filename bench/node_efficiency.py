#!/usr/bin/env python3
"""Where a model's time goes in ONNX Runtime, node by node, against the CPU's arithmetic peak.

Runs the model under ONNX Runtime's profiler (CPU provider, ORT_ENABLE_ALL, N intra-op threads),
takes each node's median kernel time over the timed runs, counts the FLOPs of every Conv, FusedConv
and Gemm/MatMul node from the shapes the profiler records (2 per multiply-add), and prints the nodes by
time with their rate as a share of the float32 peak (`pet_cpu_peak`). A node near 100 % leaves
nothing for any rewrite that keeps its FLOPs; what is left for the whole model is the sum of the gaps.

Usage: python3 bench/node_efficiency.py MODEL.onnx [--threads N] [--runs R] [--top K] [--cpu-peak BIN]
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import onnxruntime as ort

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "bench"))
from harnesslib.environment import CpuPeakError, cpu_peak  # noqa: E402
from harnesslib.flops import conv_flops_of, product_flops_of  # noqa: E402
from harnesslib.measure import random_inputs  # noqa: E402
CONVS = {"Conv", "FusedConv", "NchwcConv"}
PRODUCTS = {"Gemm", "MatMul", "FusedMatMul", "FusedGemm"}


def shapes(args: dict, key: str) -> list:
    return [list(entry.values())[0] for entry in args.get(key, [])]


def node_flops(op: str, inputs: list, outputs: list) -> float:
    """FLOPs of one profiled node from its recorded shapes (0 for ops that do no multiply-adds).
    A Gemm's transA is not in the profile: its inner size is taken as the left operand's last dim."""
    if not outputs or not inputs:
        return 0.0
    if op in CONVS and len(inputs) > 1:
        return float(conv_flops_of(inputs[1], outputs[0]))
    if op in PRODUCTS and len(inputs) > 1 and inputs[0]:
        return float(product_flops_of(inputs[0][-1], outputs[0]))
    return 0.0


def profile(model: str, threads: int, runs: int, warmup: int, seed: int) -> dict:
    """{node name: {op, flops, times}} over `runs` profiled runs after `warmup` untimed ones."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    with tempfile.TemporaryDirectory() as folder:
        options.enable_profiling = True
        options.profile_file_prefix = os.path.join(folder, "profile")
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        inputs = random_inputs(model, seed)
        for _ in range(warmup + runs):
            session.run(None, inputs)
        events = json.loads(Path(session.end_profiling()).read_text())
    nodes: dict = {}
    for event in events:
        if event.get("cat") != "Node" or not event["name"].endswith("_kernel_time"):
            continue
        args = event["args"]
        node = nodes.setdefault(event["name"][: -len("_kernel_time")], {
            "op": args.get("op_name", "?"),
            "flops": node_flops(args.get("op_name", ""), shapes(args, "input_type_shape"),
                                shapes(args, "output_type_shape")),
            "times": []})
        node["times"].append(event["dur"])
    for node in nodes.values():
        node["us"] = statistics.median(node["times"][warmup:] or node["times"])
    return nodes


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--cpu-peak", default=str(REPOSITORY / "build" / "bench" / "pet_cpu_peak"))
    args = parser.parse_args(argv)
    try:
        peak = float(cpu_peak(args.cpu_peak, args.threads)["fp32_gflops"])
    except CpuPeakError as error:
        raise SystemExit(f"node_efficiency: {error}") from error
    nodes = profile(args.model, args.threads, args.runs, args.warmup, args.seed)
    total_us = sum(node["us"] for node in nodes.values())
    floor_us = sum(node["flops"] for node in nodes.values()) / (peak * 1e3)
    print(f"{args.model}: ONNX Runtime {ort.__version__}, {args.threads} thread(s), float32 peak {peak:.1f} GFLOP/s; "
          f"medians of {args.runs} profiled runs (seed {args.seed})")
    print(f"{'ms':>8}  {'share':>6}  {'GFLOP/s':>8}  {'of peak':>7}  op / node")
    for name, node in sorted(nodes.items(), key=lambda item: -item[1]["us"])[: args.top]:
        rate = node["flops"] / (node["us"] * 1e3) if node["flops"] and node["us"] else 0
        of_peak = f"{100 * rate / peak:6.1f}%" if rate else "      -"
        print(f"{node['us'] / 1e3:8.3f}  {100 * node['us'] / total_us:5.1f}%  {rate:8.1f}  {of_peak}  "
              f"{node['op']} {name}")
    print(f"kernels {total_us / 1e3:.2f} ms; their FLOPs at the peak {floor_us / 1e3:.2f} ms "
          f"({100 * floor_us / total_us:.1f}% of the kernel time)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
