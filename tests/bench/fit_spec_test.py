"""bench/gpu/fit_spec.py: reading a check's per-step times, laying estimates over steps, and a fit that finds a spec's times again."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH / "gpu"))
import fit_spec  # noqa: E402

PET_PROFILE = sys.argv[1] if len(sys.argv) > 1 else str(BENCH.parent / "build" / "tools" / "pet-profile")

EXECUTOR = """== check m --strict
  step 0 cudnn-conv 'c1' (+1 nodes): cuDNN fused bias-activation IMPLICIT_GEMM, 0.249 ms in the search
== time m
pet-gpu time: model 'm', tf32 math, CUDA-graph replays
end to end: median 0.0300 ms (q1 0.0290, q3 0.0310) over 50 runs after 10 warm-ups
per step (eager, CUDA events around each step; medians add up to 0.0400 ms):
  step 0 cudnn-conv 'c1' (+1): 0.0250 ms (q1 0.0240, q3 0.0260)
  step 1 elementwise 'y': 0.0150 ms (q1 0.0140, q3 0.0160)
== time no_steps
end to end: median 0.0100 ms (q1 0.0100, q3 0.0100) over 50 runs after 10 warm-ups
== check other --tf32
"""

MODEL = """graph "convs" opset 13 {
  input %x : f32[1,64,28,28]
  const %w1 : f32[64,64,3,3] = random(1, 0.05)
  const %w2 : f32[128,64,1,1] = random(2, 0.05)
  const %w3 : f32[256,128,3,3] = random(3, 0.05)
  %c1 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w1) : f32[1,64,28,28]
  %r1 = Relu(%c1) : f32[1,64,28,28]
  %c2 = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[2,2]](%r1, %w2) : f32[1,128,14,14]
  %r2 = Relu(%c2) : f32[1,128,14,14]
  %c3 = Conv[dilations=[2,2], group=1, pads=[2,2,2,2], strides=[1,1]](%r2, %w3) : f32[1,256,14,14]
  %t = Transpose[perm=[0,2,3,1]](%c3) : f32[1,14,14,256]
  output %t
}
"""


class ReadingAndLaying(unittest.TestCase):
    def test_time_sections_with_steps_are_read_and_everything_else_left_out(self):
        models = fit_spec.parse_executor(EXECUTOR)
        self.assertEqual(models, {"m": {"e2e_ms": 0.03, "steps": [
            {"kind": "cudnn-conv", "head": "c1", "nodes": 2, "ms": 0.025},
            {"kind": "elementwise", "head": "y", "nodes": 1, "ms": 0.015}]}})

    def test_a_step_is_priced_by_the_group_with_its_first_node_and_node_count(self):
        """Before: groups a (1 node), b (1), c (2 nodes), n (9 nodes: a layer normalization); steps a, zz
        (no such group), c as 2 nodes, and n as the first of four kernels (an older pet-gpu's). After: a
        and c priced by their groups, the other two left out."""
        groups = [("a", 1, [1.0]), ("b", 1, [2.0]), ("c", 2, [12.0]), ("n", 9, [5.0])]
        steps = [{"head": "a", "nodes": 1}, {"head": "zz", "nodes": 1}, {"head": "c", "nodes": 2},
                 {"head": "n", "nodes": 1}]
        matched, left_out = fit_spec.step_estimates(steps, groups)
        self.assertEqual(matched, [(0, [1.0]), (2, [12.0])])
        self.assertEqual(left_out, 2)
        self.assertIsNone(fit_spec.step_estimates([{"head": "zz", "nodes": 1}], groups))

    def test_a_fitted_spec_file_reads_back_as_the_same_spec(self):
        spec = fit_spec.read_spec("h200")
        self.assertEqual(json.loads(fit_spec.spec_text(spec)), spec)


class Fitting(unittest.TestCase):
    def test_times_priced_by_a_spec_the_fit_does_not_start_from_are_found_again(self):
        """Before: h200 as shipped prices the steps of a card whose convolutions cost 12 µs more and whose
        launches cost 3 µs. After the fit, the error is a fraction of what it was."""
        truth = fit_spec.read_spec("h200")
        truth = fit_spec.with_value(truth, ("efficiency", "conv_fixed_us"), 12.0)
        truth = fit_spec.with_value(truth, ("launch_overhead_us",), 3.0)
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder) / "work"
            (work / "convs").mkdir(parents=True)
            (work / "convs" / "model.pet").write_text(MODEL)
            spec_path = Path(folder) / "truth.json"
            spec_path.write_text(fit_spec.spec_text(truth))
            out = subprocess.run([PET_PROFILE, "--estimate", str(work / "convs" / "model.pet"), "--device",
                                  str(spec_path)], capture_output=True, text=True, check=True).stdout.splitlines()
            groups = [json.loads(line) for line in out[1:]]
            more = lambda g: f" (+{len(g['nodes']) - 1})" if len(g["nodes"]) > 1 else ""  # noqa: E731
            steps = "".join(f"  step {i} kind '{g['head']}'{more(g)}: {g['us'][0] / 1000:.6f} ms (q1 0, q3 0)\n"
                            for i, g in enumerate(groups))
            total_ms = sum(g["us"][0] for g in groups) / 1000
            measured = fit_spec.parse_executor(f"== time convs\nend to end: median {total_ms:.6f} ms\n{steps}")
            problem = fit_spec.Problem(measured, str(work), PET_PROFILE)
            base = fit_spec.read_spec("h200")
            start = fit_spec.error(problem.evaluate([base], ["convs"]), 0)
            logged = []
            fitted, end = fit_spec.fit(fit_spec.step_objective(problem, ["convs"]), base, 40, logged.append)
        print(f"fit error {start:.4f} -> {end:.6f}; {len(logged)} lines logged")
        self.assertGreater(start, 0.01)
        self.assertLess(end, start * 0.05)
        self.assertTrue(logged[0].startswith("  start: error"))
        self.assertGreater(fit_spec.get_value(fitted, ("efficiency", "conv_fixed_us")), 0)


GROUP_A = """graph "a" opset 13 {
  input %x : f32[1,64,28,28]
  const %w : f32[64,64,3,3] = random(1, 0.05)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,64,28,28]
  %y = Relu(%c) : f32[1,64,28,28]
  output %y
}
"""
GROUP_B = """graph "b" opset 13 {
  input %x : f32[1,256,14,14]
  %y = Relu(%x) : f32[1,256,14,14]
  output %y
}
"""


class KernelGroupsFromADb(unittest.TestCase):
    def test_the_cards_newest_times_of_the_misses_groups_are_read_and_a_fit_finds_them_again(self):
        """Before: a DB holding the card's kernel-group times (one key twice, one of another card, one no
        request names, one pet-gpu refused) beside the misses file whose requests name their models. After:
        the newest time of each requested key of the card, and a fit that brings the error down to a fraction."""
        truth = fit_spec.with_value(fit_spec.read_spec("h200"), ("efficiency", "conv_fixed_us"), 12.0)
        with tempfile.TemporaryDirectory() as folder:
            folder = Path(folder)
            (folder / "misses.jsonl.models").mkdir()
            (folder / "misses.jsonl.models" / "a.pet").write_text(GROUP_A)
            (folder / "misses.jsonl.models" / "b.pet").write_text(GROUP_B)
            request = {"id": 1, "kind": "kernel-groups", "keys": ["Conv(a)", "Relu(b)", "Conv(uneven)"],
                       "models": ["a.pet", "b.pet", "a.pet"]}
            (folder / "misses.jsonl").write_text(json.dumps({"id": 2, "kind": "selection", "keys": ["model x"],
                                                             "models": ["a.pet"]}) + "\n" + json.dumps(request) + "\n")
            (folder / "truth.json").write_text(fit_spec.spec_text(truth))
            totals = fit_spec.model_totals(PET_PROFILE, [str(folder / "misses.jsonl.models" / m) for m in ("a.pet", "b.pet")],
                                           [str(folder / "truth.json")])
            a_us, b_us = (totals[str(folder / "misses.jsonl.models" / m)][0] for m in ("a.pet", "b.pet"))
            card = "h200 | pet-gpu tf32 math (x), kernels 0 | NVIDIA H200 | 1 thread"

            def entry(key, device, us, date):
                return {"key": key, "device": device, "microseconds": us, "method": "m", "libraries": "x", "date": date}
            db = {"entries": [entry("Conv(a)", card, a_us, "2026-11-29"), entry("Conv(a)", card, 999.0, "2026-11-01"),
                              entry("Relu(b)", card, b_us, "2026-11-29"),
                              entry("Relu(b)", card.replace("h200", "h100", 1), 1.0, "2026-11-30"),
                              entry("model x", card, 5.0, "2026-11-29"),
                              dict(entry("Conv(uneven)", card, 1e12, "2026-11-29"),
                                   method="refused by pet-gpu: its pads differ at the two ends")]}
            (folder / "db.json").write_text(json.dumps(db))
            groups, kernels, left_out = fit_spec.read_groups(str(folder / "db.json"), str(folder / "misses.jsonl"), "h200")
            self.assertEqual([(key, Path(model).name, us) for key, model, us in groups],
                             [("Conv(a)", "a.pet", a_us), ("Relu(b)", "b.pet", b_us)])
            self.assertEqual((kernels, left_out), ("0", 0))
            problem = fit_spec.GroupProblem(groups, PET_PROFILE)
            base = fit_spec.read_spec("h200")
            start = problem.errors([base])[0]
            fitted, end = fit_spec.fit(problem.errors, base, 40, lambda _: None)
        print(f"kernel-group fit error {start:.4f} -> {end:.6f}")
        self.assertGreater(start, 0.01)
        self.assertLess(end, start * 0.05)


class KernelGroupsOfOneKernelsVersion(unittest.TestCase):
    def test_only_times_of_the_newest_entrys_kernels_are_read(self):
        """Before: a key timed with this check's kernels, another only with an older build's (whose code
        differs). After: the first alone, the kernels named, the other counted as left out."""
        with tempfile.TemporaryDirectory() as folder:
            folder = Path(folder)
            request = {"id": 1, "kind": "kernel-groups", "keys": ["Conv(a)", "Relu(b)", "Conv(uneven)"],
                       "models": ["a.pet", "b.pet", "a.pet"]}
            (folder / "misses.jsonl").write_text(json.dumps(request) + "\n")
            new = "h200 | pet-gpu tf32 math (x), kernels 678da8de81847f48 | NVIDIA H200 | 1 thread"
            old = new.replace("678da8de81847f48", "6e9f164521bbcbde")
            db = {"entries": [
                {"key": "Conv(a)", "device": new, "microseconds": 10.0, "method": "m", "libraries": "x", "date": "2026-11-30"},
                {"key": "Conv(a)", "device": old, "microseconds": 30.0, "method": "m", "libraries": "x", "date": "2026-11-28"},
                {"key": "Relu(b)", "device": old, "microseconds": 3.0, "method": "m", "libraries": "x", "date": "2026-11-28"}]}
            (folder / "db.json").write_text(json.dumps(db))
            groups, kernels, left_out = fit_spec.read_groups(str(folder / "db.json"), str(folder / "misses.jsonl"), "h200")
        self.assertEqual([(key, us) for key, _, us in groups], [("Conv(a)", 10.0)])
        self.assertEqual((kernels, left_out), ("678da8de81847f48", 1))

if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
