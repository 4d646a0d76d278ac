"""Where ONNX Runtime's transformer optimizer gains on BERT-s128 b1: its model with every fusion, without
the Attention fusion, and without the Gelu and SkipLayerNorm fusions, against the input, timed by the
harness's cell measurement (qkv_ab.report).
    python3 ortx_ab.py INPUT.onnx THREADS ROUNDS"""
import sys
import onnxruntime as ort
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
from qkv_ab import report  # noqa: E402  the harness's cell measurement, as qkv_ab.py uses it

report(list(paths.items()), threads, rounds)
