"""The harness in parts (--preset, --plan, --merge) and ONNX Runtime's transformer optimizer as a peer: before -> after on small inputs, no timing asserted."""
import collections
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import onnx
from onnx import TensorProto, helper

HERE = Path(__file__).resolve().parent
BENCH = HERE.parents[1] / "bench"
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(HERE))
import harness  # noqa: E402
from harnesslib import presets, tables  # noqa: E402
from harnesslib.measure import OrtRunner, compare, random_inputs  # noqa: E402
from harnesslib.merge import MergeError, merged_rows  # noqa: E402
from tiny_bert import tiny_bert  # noqa: E402

FIXTURE = HERE / "fixtures" / "gpu_e2e_fixture.json"


def recorded(input_ms: float, total_s: float, measuring_s: float = 0.0) -> presets.Recorded:
    return presets.Recorded(input_ms, total_s, measuring_s, "2026-11-27-test")


class Presets(unittest.TestCase):
    def test_a_preset_fills_the_flags_not_given_and_the_given_ones_win(self):
        args = harness.with_preset(["--preset", "b16"])
        self.assertEqual((args.batches, args.threads, args.repeats, args.gpu_estimate), ("16", "1,2", 10, False))
        args = harness.with_preset(["--preset", "b16", "--threads", "2", "--batches", "1"])
        self.assertEqual((args.batches, args.threads), ("1", "2"))
        self.assertEqual(harness.with_preset([]).batches, "1,16")

    def test_a_cell_costs_pet_opt_in_every_mode_then_every_variants_rounds(self):
        args = harness.parse_args(["--preset", "b1", "--models", "resnet18", "--modes", "taso,pet", "--peers",
                                   "onnxsim,ort-offline"])
        # pet-opt: 100 s cold, then 100 - 40 s warm; rounds: (1 check + 2 warm-up + 10) x 5 variants x 0.2 s.
        self.assertAlmostEqual(presets.cell_seconds(recorded(200, 100, 40), args, "ort-cpu"), 160 + 13 * 5 * 0.2)
        # OpenVINO cannot load ORT offline's model: 4 variants timed.
        self.assertAlmostEqual(presets.cell_seconds(recorded(200, 100, 40), args, "openvino-cpu"), 160 + 13 * 4 * 0.2)

    def test_a_model_past_the_budget_splits_by_target_then_threads_and_the_union_is_the_matrix(self):
        args = harness.parse_args(["--preset", "b16", "--models", "resnet18,resnet50", "--modes", "pet", "--peers", "none"])
        runs = {("resnet18", 16, t, n): recorded(100, 60) for t in ["ort-cpu", "openvino-cpu"] for n in [1, 2]}
        runs.update({("resnet50", 16, "ort-cpu", n): recorded(1000, 3000) for n in [1, 2]})
        runs.update({("resnet50", 16, "openvino-cpu", n): recorded(100, 1500) for n in [1, 2]})
        parts = presets.plan(args, runs)
        self.assertEqual([p.flags for p in parts], [
            ["--models", "resnet18"],
            ["--models", "resnet50", "--targets", "ort-cpu", "--threads", "1"],
            ["--models", "resnet50", "--targets", "ort-cpu", "--threads", "2"],
            ["--models", "resnet50", "--targets", "openvino-cpu"]])
        self.assertFalse(any(p.over_budget() for p in parts))
        cells = [c for p in parts for c in p.cells]
        self.assertEqual(sorted(cells), sorted((m, 16, t, n) for m in ["resnet18", "resnet50"]
                                               for t in ["ort-cpu", "openvino-cpu"] for n in [1, 2]))

    def test_one_target_and_thread_count_past_the_budget_split_by_batch_and_one_cell_stays_whole(self):
        # Before: with one target and one thread count left, split() appended --threads again forever
        # (RecursionError). After: the batches are split, and a part with nothing left to split is kept.
        args = harness.parse_args(["--models", "bert_s128", "--batches", "1,16", "--targets", "ort-cpu",
                                   "--threads", "2", "--modes", "pet", "--peers", "none"])
        runs = {("bert_s128", 1, "ort-cpu", 2): recorded(100, 3000), ("bert_s128", 16, "ort-cpu", 2): recorded(1600, 6000)}
        parts = presets.plan(args, runs)
        self.assertEqual([p.flags for p in parts], [["--models", "bert_s128", "--batches", "1"],
                                                    ["--models", "bert_s128", "--batches", "16"]])
        self.assertEqual([p.over_budget() for p in parts], [False, True], "one cell past the budget stays one part")

    def test_a_cell_with_no_recorded_run_is_counted_apart(self):
        args = harness.parse_args(["--preset", "b1", "--models", "edsr"])
        part, = presets.plan(args, {})
        self.assertEqual((part.seconds, len(part.unknown)), (0.0, 4))
        self.assertIn("0 min + 4 cells with no recorded run: python3 bench/harness.py --preset b1 --models edsr "
                      "--out build/harness/b1_edsr", "\n".join(presets.plan_lines([part], "b1", {})))

    def test_the_newest_recorded_run_of_a_cell_wins(self):
        header = "model,batch,target,threads,exit,input_ms,total_s,measuring_s\n"
        with tempfile.TemporaryDirectory() as folder:
            for name, ms in [("2026-11-26-a", "5.0"), ("2026-11-27-b", "7.0")]:
                (Path(folder) / name).mkdir()
                (Path(folder) / name / "matrix.csv").write_text(header + f"resnet18,1,ort-cpu,1,0,{ms},30,10\n")
            self.assertEqual(presets.recorded_runs(Path(folder)),
                             {("resnet18", 1, "ort-cpu", 1): presets.Recorded(7.0, 30.0, 10.0, "2026-11-27-b")})

    def test_a_parts_command_repeats_the_flags_given_to_plan_but_those_it_sets(self):
        given = harness.selection_flags(["--preset", "b16", "--plan", "--models", "bert_s512", "--replay",
                                         "--threads", "1,2", "--repeats=5"])
        self.assertEqual(given, [["--replay"], ["--threads", "1,2"], ["--repeats=5"]])
        part = presets.Part(["--models", "bert_s512", "--targets", "ort-cpu", "--threads", "1"], [], 0.0, [])
        self.assertEqual(presets.part_command(part, "b16", given), "python3 bench/harness.py --preset b16 --replay "
                         "--repeats=5 --models bert_s512 --targets ort-cpu --threads 1")

    def test_plan_prints_the_parts_and_measures_nothing(self):
        finished = subprocess.run([sys.executable, str(BENCH / "harness.py"), "--preset", "b1", "--models", "resnet18",
                                   "--plan"], capture_output=True, text=True, timeout=60)
        self.assertEqual(finished.returncode, 0, finished.stderr)
        self.assertRegex(finished.stdout, r"^harness plan: preset b1, 1 parts, budget 90 min each; estimated from "
                                          r"pet-opt's recorded runs in bench/results/")
        self.assertRegex(finished.stdout, r"\n +[0-9]+ min: python3 bench/harness.py --preset b1 --models resnet18 "
                                          r"--out build/harness/b1_resnet18\n")


def part_row(model: str, variant: str, ms: float) -> dict:
    return {"model": model, "batch": 1, "target": "ort-cpu", "threads": 1, "variant": variant, "median_ms": ms,
            "spread_ms": 0.1, "check": "ok", "speedup_vs_input": ""}


def write_part(folder: Path, model: str) -> Path:
    folder.mkdir(parents=True)
    rows = [part_row(model, "input", 4.0), part_row(model, "pet", 2.0)]
    tables.speedups(rows)
    tables.write_csv(rows, folder / "harness.csv")
    (folder / "harness.md").write_text(f"# pet harness\n\n- Date: today; machine: {model}'s\n\n## ort-cpu, 1 thread\n")
    return folder


class Merge(unittest.TestCase):
    def test_the_parts_rows_are_joined_and_each_part_is_named(self):
        with tempfile.TemporaryDirectory() as folder:
            parts = [write_part(Path(folder) / m, m) for m in ["a", "b"]]
            rows, header = merged_rows(parts)
            self.assertEqual([(r["model"], r["variant"]) for r in rows], [("a", "input"), ("a", "pet"), ("b", "input"),
                                                                          ("b", "pet")])
            self.assertIn("- Date: today; machine: b's", header)

    def test_a_cell_in_two_parts_is_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            first, second = write_part(Path(folder) / "one", "a"), write_part(Path(folder) / "two", "a")
            with self.assertRaises(MergeError) as raised:
                merged_rows([first, second])
            self.assertEqual(str(raised.exception), f"a b1 ort-cpu t1 is in both {first} and {second}; merge parts "
                                                    "that measured different cells")

    def test_merge_writes_one_table_with_the_gpu_columns(self):
        with tempfile.TemporaryDirectory() as folder:
            parts = [str(write_part(Path(folder) / m, m)) for m in ["a", "b"]]
            out = Path(folder) / "merged"
            status = harness.main(["--merge", *parts, "--out", str(out), "--gpu-results", str(FIXTURE)])
            self.assertEqual(status, 0)
            rows = tables.read_csv(out / "harness.csv")
            self.assertEqual(collections.Counter(r["target"] for r in rows), {"ort-cpu": 4, "gpu": 21})
            self.assertEqual([r["speedup_vs_input"] for r in rows if r["variant"] == "pet" and r["target"] == "ort-cpu"],
                             ["2.0", "2.0"])
            text = (out / "harness.md").read_text()
            self.assertIn("# pet harness: 2 parts merged (bench/harness.py --merge)", text)
            self.assertIn("| a | 1 | 1.000x (4.00 ± 0.10) | 2.000x (2.00 ± 0.10) |", text)
            self.assertIn("## GPU: NVIDIA H100 80GB HBM3 (fixture), measured end to end", text)


class TransformerPeer(unittest.TestCase):
    def run_peer(self, source: Path, target: Path):
        return subprocess.run([sys.executable, str(BENCH / "harnesslib" / "peers.py"), "ort-transformers", str(source),
                               str(target)], capture_output=True, text=True, timeout=120)

    def test_a_bert_layer_becomes_attention_skip_layer_norms_and_bias_gelu_with_the_same_outputs(self):
        with tempfile.TemporaryDirectory() as folder:
            source, target = Path(folder) / "bert.onnx", Path(folder) / "fused.onnx"
            onnx.save(tiny_bert(), source)
            self.assertEqual(collections.Counter(n.op_type for n in onnx.load(source).graph.node),
                             {"Add": 13, "MatMul": 8, "Reshape": 4, "Transpose": 4, "Div": 4, "ReduceMean": 4, "Mul": 4,
                              "Sub": 2, "Pow": 2, "Sqrt": 2, "Softmax": 1, "Erf": 1, "Identity": 1})
            finished = self.run_peer(source, target)
            self.assertEqual(finished.returncode, 0, finished.stderr)
            self.assertEqual(collections.Counter(n.op_type for n in onnx.load(target).graph.node),
                             {"MatMul": 3, "SkipLayerNormalization": 2, "Attention": 1, "BiasGelu": 1, "Identity": 1})
            feeds = random_inputs(str(source), 2026)
            checked = compare(OrtRunner(str(source), 1, feeds).run(), OrtRunner(str(target), 1, feeds).run())
            self.assertEqual(checked["check"], "ok", checked)

    def test_a_model_without_attention_is_refused_with_its_reason(self):
        with tempfile.TemporaryDirectory() as folder:
            source = Path(folder) / "relu.onnx"
            graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu",
                                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), source)
            finished = self.run_peer(source, Path(folder) / "out.onnx")
            self.assertEqual(finished.returncode, 4)
            self.assertEqual(finished.stderr.strip(),
                             "ort-transformers: not a transformer: no self-attention (no Softmax) in its graph")
            self.assertFalse((Path(folder) / "out.onnx").exists())

    def test_a_model_with_external_data_is_optimized_by_both_onnx_runtime_peers(self):
        # torch's current exporter writes weights beside the model (model.onnx.data), int64 ones too.
        import numpy as np
        import onnxruntime as ort
        from onnx import numpy_helper
        model = tiny_bert()
        model.graph.initializer.append(numpy_helper.from_array(np.arange(4096, dtype=np.int64), "position_ids"))
        with tempfile.TemporaryDirectory() as folder:
            source, target = Path(folder) / "model.onnx", Path(folder) / "fused.onnx"
            onnx.save(model, source, save_as_external_data=True, all_tensors_to_one_file=True,
                      location="model.onnx.data", size_threshold=1024)
            self.assertTrue((Path(folder) / "model.onnx.data").is_file())
            finished = self.run_peer(source, target)
            self.assertEqual(finished.returncode, 0, finished.stderr)
            self.assertIn("Attention", [n.op_type for n in onnx.load(target).graph.node])
            offline = Path(folder) / "offline.onnx"
            finished = subprocess.run([sys.executable, str(BENCH / "harnesslib" / "peers.py"), "ort-offline", str(source),
                                       str(offline)], capture_output=True, text=True, timeout=120)
            self.assertEqual(finished.returncode, 0, finished.stderr)
            self.assertTrue((Path(folder) / "offline.onnx.data").is_file())
            ort.InferenceSession(str(offline), providers=["CPUExecutionProvider"])  # its weights found

    def test_the_heads_and_hidden_size_are_read_from_the_attention_reshape(self):
        from harnesslib.peers import attention_shape
        self.assertEqual(attention_shape(tiny_bert()), (2, 16))

    def test_heads_split_in_three_dimensions_are_left_to_the_optimizer_to_detect(self):
        # torch's nn.MultiheadAttention: heads as a 3-D batch [S, B*N, d], no 4-D Reshape.
        from harnesslib.peers import attention_shape
        from onnx import numpy_helper
        import numpy as np
        graph = helper.make_graph([helper.make_node("Reshape", ["x", "heads"], ["r"]),
                                   helper.make_node("Softmax", ["r"], ["y"], axis=-1)], "mha",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2, 4])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4, 2])],
                                  [numpy_helper.from_array(np.array([3, 4, 2], dtype=np.int64), "heads")])
        self.assertEqual(attention_shape(helper.make_model(graph)), (0, 0))


if __name__ == "__main__":
    unittest.main()
