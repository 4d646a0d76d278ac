"""bench/gpu/e2e.py without a GPU: its refusals (no CUDA device, no kit), and its interleaving, summaries, compile budget and results file driven by stand-in timers."""
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import types
import unittest
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
E2E = BENCH / "gpu" / "e2e.py"
sys.path.insert(0, str(BENCH / "gpu"))
sys.path.insert(0, str(BENCH))
import e2e  # noqa: E402
from harnesslib import gpu_results  # noqa: E402


def fake_kit(folder: Path, models=("m",)) -> Path:
    """A kit with a pet-gpu file (never run here) and each model's input work file, no written models."""
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "pet-gpu").write_text("")
    for model in models:
        (folder / "work" / model).mkdir(parents=True)
        (folder / "work" / model / "model.pet").write_text("")
    return folder


class Timer:
    """Returns its summaries in turn and logs each call; raises once they run out."""

    def __init__(self, name: str, log: list, summaries: list):
        self.name, self.log, self.summaries = name, log, list(summaries)

    def time_once(self) -> dict:
        self.log.append(self.name)
        if not self.summaries:
            raise RuntimeError(f"{self.name}: device lost")
        return self.summaries.pop(0)


def summary(ms: float, q1: float, q3: float) -> dict:
    return {"median": ms, "q1": q1, "q3": q3, "runs": 50}


class Refusals(unittest.TestCase):
    def run_e2e(self, python: str, kit: Path, out: Path):
        return subprocess.run([python, str(E2E), "--kit", str(kit), "--out", str(out)], capture_output=True, text=True,
                              timeout=120)

    def test_without_a_cuda_device_it_says_so_writes_nothing_and_exits_3(self):
        with tempfile.TemporaryDirectory() as folder:
            kit, out = fake_kit(Path(folder) / "kit"), Path(folder) / "e2e.json"
            pythons = [sys.executable] + [p for p in ["/usr/bin/python3"] if Path(p).is_file() and p != sys.executable]
            for python in pythons:
                finished = self.run_e2e(python, kit, out)
                self.assertEqual(finished.returncode, 3, finished.stderr)
                self.assertRegex(finished.stderr, r"^e2e: no CUDA device: (no torch here \(.*\)|torch\.cuda\."
                                                  r"is_available\(\) is False); nothing measured, .*e2e\.json not written")
                self.assertFalse(out.exists())

    def test_without_a_kit_it_says_how_to_make_one_and_exits_2(self):
        with tempfile.TemporaryDirectory() as folder:
            finished = self.run_e2e(sys.executable, Path(folder) / "none", Path(folder) / "e2e.json")
            self.assertEqual(finished.returncode, 2)
            self.assertIn("e2e: no pet-gpu in ", finished.stderr)
            self.assertIn("unpack the kit (scripts/device/make-kit.sh) and name it with --kit", finished.stderr)


    def test_a_bad_batch_list_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as folder:
            finished = subprocess.run([sys.executable, str(E2E), "--kit", folder, "--out", "x.json", "--batches", "1,x"],
                                      capture_output=True, text=True, timeout=60)
            self.assertEqual(finished.returncode, 2)
            self.assertIn("e2e.py: error: --batches: '1,x' is not a comma-separated list of positive integers",
                          finished.stderr)


class Measuring(unittest.TestCase):
    def test_the_kit_names_batch_one_plainly_and_other_batches_with_their_size(self):
        kit = Path("/k")
        self.assertEqual(e2e.kit_files(kit, "resnet18", 1),
                         {"input": kit / "work/resnet18/model.pet", "pet-taso": kit / "work-written/resnet18.taso/model.pet",
                          "pet": kit / "work-written/resnet18.pet/model.pet"})
        self.assertEqual(e2e.kit_files(kit, "resnet18", 16)["pet"], kit / "work-written/resnet18_b16.pet/model.pet")

    def test_a_model_pet_opt_live_wrote_on_the_card_stands_in_for_the_kits_and_says_so(self):
        """Before: the e2e stage timed the kit's written models, chosen here on estimates, even after the live
        stage chose others on the card. After: a live run's output, where the session has one, is timed instead."""
        with tempfile.TemporaryDirectory() as folder:
            kit, live = fake_kit(Path(folder) / "kit", models=("resnet18",)), Path(folder) / "live-written"
            live.mkdir()
            (live / "resnet18.pet.onnx").write_text("")
            (live / "resnet18.pet.json").write_text('{"transformations": [{"kind": "mutant", "name": "conv-layout", '
                                                    '"evidence_kind": "partial_correction"}]}')
            (kit / "work-written" / "resnet18.taso").mkdir(parents=True)
            (kit / "work-written" / "resnet18.taso" / "model.pet").write_text("")
            (kit / "work-written" / "resnet18.taso" / "report.json").write_text('{"transformations": []}')
            files = e2e.kit_files(kit, "resnet18", 1, live)
            self.assertEqual(files["pet"], live / "resnet18.pet.onnx")
            self.assertEqual(files["pet-taso"], kit / "work-written/resnet18.taso/model.pet", "no live run of taso")
            self.assertEqual(e2e.kit_files(kit, "resnet18", 16, live)["pet"], kit / "work-written/resnet18_b16.pet/model.pet")
            self.assertEqual(e2e.written_program(files["pet"]),
                             {"transformations": 1, "by_family": "mutant:conv-layout=1", "corrected_mutant": True,
                              "chosen_on": "card"})
            self.assertEqual(e2e.written_program(files["pet-taso"])["chosen_on"], "kit")
            (live / "csrnet_b16.taso.onnx").write_text("")
            self.assertEqual(e2e.live_first(["bert_s128", "csrnet", "resnet50", "resnet18"], live),
                             ["csrnet", "resnet18", "bert_s128", "resnet50"], "what the card chose is timed first")
            self.assertEqual(e2e.live_first(["bert_s128", "csrnet"], None), ["bert_s128", "csrnet"])
            self.assertEqual(e2e.written_source(live), "pet-opt --live on this card for csrnet_b16.taso, resnet18.pet; "
                                                       "the kit's (make-kit.sh --written) for the rest")
            self.assertEqual(e2e.written_source(Path(folder) / "no-live-stage"), "the kit's (make-kit.sh --written)")

    def test_rounds_go_round_robin_each_starting_one_later(self):
        log = []
        timers = {v: Timer(v, log, [summary(1, 1, 1)] * 3) for v in ["input", "pet", "torch-eager"]}
        e2e.interleave(timers, {}, rounds=3)
        self.assertEqual(log, ["input", "pet", "torch-eager", "pet", "torch-eager", "input",
                               "torch-eager", "input", "pet"])

    def test_a_variant_that_fails_leaves_the_rounds_with_its_reason_and_the_others_go_on(self):
        log = []
        timers = {"input": Timer("input", log, [summary(1, 1, 1)] * 3), "pet": Timer("pet", log, [summary(1, 1, 1)])}
        outcomes = {}
        found = e2e.interleave(timers, outcomes, rounds=3)
        self.assertEqual((len(found["input"]), len(found["pet"])), (3, 1))
        self.assertEqual(outcomes, {"pet": ("failed", "pet: device lost")})
        self.assertEqual(log.count("pet"), 2)

    def test_the_median_of_round_medians_and_the_wider_of_the_two_spreads(self):
        rounds = [summary(1.00, 0.99, 1.01), summary(1.10, 1.09, 1.11), summary(1.02, 1.01, 1.03)]
        self.assertEqual(e2e.entry("m", 1, "pet", rounds, None),
                         {"model": "m", "batch": 1, "variant": "pet", "status": "ok", "median_us": 1020.0,
                          "spread_us": 25.0, "runs": 150, "rounds_us": [1000.0, 1100.0, 1020.0]})
        steady = [summary(1.0, 0.9, 1.1)] * 3
        self.assertEqual(e2e.entry("m", 1, "pet", steady, None)["spread_us"], 100.0)
        self.assertEqual(e2e.entry("m", 1, "pet", [], ("missing", "not in the kit")),
                         {"model": "m", "batch": 1, "variant": "pet", "status": "missing", "reason": "not in the kit"})

    def test_torch_compile_runs_only_while_its_budget_allows(self):
        self.assertEqual(e2e.CompileBudget(0).refusal(), ("skipped", "no compile budget (--compile-budget 0)"))
        budget = e2e.CompileBudget(100)
        self.assertIsNone(budget.refusal())
        budget.charge(40)
        self.assertIsNone(budget.refusal())
        budget.charge(30)
        self.assertEqual(budget.refusal(), ("skipped", "compile budget 100 s: 70 s spent, the longest compile "
                                                       "without the carried cache took 40 s"))

    def test_a_model_in_the_carried_cache_is_priced_by_the_longest_cached_compile(self):
        cache = types.SimpleNamespace(cached=lambda name, batch: name == "cached")
        budget = e2e.CompileBudget(100, cache)
        budget.charge(60)
        budget.charge(5, cached=True)
        # Before: 65 s spent. After: a fresh compile (60 s) would not fit; a cached one (5 s) does.
        self.assertEqual(budget.refusal("fresh", 1), ("skipped", "compile budget 100 s: 65 s spent, the longest "
                                                                 "compile without the carried cache took 60 s"))
        self.assertIsNone(budget.refusal("cached", 1))

    def test_a_model_measured_with_stand_in_timers_gives_every_variant_one_valid_entry(self):
        torch = types.SimpleNamespace(cuda=types.SimpleNamespace(empty_cache=lambda: None))
        log = []
        stand_ins = {v: Timer(v, log, [summary(2.0, 1.9, 2.1)] * 2) for v in ["torch-eager", "torch-cuda-graph"]}
        original = (e2e.torch_timers, e2e.PetGpuTimer)
        e2e.torch_timers = lambda *_: (dict(stand_ins), {"torch-cuda-graph-channels-last": ("skipped", "no 4-D or 5-D input"),
                                                         "torch-compile": ("skipped", "no compile budget (--compile-budget 0)")})
        e2e.PetGpuTimer = lambda pet_gpu, path, args: Timer("input", log, [summary(1.0, 0.95, 1.05)] * 2)
        try:
            with tempfile.TemporaryDirectory() as folder:
                kit = fake_kit(Path(folder) / "kit")
                args = types.SimpleNamespace(rounds=2, runs=50, warmup=10, written=None)
                entries = e2e.measure_model(torch, kit, "m", 1, e2e.CompileBudget(0), args)
        finally:
            e2e.torch_timers, e2e.PetGpuTimer = original
        self.assertEqual([(e["variant"], e["status"]) for e in entries],
                         [("input", "ok"), ("pet-taso", "missing"), ("pet", "missing"), ("torch-eager", "ok"),
                          ("torch-cuda-graph", "ok"), ("torch-cuda-graph-channels-last", "skipped"),
                          ("torch-compile", "skipped")])
        self.assertEqual(entries[1]["reason"], "not in the kit: work-written/m.taso/model.pet (make-kit.sh --written, batch 1)")
        self.assertEqual(entries[0]["median_us"], 1000.0)
        fixture = gpu_results.load(Path(__file__).resolve().parent / "fixtures" / "gpu_e2e_fixture.json")
        gpu_results.check(dict(fixture, results=entries))


class FakeTensor:
    """An input of a given rank that records the memory format it was made contiguous in."""

    def __init__(self, rank: int):
        self.rank, self.layout = rank, "contiguous"

    def dim(self) -> int:
        return self.rank

    def contiguous(self, memory_format):
        converted = FakeTensor(self.rank)
        converted.layout = memory_format
        return converted


class FakeModule:
    def __init__(self):
        self.layout, self.called_with = "contiguous", None

    def to(self, memory_format):
        self.layout = memory_format
        return self

    def __call__(self, *inputs):
        self.called_with = inputs


class ChannelsLast(unittest.TestCase):
    def timer_of(self, ranks):
        """channels_last_timer over a stand-in model with inputs of `ranks`: (timer or refusal, the original
        module, the copy it ran)."""
        module, ran = FakeModule(), []
        torch = types.SimpleNamespace(channels_last="NHWC", channels_last_3d="NDHWC", no_grad=contextlib.nullcontext)
        original = e2e.captured_graph

        def capture(_torch, forward):
            forward()
            return types.SimpleNamespace(replay=lambda: None)
        e2e.captured_graph = capture
        copies = e2e.copy.deepcopy
        e2e.copy.deepcopy = lambda m: ran.append(FakeModule()) or ran[-1]
        try:
            return e2e.channels_last_timer(torch, module, [FakeTensor(r) for r in ranks], types.SimpleNamespace()), \
                module, (ran or [None])[0]
        except e2e.NoImageInput as why:
            return str(why), module, (ran or [None])[0]
        finally:
            e2e.captured_graph, e2e.copy.deepcopy = original, copies

    def test_an_image_model_runs_as_a_copy_with_its_weights_and_images_in_nhwc(self):
        timer, module, copied = self.timer_of([4, 2])
        # Before: NCHW weights and inputs. After: a copy of the module and its 4-D input NHWC, the other
        # input as it was; the original (which the NCHW graph reads) untouched.
        self.assertIsInstance(timer, e2e.TorchTimer)
        self.assertEqual((module.layout, copied.layout), ("contiguous", "NHWC"))
        self.assertEqual([x.layout for x in copied.called_with], ["NHWC", "contiguous"])

    def test_a_video_model_runs_in_ndhwc(self):
        timer, _, copied = self.timer_of([5])
        self.assertIsInstance(timer, e2e.TorchTimer)
        self.assertEqual((copied.layout, copied.called_with[0].layout), ("NDHWC", "NDHWC"))

    def test_a_model_of_tokens_has_no_channels_last_and_says_why(self):
        why, module, copied = self.timer_of([2, 2])
        self.assertEqual(why, "no 4-D or 5-D input (input ranks [2]): channels-last is a layout of images and videos")
        self.assertEqual((module.layout, copied), ("contiguous", None))


class FakeCompiler:
    """torch.compiler's two cache calls: what was loaded, and the artifacts a save returns."""

    def __init__(self, artifacts: bytes):
        self.artifacts, self.loaded = artifacts, []

    def load_cache_artifacts(self, data: bytes):
        self.loaded.append(data)
        return types.SimpleNamespace(artifacts={"inductor": ["k1", "k2"], "aot_autograd": ["k3"]})

    def save_cache_artifacts(self):
        return (self.artifacts, None) if self.artifacts else None


def compiling_torch(version: str, artifacts: bytes):
    """A torch whose compile returns the model itself and whose cache calls FakeCompiler answers."""
    cuda = types.SimpleNamespace(get_device_name=lambda index: "NVIDIA H200", synchronize=lambda: None)
    return types.SimpleNamespace(__version__=version, cuda=cuda, compiler=FakeCompiler(artifacts),
                                 compile=lambda model: model, no_grad=contextlib.nullcontext)


class CompileCaches(unittest.TestCase):
    def test_a_compile_saves_its_artifacts_and_a_later_check_loads_them_before_compiling(self):
        with tempfile.TemporaryDirectory() as folder:
            carried, returned = Path(folder) / "carried", Path(folder) / "returned"
            first = compiling_torch("2.11.0+cu130", b"compiled kernels")
            budget = e2e.CompileBudget(100, e2e.CompileCache(first, carried, returned))
            timer = e2e.compiled_timer(first, lambda x: x, [1], "resnet18", 16, budget, None)
            # Before: nothing carried, so nothing loaded. After: the artifacts saved under torch and card.
            self.assertEqual((first.compiler.loaded, timer.compile["compile_cache_artifacts"]), ([], 0))
            saved = returned / "2.11.0+cu130--NVIDIA_H200" / "resnet18_b16.bin"
            self.assertEqual(saved.read_bytes(), b"compiled kernels")
            self.assertGreater(budget.longest[False], 0)
            # The next check carries them: loaded before its compile, which is charged as cached.
            later = compiling_torch("2.11.0+cu130", b"")
            budget = e2e.CompileBudget(100, e2e.CompileCache(later, returned, None))
            self.assertTrue(budget.cached("resnet18", 16))
            self.assertFalse(budget.cached("resnet18", 1))
            timer = e2e.compiled_timer(later, lambda x: x, [1], "resnet18", 16, budget, None)
            self.assertEqual((later.compiler.loaded, timer.compile["compile_cache_artifacts"]), ([b"compiled kernels"], 3))
            self.assertEqual(budget.longest[False], 0)
            # Another torch never loads them.
            other = e2e.CompileCache(compiling_torch("2.12.0+cu130", b""), returned, None)
            self.assertFalse(other.cached("resnet18", 16))


class WrittenPrograms(unittest.TestCase):
    def test_pets_entries_say_what_it_wrote_and_the_corrections_share_of_the_step_times(self):
        with tempfile.TemporaryDirectory() as folder:
            kit = fake_kit(Path(folder) / "kit")
            report = ('{"transformations": [{"kind": "rule", "name": "conv-relu-1-to-convrelu-2", "evidence_kind": "proved"},'
                      ' {"kind": "mutant", "name": "conv-layout", "evidence_kind": "partial_correction"}]}')
            for mode in ("taso", "pet"):
                (kit / "work-written" / f"m.{mode}").mkdir(parents=True)
                (kit / "work-written" / f"m.{mode}" / "model.pet").write_text("")
            (kit / "work-written" / "m.pet" / "report.json").write_text(report)
            entries = [{"model": "m", "batch": 1, "variant": v, "status": "ok"} for v in ("input", "pet-taso", "pet")]
            original, calls = e2e.pet_gpu_step_times, []

            def step_times(*args):
                calls.append(args)
                return [("cudnn-conv", 0.8), ("patch:cudnn-conv", 0.05), ("correction", 0.05), ("elementwise", 0.1)]
            e2e.pet_gpu_step_times = step_times
            try:
                entries = e2e.with_written_program(kit, "m", 1, entries,
                                                   types.SimpleNamespace(runs=5, warmup=1, conv_cache="decisions.tsv",
                                                                         written=None))
            finally:
                e2e.pet_gpu_step_times = original
        self.assertEqual([call[2:] for call in calls], [(5, 1, "decisions.tsv")])  # pet's written model, the cache
        self.assertEqual(entries[0], {"model": "m", "batch": 1, "variant": "input", "status": "ok"})
        self.assertEqual(entries[1], {"model": "m", "batch": 1, "variant": "pet-taso", "status": "ok"})  # no report.json
        self.assertEqual(entries[2]["by_family"], "mutant:conv-layout=1;rule:conv-relu=1")
        self.assertEqual((entries[2]["transformations"], entries[2]["corrected_mutant"]), (2, True))
        self.assertEqual((entries[2]["correction_steps"], entries[2]["correction_share"]), (2, 0.1))


class FakeEvent:
    """A CUDA event whose elapsed time is 2 ms."""

    def __init__(self, enable_timing: bool):
        self.enable_timing = enable_timing

    def record(self):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, other) -> float:
        return 2.0


def fake_torch():
    """Just what e2e.py asks of torch outside the timers: the card's name, events, versions, a matmul."""
    cuda = types.SimpleNamespace(get_device_name=lambda index: "Fake GPU", Event=FakeEvent, synchronize=lambda: None,
                                 empty_cache=lambda: None)
    return types.SimpleNamespace(cuda=cuda, __version__="0.0-fake", version=types.SimpleNamespace(cuda="0.0"),
                                 backends=types.SimpleNamespace(cudnn=types.SimpleNamespace(version=lambda: 1)),
                                 randn=lambda *shape, device: None, matmul=lambda a, b: None)


class WholeRun(unittest.TestCase):
    def run_all(self, seconds: str) -> dict:
        """e2e.run_all over models a and b at batches 1 and 16 with stand-in timers and a fake torch; the file."""
        original = (e2e.torch_timers, e2e.PetGpuTimer)
        e2e.torch_timers = lambda *_: ({"torch-eager": Timer("torch-eager", [], [summary(2.0, 1.9, 2.1)] * 3)},
                                       {v: ("skipped", "stand-in") for v in ["torch-cuda-graph", "torch-cuda-graph-channels-last",
                                                                            "torch-compile"]})
        e2e.PetGpuTimer = lambda pet_gpu, path, args: Timer("input", [], [summary(1.0, 0.95, 1.05)] * 3)
        try:
            with tempfile.TemporaryDirectory() as folder:
                kit, out = fake_kit(Path(folder) / "kit", models=("a", "b")), Path(folder) / "e2e.json"
                args = e2e.parse_args(["--kit", str(kit), "--out", str(out), "--models", "a,b", "--batches", "1,16",
                                       "--seconds", seconds])
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    self.assertEqual(e2e.run_all(fake_torch(), kit, args), 0)
                self.last_line = printed.getvalue().splitlines()[-1]
                return gpu_results.load(out)
        finally:
            e2e.torch_timers, e2e.PetGpuTimer = original

    def test_every_model_at_batch_one_comes_before_any_at_sixteen_in_one_valid_file(self):
        document = self.run_all("0")
        self.assertEqual((document["card"], document["math"], document["ceiling"]["tf32_gemm_tflops"]),
                         ("Fake GPU", "tf32", round(2 * 8192 ** 3 / 0.002 / 1e12, 1)))
        self.assertEqual(list(dict.fromkeys((e["model"], e["batch"]) for e in document["results"])),
                         [("a", 1), ("b", 1), ("a", 16), ("b", 16)])
        self.assertEqual({(e["batch"], e["variant"]): e["status"] for e in document["results"] if e["model"] == "b"},
                         {(b, v): s for b in (1, 16) for v, s in [
                             ("input", "ok" if b == 1 else "missing"), ("pet-taso", "missing"), ("pet", "missing"),
                             ("torch-eager", "ok"), ("torch-cuda-graph", "skipped"),
                             ("torch-cuda-graph-channels-last", "skipped"), ("torch-compile", "skipped")]})
        # the session's e2e and compile stages quote this line's counts as their outcome
        self.assertRegex(self.last_line, r"^e2e: wrote .*e2e\.json: 6 measured \(0 with torch\.compile\), 0 failed$")

    def test_models_not_started_in_time_are_skipped_with_the_reason(self):
        document = self.run_all("1e-9")
        self.assertEqual({e["status"] for e in document["results"]}, {"skipped"})
        self.assertRegex(document["results"][0]["reason"], r"^not started: [0-9]+ s of --seconds 1e-09 spent$")


class ResultsFormat(unittest.TestCase):
    FIXTURE = Path(__file__).resolve().parent / "fixtures" / "gpu_e2e_fixture.json"

    def test_runs_on_one_card_merge_each_model_and_batch_whole_from_the_run_that_measured_more(self):
        document = gpu_results.load(self.FIXTURE)

        def run(started, model_variants):
            results = []
            for model, measured in model_variants:
                for variant, _ in gpu_results.VARIANTS:
                    ok = variant in measured
                    results.append(dict(model=model, batch=1, variant=variant, status="ok" if ok else "skipped",
                                        **({"median_us": 1.0, "spread_us": 0.1, "runs": 9} if ok else
                                           {"reason": "no compile budget"})))
            return dict(document, started=started, results=results)

        five = ["input", "pet-taso", "pet", "torch-eager", "torch-cuda-graph"]
        e2e = run("first", [("resnet18", five), ("resnet50", five)])
        compile_run = run("second", [("resnet18", five + ["torch-compile"])])
        merged = gpu_results.merged([e2e, compile_run])
        rows = {(e["model"], e["variant"]): (e["run"], e["status"]) for e in merged["results"]}
        self.assertEqual(rows[("resnet18", "torch-compile")], (1, "ok"))
        self.assertEqual(rows[("resnet18", "input")], (1, "ok"), "the whole row from the compile run")
        self.assertEqual(rows[("resnet50", "input")], (0, "ok"))
        self.assertEqual(rows[("resnet50", "torch-compile")], (0, "skipped"))
        self.assertEqual(len(merged["results"]), 2 * len(gpu_results.VARIANTS))
        self.assertEqual([r["started"] for r in merged["runs"]], ["first", "second"])
        gpu_results.check(merged)
        with self.assertRaises(gpu_results.GpuResultsError) as raised:
            gpu_results.merged([e2e, dict(compile_run, card="NVIDIA H100 80GB HBM3")])
        self.assertIn("different cards", str(raised.exception))

    def test_the_fixture_is_of_the_format_and_says_it_is_a_fixture(self):
        document = gpu_results.load(self.FIXTURE)
        self.assertTrue(document["fixture"])
        self.assertTrue(gpu_results.card_text(document).startswith("FIXTURE, invented figures: NVIDIA H100"))

    def test_bad_files_say_what_is_wrong(self):
        document = gpu_results.load(self.FIXTURE)
        cases = [
            (dict(document, format="other"), "not a pet-gpu-e2e/1 file (its format is 'other')"),
            ({k: v for k, v in document.items() if k != "ceiling"}, "no ceiling"),
            (dict(document, results=[{"model": "m", "batch": 1, "variant": "tvm", "status": "ok"}]),
             "results[0]: variant 'tvm' is not one of input, pet-taso, pet, torch-eager, torch-cuda-graph, "
             "torch-cuda-graph-channels-last, torch-compile"),
            (dict(document, results=[{"model": "m", "batch": 1, "variant": "pet", "status": "slow"}]),
             "results[0]: status 'slow' is not one of ok, failed, skipped, missing"),
            (dict(document, results=[{"model": "m", "batch": 1, "variant": "pet", "status": "failed"}]),
             "results[0]: a result that is not ok needs its 'reason'"),
            (dict(document, results=[{"model": "m", "batch": 1, "variant": "pet", "status": "ok", "median_us": 1.0}]),
             "results[0]: an ok result needs a non-negative number 'spread_us'"),
        ]
        for bad, message in cases:
            with self.assertRaises(gpu_results.GpuResultsError) as raised:
                gpu_results.check(bad)
            self.assertEqual(str(raised.exception), message)

    def test_rows_carry_times_in_ms_the_card_and_the_floor_at_the_measured_gemm_rate(self):
        document = gpu_results.load(self.FIXTURE)
        rows = gpu_results.rows(document, {("resnet18", 1): 3.64e9})
        pet = next(r for r in rows if (r["model"], r["batch"], r["variant"]) == ("resnet18", 1, "pet"))
        self.assertEqual((pet["target"], pet["threads"], pet["median_ms"], pet["spread_ms"], pet["check"]),
                         ("gpu", 0, 0.5897, 0.0048, "ok"))
        self.assertEqual((pet["floor_ms"], pet["floor_fraction"]), (0.009055, 0.01535))  # 3.64 GFLOP at 402 TFLOP/s, over 0.5897 ms
        skipped = next(r for r in rows if (r["model"], r["batch"], r["variant"]) == ("resnet18", 16, "torch-compile"))
        self.assertEqual(skipped["check"], "skipped: compile budget 120 s: 98 s spent, the longest compile took 41 s")


class PetGpuOutput(unittest.TestCase):
    """pet-gpu time's lines as the H200 check printed them (bench/results/2026-11-28-h200/run1-check)."""

    def test_every_step_kind_is_read_hyphenated_ones_included(self):
        import gpu_timing
        text = ("per step (eager, CUDA events around each step; medians add up to 1.1141 ms):\n"
                "  step 0 cudnn-conv '/back_end/back_end.0/Conv_output_0' (+1): 0.3681 ms (q1 0.3651, q3 0.3732)\n"
                "  step 1 cublaslt-gemm 'y': 0.0111 ms (q1 0.0107, q3 0.0118)\n"
                "  step 2 layer_norm 'n': 0.0068 ms (q1 0.0065, q3 0.0074)\n"
                "end to end: median 1.0567 ms (q1 1.0493, q3 1.0655) over 50 runs after 10 warm-ups\n")
        self.assertEqual(gpu_timing.step_times(text),
                         [("cudnn-conv", 0.3681), ("cublaslt-gemm", 0.0111), ("layer_norm", 0.0068)])
        # A step computing only a correction's patch is marked; the correction itself is its kind.
        patched = ("  step 4 slice 's' [patch]: 0.0040 ms (q1 0.0040, q3 0.0041)\n"
                   "  step 5 cudnn-conv 'p0' (+1) [patch]: 0.0120 ms (q1 0.0110, q3 0.0130)\n"
                   "  step 6 correction 'r': 0.0050 ms (q1 0.0050, q3 0.0051)\n")
        self.assertEqual(gpu_timing.step_times(patched),
                         [("patch:slice", 0.004), ("patch:cudnn-conv", 0.012), ("correction", 0.005)])
        self.assertEqual(gpu_timing.PET_GPU_LINE.search(text).groups(), ("1.0567", "1.0493", "1.0655", "50"))




FAKE_SERVE = """#!/usr/bin/env python3
import sys
if sys.argv[1] != "serve":
    sys.exit(2)
if "--old" in open(sys.argv[0]).read().split("MARK")[-1]:
    print("pet-gpu: error: 'serve' is not a pet-gpu command; the commands are ...", file=sys.stderr)
    sys.exit(2)
print("ready: model 'm', tf32 math, 3 steps, load 5 ms", flush=True)
median = 1.0
for line in sys.stdin:
    if line.strip() == "quit":
        break
    runs, warmup = line.split()[1:]
    print(f"end to end: median {median:.4f} ms (q1 0.9000, q3 1.1000) over {runs} runs after {warmup} warm-ups",
          flush=True)
    median += 1
open(sys.argv[0] + ".ended", "w").write(" ".join(sys.argv[1:]))
# MARK
"""


class ServedPetGpu(unittest.TestCase):
    """PetGpuTimer on a stand-in pet-gpu: serve loads once and answers each round; an older pet-gpu
    without serve falls back to one time process per round."""

    def fake(self, folder: Path, old: bool = False) -> Path:
        binary = folder / "pet-gpu"
        binary.write_text(FAKE_SERVE + ("--old\n" if old else ""))
        binary.chmod(0o755)
        return binary

    def test_one_process_answers_every_round_and_quits_at_close(self):
        with tempfile.TemporaryDirectory() as folder:
            binary = self.fake(Path(folder))
            timer = e2e.PetGpuTimer(binary, Path(folder) / "m.pet",
                                    types.SimpleNamespace(runs=30, warmup=5, conv_cache="decisions.tsv"))
            self.assertIsNone(timer.load_ms)
            rounds = [timer.time_once(), timer.time_once()]
            timer.close()
            self.assertEqual(rounds, [{"median": 1.0, "q1": 0.9, "q3": 1.1, "runs": 30},
                                      {"median": 2.0, "q1": 0.9, "q3": 1.1, "runs": 30}])
            self.assertEqual(timer.load_ms, 5.0, "the ready line's load time")
            self.assertEqual((Path(folder) / "pet-gpu.ended").read_text(),
                             f"serve {Path(folder) / 'm.pet'} --tf32 --conv-cache decisions.tsv")

    def test_a_pet_gpu_without_serve_is_timed_one_process_per_round(self):
        with tempfile.TemporaryDirectory() as folder:
            binary = self.fake(Path(folder), old=True)
            calls = []
            original = e2e.pet_gpu_summary
            e2e.pet_gpu_summary = lambda *args: calls.append(args) or {"median": 4.0, "q1": 4.0, "q3": 4.0, "runs": 30}
            try:
                timer = e2e.PetGpuTimer(binary, Path(folder) / "m.pet",
                                        types.SimpleNamespace(runs=30, warmup=5, conv_cache=None))
                self.assertEqual([timer.time_once()["median"], timer.time_once()["median"]], [4.0, 4.0])
                timer.close()
            finally:
                e2e.pet_gpu_summary = original
            self.assertEqual(len(calls), 2)


FAKE_LOGGING_SERVE = """#!/usr/bin/env python3
import sys
with open(sys.argv[0] + ".log", "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
legacy = "--conv-engines" in sys.argv
columns = "--conv-columns" not in sys.argv
whole = "--gemm-splits" in sys.argv
print("ready: model 'm', tf32 math, 3 steps, load 5 ms", flush=True)
for line in sys.stdin:
    if line.strip() == "quit":
        break
    runs, warmup = line.split()[1:]
    median = 3.0 if legacy else 1.5 if whole else 1.0 if columns else 2.0
    print(f"end to end: median {median:.4f} ms (q1 {median:.4f}, q3 {median:.4f}) over {runs} runs after {warmup} warm-ups",
          flush=True)
"""


class ConvApis(unittest.TestCase):
    """bench/gpu/conv_apis.py on a stand-in pet-gpu: four serve processes per model (the legacy
    API alone, with the graph API, the default without split-K GEMMs, and the default with the
    column path and split-K too), timed in the same rounds, every entry and its ratio to the
    default written."""

    def test_the_legacy_api_the_graph_api_no_split_k_and_the_default_are_timed_side_by_side(self):
        import conv_apis
        with tempfile.TemporaryDirectory() as folder:
            kit = fake_kit(Path(folder) / "kit", models=("resnet18",))
            (kit / "bin" / "pet-gpu").write_text(FAKE_LOGGING_SERVE)
            (kit / "bin" / "pet-gpu").chmod(0o755)
            out = Path(folder) / "conv_apis.json"
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                status = conv_apis.main(["--kit", str(kit), "--out", str(out), "--models", "resnet18,csrnet",
                                         "--rounds", "2", "--runs", "4"])
            self.assertEqual(status, 0)
            commands = sorted((kit / "bin" / "pet-gpu.log").read_text().splitlines())
            model = kit / "work" / "resnet18" / "model.pet"
            self.assertEqual(commands, [f"serve {model} --tf32", f"serve {model} --tf32 --conv-columns off",
                                        f"serve {model} --tf32 --conv-engines 0 --conv-columns off",
                                        f"serve {model} --tf32 --gemm-splits 0"])
            results = json.loads(out.read_text())["results"]
            self.assertEqual([(r["variant"], r["median_us"], r["runs"]) for r in results],
                             [("legacy-api", 3000.0, 8), ("graph-api", 2000.0, 8), ("no-split-k", 1500.0, 8),
                              ("default", 1000.0, 8)])
            self.assertIn("csrnet: not in the kit's work folder, left out", printed.getvalue())
            self.assertIn("resnet18: legacy-api 3000.0 ± 0.0 us; graph-api 2000.0 ± 0.0 us; no-split-k 1500.0 ± 0.0 us; "
                          "default 1000.0 ± 0.0 us, legacy-api/default 3.000x, graph-api/default 2.000x, "
                          "no-split-k/default 1.500x", printed.getvalue())


if __name__ == "__main__":
    unittest.main()
