"""BERT in ONNX Runtime: the input, pet's written models and ONNX Runtime's transformer optimizer's,
timed in one interleaved run by the harness's cell measurement (bench/harnesslib/measure.py,
measure_cell: the deployed session settings, outputs checked against the first variant's).
    python3 ab.py THREADS ROUNDS NAME=MODEL.onnx ...   (the first is the base of the ratios)
A NAME of ortx-all or ortx-no-bias-fusions makes that model from the first variant's path with
onnxruntime.transformers.optimizer (opt_level 0; every fusion, or all but folding the MatMuls' biases
into BiasGelu and SkipLayerNormalization)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import onnxruntime as ort  # noqa: E402
from harnesslib.measure import measure_cell  # noqa: E402


def transformer_optimized(source, name, without_bias_fusions):
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model
    options = FusionOptions("bert")
    if without_bias_fusions:
        options.enable_bias_gelu = False
        options.enable_bias_skip_layer_norm = False
    model = optimize_model(source, model_type="bert", num_heads=12, hidden_size=768, optimization_options=options,
                           opt_level=0)
    path = f"/tmp/{name}.onnx"
    model.save_model_to_file(path)
    return path


def main():
    threads, rounds = int(sys.argv[1]), int(sys.argv[2])
    variants = [argument.split("=", 1) for argument in sys.argv[3:]]
    source = variants[0][1]
    ort.set_default_logger_severity(3)
    for entry in variants:
        if entry[0] in ("ortx-all", "ortx-no-bias-fusions"):
            entry[1] = transformer_optimized(source, entry[0], entry[0] == "ortx-no-bias-fusions")
    request = {"runtime": "ort-cpu", "threads": threads, "warmup": 3, "repeats": rounds, "seed": 2026,
               "variants": [{"name": name, "path": path} for name, path in variants]}
    results = measure_cell(request)
    base = results[variants[0][0]]["median_ms"]
    print(f"onnxruntime {ort.__version__}, {threads} threads, {rounds} interleaved rounds after 3 warm-ups")
    for name, _ in variants:
        r = results[name]
        print(f"{name:<22} {r['median_ms']:9.2f} ms ± {r['spread_ms']:.2f}  {base / r['median_ms']:.3f}x  check: {r['check']}")


if __name__ == "__main__":
    main()
