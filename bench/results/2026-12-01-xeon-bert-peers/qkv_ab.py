"""The input BERT-s128 b1 against its two hand-merged Q/K/V forms in ONNX Runtime (all graph optimizations),
interleaved, the order rotated each round, after 3 warm-ups: medians [min-max] ms, and the outputs compared.
    python3 qkv_ab.py INPUT.onnx THREADS ROUNDS"""
import statistics, sys, time
import numpy as np, onnxruntime as ort

src, threads, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
o = ort.SessionOptions(); o.intra_op_num_threads = threads
paths = {"input": src, "split_then_add": "split_then_add.onnx", "add_then_split": "add_then_split.onnx"}
sess = {k: ort.InferenceSession(p, o, providers=["CPUExecutionProvider"]) for k, p in paths.items()}
rng = np.random.default_rng(2026)
feed = {i.name: rng.integers(0, 2 if "type" in i.name else 30000, size=[1, 128]).astype(np.int64)
        for i in sess["input"].get_inputs()}
ref = sess["input"].run(None, feed)[0]
for k, s in sess.items():
    print(k, "max abs diff", float(np.abs(s.run(None, feed)[0] - ref).max()))
names = list(sess); times = {k: [] for k in names}
for r in range(rounds + 3):
    order = names[r % 3:] + names[:r % 3]
    for k in order:
        t = time.perf_counter(); sess[k].run(None, feed); dt = time.perf_counter() - t
        if r >= 3: times[k].append(dt * 1e3)
for k in names:
    v = times[k]
    print(f"{k:<15} {statistics.median(v):8.2f} ms [{min(v):.2f}-{max(v):.2f}]  {statistics.median(times['input']) / statistics.median(v):.3f}x")
