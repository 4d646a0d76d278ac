"""Unit tests of the harness's pure functions: statistics, the beats/ties/loses rule, CSV and report pieces, FLOPs, flags."""
import os
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
import harness  # noqa: E402
from harnesslib import stats, tables  # noqa: E402
from harnesslib.flops import count_flops  # noqa: E402
from harnesslib.measure import compare  # noqa: E402
from harnesslib.petopt import count_by, summarize_report, transformation_family  # noqa: E402
from harnesslib.variants import mode_of, pet_variant, variants_for  # noqa: E402


class Statistics(unittest.TestCase):
    def test_median_of_odd_and_even_counts(self):
        self.assertEqual(stats.median([3.0, 1.0, 2.0]), 2.0)
        self.assertEqual(stats.median([4.0, 1.0, 2.0, 3.0]), 2.5)

    def test_spread_is_half_the_interquartile_range_as_numpy_computes_it(self):
        values = [10.0, 12.0, 11.0, 30.0, 9.0, 10.5, 11.5]
        expected = (np.percentile(values, 75) - np.percentile(values, 25)) / 2
        self.assertAlmostEqual(stats.spread(values), expected)
        self.assertEqual(stats.spread([5.0]), 0.0)

    def test_geometric_mean_ignores_missing_values(self):
        self.assertAlmostEqual(stats.geometric_mean([2.0, 8.0]), 4.0)
        self.assertAlmostEqual(stats.geometric_mean([2.0, None, 8.0, 0.0]), 4.0)
        self.assertIsNone(stats.geometric_mean([]))

    def test_verdict_needs_a_gap_wider_than_both_spreads(self):
        self.assertEqual(stats.verdict(10.0, 0.2, 11.0, 0.3), "beats")
        self.assertEqual(stats.verdict(10.0, 0.5, 10.9, 0.5), "ties")
        self.assertEqual(stats.verdict(12.0, 0.1, 11.0, 0.1), "loses")

    def test_rotation_starts_each_round_one_later(self):
        self.assertEqual(stats.rotation(3, 0), [0, 1, 2])
        self.assertEqual(stats.rotation(3, 1), [1, 2, 0])
        self.assertEqual(stats.rotation(3, 5), [2, 0, 1])
        self.assertEqual(stats.rotation(0, 2), [])


class Variants(unittest.TestCase):
    def test_mode_names_round_trip(self):
        for mode in ["none", "taso", "pet", "pet-eq-only", "pet-neq-only"]:
            self.assertEqual(mode_of(pet_variant(mode)), mode)
        self.assertEqual(pet_variant("taso"), "pet-taso")
        self.assertEqual(mode_of("onnxsim"), "")

    def test_taso_is_labelled_as_proved_rules_only(self):
        labels = {v.name: v.label for v in variants_for(["onnxsim"], ["taso", "pet"])}
        self.assertEqual(list(labels), ["input", "onnxsim", "pet-taso", "pet"])
        self.assertEqual(labels["pet-taso"], "TASO-only (proved rules)")


def row(variant, ms, spread, check="ok"):
    return {"model": "m", "batch": "1", "target": "ort-cpu", "threads": "1", "variant": variant,
            "median_ms": ms, "spread_ms": spread, "check": check}


class Tables(unittest.TestCase):
    def test_csv_round_trip_keeps_the_required_columns(self):
        required = "model,batch,target,threads,variant,median_ms,spread_ms,speedup_vs_input,opt_seconds,check".split(",")
        self.assertEqual(tables.COLUMNS[:len(required)], required)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "harness.csv"
            tables.write_csv([row("input", 2.0, 0.1), dict(row("pet", 1.0, 0.1), opt_seconds=3.5)], path)
            read = tables.read_csv(path)
        self.assertEqual([r["variant"] for r in read], ["input", "pet"])
        self.assertEqual(read[1]["opt_seconds"], "3.5")
        self.assertEqual(read[0]["opt_seconds"], "")
        self.assertEqual(set(read[0]), set(tables.COLUMNS))

    def test_speedups_are_over_the_input_row(self):
        rows = [row("input", 4.0, 0.1), row("onnxsim", 2.0, 0.1), row("pet", "", "", "not runnable: x")]
        tables.speedups(rows)
        self.assertEqual([r["speedup_vs_input"] for r in rows], [1.0, 2.0, ""])

    def test_pet_against_the_best_peer_skips_flagged_peers(self):
        cell = {"input": row("input", 10.0, 0.1), "onnxsim": row("onnxsim", 9.0, 0.1),
                "onnxslim": row("onnxslim", 5.0, 0.1, "CHANGED (max abs error 1)"), "pet": row("pet", 8.0, 0.1)}
        line = tables.pet_versus_best_peer(("m", 1, "ort-cpu", 1), cell)
        self.assertIn("**beats** the best peer, onnxsim 9.00", line)
        cell["pet"] = row("pet", 9.05, 0.1)
        self.assertIn("**ties**", tables.pet_versus_best_peer(("m", 1, "ort-cpu", 1), cell))

    def test_markdown_flags_what_did_not_check(self):
        rows = [row("input", 4.0, 0.1), row("ort-offline", "", "", "not runnable: no rule"), row("pet", 2.0, 0.1)]
        tables.speedups(rows)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "harness.md"
            tables.write_markdown(rows, ["# header", ""], path)
            text = path.read_text()
        self.assertIn("## ort-cpu, 1 thread", text)
        self.assertIn("| m | 1 | 1.000x (4.00 ± 0.10) | n/a* | 2.000x (2.00 ± 0.10) |", text)
        self.assertIn("- m b1 ort-cpu t1 ORT offline (ENABLE_ALL): not runnable: no rule", text)


class Reports(unittest.TestCase):
    def test_rule_families_drop_numbers_and_the_right_side(self):
        self.assertEqual(transformation_family("rule", "conv-conv-concat-1-to-concat-0-conv-353eec"), "rule:conv-conv-concat")
        self.assertEqual(transformation_family("rule", "merge-1x1-into-3x3-conv"), "rule:merge-1x1-into-3x3-conv")
        self.assertEqual(transformation_family("mutant", "n2h"), "mutant:n2h")

    def test_counts_are_most_frequent_first_then_by_name(self):
        self.assertEqual(count_by(["b", "a", "b", "c", "a", "b"]), "b=3;a=2;c=1")
        self.assertEqual(count_by([]), "")

    def test_summary_reads_times_transformations_and_choice(self):
        report = {"seconds": {"search": 1.25, "finalize": 0.5},
                  "transformations": [{"kind": "rule", "name": "a-b-to-c-1", "evidence_kind": "z3-proof"},
                                      {"kind": "mutant", "name": "n2h", "evidence_kind": "partial+correction"}],
                  "target": {"selection": {"chosen": "program 1"}}, "search": {"stop_reason": "converged"},
                  "totals": {"cost_original_us": 10.0, "cost_optimized_us": 8.0}}
        summary = summarize_report(report)
        self.assertEqual(summary["opt_seconds"], 1.75)
        self.assertEqual(summary["transformations"], 2)
        self.assertEqual(summary["by_evidence"], "partial+correction=1;z3-proof=1")
        self.assertEqual(summary["by_family"], "mutant:n2h=1;rule:a-b=1")
        self.assertEqual(summary["chosen"], "program 1")


class OutputCheck(unittest.TestCase):
    def test_float32_reorderings_pass_and_real_changes_do_not(self):
        reference = [np.linspace(-3, 3, 100, dtype=np.float32)]
        self.assertEqual(compare(reference, [reference[0] * (1 + 1e-6)])["check"], "ok")
        self.assertTrue(compare(reference, [reference[0] + 0.01])["check"].startswith("CHANGED"))
        self.assertTrue(compare(reference, [reference[0][:50]])["check"].startswith("CHANGED (shape"))
        self.assertTrue(compare(reference, [])["check"].startswith("CHANGED (0 outputs"))


def conv_matmul_model(path):
    weight = numpy_helper.from_array(np.ones((8, 3, 3, 3), np.float32), "w")
    matrix = numpy_helper.from_array(np.ones((16, 5), np.float32), "m")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Reshape", ["c", "shape"], ["r"]), helper.make_node("MatMul", ["r", "m"], ["y"])]
    shape = numpy_helper.from_array(np.array([8, 16], np.int64), "shape")
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [weight, matrix, shape])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


class Flops(unittest.TestCase):
    def test_conv_and_matmul_count_two_per_multiply_add(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "model.onnx")
            conv_matmul_model(path)
            counted = count_flops(path)
        # Conv: 8x4x4 outputs x 27 products; MatMul: [8,16] x [16,5] -> 8x5 outputs x 16 products.
        self.assertEqual(counted, {"flops": 2 * 8 * 16 * 27 + 2 * 8 * 5 * 16, "uncounted": 0})


class Flags(unittest.TestCase):
    def error(self, argv):
        with self.assertRaises(harness.HarnessError) as caught:
            harness.parse_args(argv)
        return str(caught.exception)

    def test_all_models_are_the_nine_and_the_extra_torchvision_models(self):
        models = harness.parse_args(["--models", "all"]).models
        self.assertEqual(models[:3], ["resnet18", "resnet50", "inception_v3_299"])
        self.assertIn("vit_b_16", models)
        self.assertEqual(len(models), len(set(models)))

    def test_bad_flags_say_what_is_known(self):
        self.assertIn("--models: unknown resnet19; known: resnet18", self.error(["--models", "resnet19"]))
        self.assertEqual(self.error(["--batches", "1,x"]), "--batches: 'x' is not a positive integer")
        self.assertIn("--targets: unknown h100; known: ort-cpu, openvino-cpu", self.error(["--targets", "h100"]))
        self.assertIn("--modes: unknown fast", self.error(["--modes", "none,fast"]))

    def test_a_missing_pet_opt_says_how_to_build_it(self):
        args = harness.parse_args(["--models", "resnet18", "--pet-opt", "/nonexistent/pet-opt"])
        with self.assertRaises(harness.HarnessError) as caught:
            harness.check_setup(args)
        self.assertIn("no pet-opt at /nonexistent/pet-opt; build it with `cmake --build build --target pet-opt`",
                      str(caught.exception))


class NodeEfficiency(unittest.TestCase):
    def test_flops_of_profiled_nodes_from_their_recorded_shapes(self):
        from node_efficiency import node_flops
        # ResNet-18's layer-1 conv: 64x64x3x3 on 56x56, 2 FLOPs per multiply-add.
        self.assertEqual(node_flops("Conv", [[1, 64, 56, 56], [64, 64, 3, 3], [64]], [[1, 64, 56, 56]]),
                         2 * 64 * 56 * 56 * 64 * 9)
        self.assertEqual(node_flops("Gemm", [[1, 512], [1000, 512], [1000]], [[1, 1000]]), 2 * 1000 * 512)
        self.assertEqual(node_flops("MatMul", [[1, 128, 768], [768, 768]], [[1, 128, 768]]), 2 * 128 * 768 * 768)
        self.assertEqual(node_flops("Relu", [[1, 64, 56, 56]], [[1, 64, 56, 56]]), 0)
        self.assertEqual(node_flops("Conv", [], []), 0)


class PetOptRuns(unittest.TestCase):
    def test_a_pet_opt_that_cannot_be_run_is_a_flagged_cell_not_a_crash(self):
        from harnesslib.petopt import run_pet_opt
        with tempfile.TemporaryDirectory() as folder:
            binary = Path(folder) / "pet-opt"
            binary.write_text("not a program")  # present, not executable: what a relinking build leaves
            found = run_pet_opt(str(binary), Path(folder) / "m.onnx", Path(folder) / "o.onnx", "ort-cpu", "pet", [])
            self.assertTrue(found["status"].startswith(f"failed: cannot run {binary}: "), found["status"])
            missing = run_pet_opt(str(Path(folder) / "absent"), Path(folder) / "m.onnx", Path(folder) / "o.onnx",
                                  "ort-cpu", "pet", [])
            self.assertTrue(missing["status"].startswith("failed: cannot run "), missing["status"])


class PhysicalFloor(unittest.TestCase):
    HARDWARE = {"isa": "avx512f", "fp32_gflops": 100.0, "bf16_gflops": 200.0}
    RUNTIME = {"gflops": 90.0}

    def test_onnx_runtime_is_floored_at_the_float32_fma_peak_not_its_own_best(self):
        self.assertEqual(harness.floor_rate("ort-cpu", self.HARDWARE, self.RUNTIME), (100.0, "float32 FMA peak"))

    def test_openvino_in_bf16_is_floored_at_the_bf16_peak_else_float32(self):
        original = harness.environment.openvino_precision
        try:
            harness.environment.openvino_precision = lambda: "bf16"
            self.assertEqual(harness.floor_rate("openvino-cpu", self.HARDWARE, self.RUNTIME),
                             (200.0, "bf16 dot-product peak"))
            self.assertEqual(harness.floor_rate("openvino-cpu", dict(self.HARDWARE, bf16_gflops=None), self.RUNTIME),
                             (100.0, "float32 FMA peak"))
            harness.environment.openvino_precision = lambda: "f32"
            self.assertEqual(harness.floor_rate("openvino-cpu", self.HARDWARE, self.RUNTIME), (100.0, "float32 FMA peak"))
        finally:
            harness.environment.openvino_precision = original

    def test_openvinos_precision_is_spelled_as_pet_opt_spells_it(self):
        try:
            import openvino  # noqa: F401
        except ImportError:
            self.skipTest("OpenVINO is not installed")
        self.assertIn(harness.environment.openvino_precision(), ["bf16", "f32", "f16"])

    def test_without_the_peak_binary_the_runtimes_best_kernel_is_the_floor(self):
        self.assertEqual(harness.floor_rate("ort-cpu", {}, self.RUNTIME), (90.0, "the runtime's best kernel"))

    def test_a_missing_peak_binary_is_reported_not_fatal(self):
        args = type("Args", (), {"cpu_peak": "/nonexistent/pet_cpu_peak"})()
        self.assertEqual(harness.hardware_peak(args, 1), {})

    def test_the_peak_binary_measures_a_positive_float32_rate_where_it_is_built(self):
        binary = Path(os.environ.get("PET_CPU_PEAK", BENCH.parent / "build" / "bench" / "pet_cpu_peak"))
        if not binary.is_file():
            self.skipTest(f"{binary} is not built")
        found = harness.hardware_peak(type("Args", (), {"cpu_peak": str(binary)})(), 1)
        self.assertGreater(found["fp32_gflops"], 0)
        self.assertIn(found["isa"], ["avx512f", "avx2", "none"])


if __name__ == "__main__":
    unittest.main()
