"""A CI-sized run of the whole harness on a tiny model: ort-cpu, 1 thread, 3 repeats, modes none and pet, with the fixture GPU results file; no timing asserted.

Usage: python3 harness_smoke_test.py PET_OPT WORK_DIR
The installed peers take part (a missing one is left out, not failed); OpenVINO is not needed.
"""
import csv
import importlib.util
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HARNESS = Path(__file__).resolve().parents[2] / "bench" / "harness.py"
REQUIRED = "model,batch,target,threads,variant,median_ms,spread_ms,speedup_vs_input,opt_seconds,check".split(",")
PEER_MODULES = {"onnxsim": "onnxsim", "onnxslim": "onnxslim", "onnxoptimizer": "onnxoptimizer", "ort-offline": "onnxruntime",
                "ort-transformers": "onnxruntime"}
GPU_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "gpu_e2e_fixture.json"
NOT_A_TRANSFORMER = "not applicable: not a transformer: no self-attention (no Softmax) in its graph"
PET_OPT, WORK = "", Path()


def tiny_model(path: Path) -> None:
    """Conv+BatchNorm+Relu, a residual Add and a second conv on [1,4,8,8]: something for every tool to fold."""
    rng = np.random.default_rng(7)
    weights = [numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name) for name, shape in
               [("w1", (4, 4, 3, 3)), ("b1", (4,)), ("w2", (8, 4, 3, 3)), ("scale", (4,)), ("shift", (4,))]]
    weights += [numpy_helper.from_array(np.zeros(4, np.float32), "mean"), numpy_helper.from_array(np.ones(4, np.float32), "var")]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c1", "scale", "shift", "mean", "var"], ["n1"]),
             helper.make_node("Relu", ["n1"], ["r1"]), helper.make_node("Add", ["r1", "x"], ["a1"]),
             helper.make_node("Conv", ["a1", "w2"], ["y"], pads=[1, 1, 1, 1])]
    graph = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])], weights)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


class HarnessSmoke(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        tiny_model(WORK / "models" / "tiny_b1" / "model.onnx")
        cls.peers = [p for p, module in PEER_MODULES.items() if importlib.util.find_spec(module)]
        cls.out = WORK / "out"
        command = [sys.executable, str(HARNESS), "--models", "tiny", "--batches", "1", "--targets", "ort-cpu",
                   "--threads", "1", "--modes", "none,pet", "--repeats", "3", "--warmup", "1", "--peak-size", "256",
                   "--peers", ",".join(cls.peers) or "none", "--models-dir", str(WORK / "models"), "--out", str(cls.out),
                   "--pet-opt", PET_OPT, "--profile-db", str(WORK / "profile-db.json"), "--time-limit", "5",
                   "--gpu-results", str(GPU_FIXTURE)]
        cls.finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
        print(cls.finished.stdout + cls.finished.stderr)

    def all_rows(self):
        with (self.out / "harness.csv").open() as handle:
            return list(csv.DictReader(handle))

    def rows(self):
        return [r for r in self.all_rows() if r["target"] != "gpu"]

    def gpu_rows(self):
        return [r for r in self.all_rows() if r["target"] == "gpu"]

    def test_the_run_succeeds_and_writes_its_files(self):
        self.assertEqual(self.finished.returncode, 0)
        for name in ["harness.md", "harness.csv"]:
            self.assertTrue((self.out / name).is_file(), name)
        if importlib.util.find_spec("matplotlib"):
            self.assertTrue((self.out / "speedup_ort-cpu_t1.png").is_file())
            self.assertTrue((self.out / "opt_time_ort-cpu_t1.png").is_file())

    def test_one_row_per_variant_with_the_required_columns(self):
        rows = self.rows()
        self.assertTrue(set(REQUIRED) <= set(rows[0]), rows[0].keys())
        self.assertEqual([r["variant"] for r in rows], ["input"] + self.peers + ["pet-none", "pet"])
        for row in rows:
            self.assertEqual((row["model"], row["batch"], row["target"], row["threads"]), ("tiny", "1", "ort-cpu", "1"))

    def test_every_variant_ran_and_matched_the_input(self):
        for row in self.rows():
            if row["variant"] == "ort-transformers":
                self.assertEqual(row["check"], NOT_A_TRANSFORMER)
                continue
            self.assertEqual(row["check"], "ok", row)
            self.assertNotEqual(row["median_ms"], "", row)
            self.assertNotEqual(row["speedup_vs_input"], "", row)
            self.assertNotEqual(row["floor_fraction"], "", row)

    def test_pet_rows_carry_the_optimization_time_and_the_h100_estimate(self):
        for row in self.rows():
            if row["variant"] in ("pet-none", "pet"):
                self.assertNotEqual(row["opt_seconds"], "", row)
                self.assertNotEqual(row["gpu_estimate_us"], "", row)
                self.assertIn(row["chosen"], ("input", "cleaned") + tuple(f"program {k}" for k in range(1, 9)))

    def test_the_report_names_the_machine_the_seed_and_pet_against_the_best_peer(self):
        text = (self.out / "harness.md").read_text()
        self.assertIn("machine: ", text)
        self.assertIn("random inputs seed 2026", text)
        self.assertIn("| geometric mean |", text)
        if self.peers:
            self.assertRegex(text, r"- tiny b1: PET .* \*\*(beats|ties|loses)\*\* the best peer")


    def test_the_gpu_results_are_rows_beside_the_cpu_ones_with_the_card_named(self):
        rows = self.gpu_rows()
        self.assertEqual([(r["model"], r["batch"], r["variant"]) for r in rows[:7]],
                         [("tiny", "1", v) for v in ["input", "pet-taso", "pet", "torch-eager", "torch-cuda-graph",
                                                     "torch-cuda-graph-channels-last", "torch-compile"]])
        self.assertEqual({r["card"] for r in rows}, {"NVIDIA H100 80GB HBM3 (fixture)"})
        pet = next(r for r in rows if (r["model"], r["variant"]) == ("tiny", "pet"))
        self.assertEqual((pet["median_ms"], pet["speedup_vs_input"]), ("0.0139", str(round(14.2 / 13.9, 4))))
        self.assertNotEqual(pet["floor_fraction"], "")  # the tiny model's FLOPs from its CPU rows
        compile_row = next(r for r in rows if (r["model"], r["variant"]) == ("tiny", "torch-compile"))
        self.assertEqual(compile_row["check"], "skipped: no compile budget (--compile-budget 0)")

    def test_the_report_has_the_gpu_section_and_says_its_figures_are_a_fixtures(self):
        text = (self.out / "harness.md").read_text()
        self.assertIn("## GPU: NVIDIA H100 80GB HBM3 (fixture), measured end to end", text)
        self.assertIn("| model | batch | input (pet-gpu) | TASO-only (pet-gpu) | PET (pet-gpu) | PyTorch eager | "
                      "PyTorch CUDA graph | PyTorch CUDA graph, channels-last | torch.compile |", text)
        self.assertIn("**The GPU figures are a test fixture's, invented", text)
        self.assertIn("| model | batch | ort-cpu t1: TASO-only | ort-cpu t1: PET | GPU NVIDIA H100 80GB HBM3 (fixture): "
                      "TASO-only | GPU NVIDIA H100 80GB HBM3 (fixture): PET |", text)
        self.assertRegex(text, r"\| tiny \| 1 \|  \| [0-9.]+x \| n/a \* \| 1\.022x \|")
        self.assertIn("| resnet18 | 16 |  |  | 1.010x | 1.050x |", text)
        # The best PyTorch variant is the fastest measured, here its channels-last CUDA graph.
        self.assertRegex(text, r"- resnet18 b16: PET \(pet-gpu\) 2\.10 ± 0\.01 ms \*\*loses\*\* the best PyTorch "
                               r"variant, PyTorch CUDA graph, channels-last 2\.05 ± 0\.01 ms")
        if importlib.util.find_spec("matplotlib"):
            self.assertTrue((self.out / "speedup_gpu.png").is_file())

    def test_the_gpu_section_says_what_pet_wrote_and_the_corrections_share(self):
        text = (self.out / "harness.md").read_text()
        self.assertIn("| model | batch | variant | chosen on | transformations | by family | corrected partial mutant | "
                      "corrections' share |", text)
        # An entry without "chosen_on" is of a file from before the live stage: the kit's written model.
        self.assertIn("| resnet18 | 16 | TASO-only (pet-gpu) | the kit (--replay) | 2 | rule:conv-relu=2 | no | - |", text)
        self.assertIn("| resnet18 | 16 | PET (pet-gpu) | the card (--live) | 3 | mutant:conv-layout=1;rule:conv-relu=2 | yes "
                      "| 4.3 % |", text)


if __name__ == "__main__":
    PET_OPT, WORK = sys.argv[1], Path(sys.argv[2])
    unittest.main(argv=sys.argv[:1])
