"""Where ONNX Runtime's transformer optimizer gains on BERT-s128 b1: its model with every fusion, without
the Attention fusion, and with only the Attention fusion disabled... against the input, interleaved in
ONNX Runtime (all graph optimizations), the order rotated each round, after 3 warm-ups.
    python3 ortx_ab.py INPUT.onnx THREADS ROUNDS"""
import statistics, sys, time, os
import numpy as np, onnxruntime as ort
from onnxruntime.transformers.optimizer import optimize_model
from onnxruntime.transformers.fusion_options import FusionOptions

src, threads, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ort.set_default_logger_severity(3)
def make(name, **off):
    opts = FusionOptions("bert")
    for k, v in off.items(): setattr(opts, k, v)
    m = optimize_model(src, model_type="bert", num_heads=12, hidden_size=768, optimization_options=opts, opt_level=0)
    path = f"{name}.onnx"; m.save_model_to_file(path); return path
paths = {"input": src, "all": make("all"), "no_attention": make("no_attention", enable_attention=False),
         "no_gelu_skipln": make("no_gelu_skipln", enable_bias_gelu=False, enable_gelu=False, enable_skip_layer_norm=False,
                                enable_bias_skip_layer_norm=False)}
o = ort.SessionOptions(); o.intra_op_num_threads = threads
sess = {k: ort.InferenceSession(p, o, providers=["CPUExecutionProvider"]) for k, p in paths.items()}
rng = np.random.default_rng(2026)
feed = {i.name: rng.integers(0, 2 if "type" in i.name else 30000, size=[1, 128]).astype(np.int64) for i in sess["input"].get_inputs()}
ref = sess["input"].run(None, feed)[0]
names = list(sess); times = {k: [] for k in names}
for k in names:
    import onnx, collections
    ops = collections.Counter(n.op_type for n in onnx.load(paths[k], load_external_data=False).graph.node)
    print(k, "max abs diff %.1e" % float(np.abs(sess[k].run(None, feed)[0] - ref).max()), dict(ops.most_common(6)))
for r in range(rounds + 3):
    order = names[r % len(names):] + names[:r % len(names)]
    for k in order:
        t = time.perf_counter(); sess[k].run(None, feed); dt = time.perf_counter() - t
        if r >= 3: times[k].append(dt * 1e3)
for k in names:
    v = times[k]
    print(f"{k:<15} {statistics.median(v):8.2f} ms [{min(v):.2f}-{max(v):.2f}]  {statistics.median(times['input']) / statistics.median(v):.3f}x")
