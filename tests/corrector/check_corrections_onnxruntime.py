#!/usr/bin/env python3
"""Runs corrected programs exported by pet in onnxruntime against their originals.

DIR holds, per case, NAME.original.onnx, NAME.corrected.onnx and NAME.mutant.onnx as
pet_write_correction_cases writes them. Each pair gets the same seeded random inputs; the
corrected outputs must match the original's (rtol 1e-4, atol 1e-5), and the uncorrected mutant's
must not, so a pass means the lowered correction nodes did the work. Exits 1 on any failure.
"""
import argparse
import pathlib
import sys

RTOL, ATOL = 1e-4, 1e-5
SEED = 2026


def session(path):
    import onnxruntime

    return onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def random_inputs(sess, seed):
    import numpy

    rng = numpy.random.default_rng(seed)
    feeds = {}
    for spec in sess.get_inputs():
        if spec.type != "tensor(float)":
            raise ValueError(f"input {spec.name} has type {spec.type}; the cases have float inputs only")
        feeds[spec.name] = rng.standard_normal(spec.shape).astype(numpy.float32)
    return feeds


def max_error(expected, actual):
    import numpy

    return max(float(numpy.max(numpy.abs(e - a))) if e.size else 0.0 for e, a in zip(expected, actual))


def all_close(expected, actual):
    import numpy

    return all(e.shape == a.shape and numpy.allclose(a, e, rtol=RTOL, atol=ATOL) for e, a in zip(expected, actual))


def check_case(directory, name, seed):
    """Returns (passed, one-line report)."""
    original = session(directory / f"{name}.original.onnx")
    corrected = session(directory / f"{name}.corrected.onnx")
    names = [i.name for i in original.get_inputs()]
    if names != [i.name for i in corrected.get_inputs()]:
        return False, f"inputs differ: {names} vs {[i.name for i in corrected.get_inputs()]}"
    feeds = random_inputs(original, seed)
    want = original.run(None, feeds)
    got = corrected.run(None, feeds)
    error = max_error(want, got)
    report = f"max abs error {error:.3g}"
    if not all_close(want, got):
        return False, report + f" (outside rtol {RTOL}, atol {ATOL})"
    mutant_path = directory / f"{name}.mutant.onnx"
    if mutant_path.exists():
        wrong = session(mutant_path).run(None, feeds)
        report += f", uncorrected mutant {max_error(want, wrong):.3g}"
        if all_close(want, wrong):
            return False, report + " (the uncorrected mutant already matches: the case tests nothing)"
    return True, report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=pathlib.Path, help="folder written by pet_write_correction_cases")
    args = parser.parse_args()
    try:
        import onnxruntime
    except ImportError:
        print("onnxruntime not installed: skipped")
        return 0
    print(f"onnxruntime {onnxruntime.__version__}, seed {SEED}")
    cases = sorted(p.name[: -len(".original.onnx")] for p in args.dir.glob("*.original.onnx"))
    if not cases:
        print(f"no *.original.onnx cases in {args.dir}")
        return 1
    passed = failed = 0
    for index, name in enumerate(cases):
        try:
            ok, report = check_case(args.dir, name, SEED + index)
        except Exception as error:  # a model onnxruntime cannot load or run is a failure of that case
            ok, report = False, f"{type(error).__name__}: {error}"
        print(f"{'PASS' if ok else 'FAIL'} {name}: {report}")
        passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
