#!/usr/bin/env python3
"""Fits a GPU device spec's efficiency values to the per-step times a check measured on the card.

The analytic spec (search/cost/devices/<card>.json) prices every kernel group a GPU target's
profile DB lacks. A check's executor stage times every work model step by step on the card
(`pet-gpu time`: per step, CUDA events around each step; end to end, CUDA-graph replays). This
script matches each step to the kernel group pet-profile --estimate prices as that step (the same
first node and the same node count: a GPU target's kernel groups are pet-gpu's steps; a step the
card ran otherwise than this build plans, such as an older kernels' version, is left out and
counted), scales each model's step
times to its CUDA-graph end-to-end time (what the search's costs stand for), and fits the spec's
launch overhead and efficiency values by greedy coordinate descent in log space: each round tries
every value times each factor and keeps the one move that lowers the error most. The error is, per
model, the squared natural log of estimate over measured summed over steps weighted by their share
of the model's time, averaged over models (every model counts once). It also fits on batch-1
models alone and reports the error on the batch-16 ones it never saw.

A second source, or the only one: kernel groups timed stand-alone on the card, the very unit the
spec prices (`--db DB --misses FILE`: the DB's kernel-group entries of the spec's card, recorded by
pet-profile --import from a measure stage's results or by pet-opt --live, for the keys of the
misses file's kernel-groups requests, whose models it names). Their error is the mean squared log
ratio over groups; with both sources the fit lowers the mean of the two.

    python3 bench/gpu/fit_spec.py --executor bench/results/2026-11-28-h200/run3-final/executor.txt \
        --work KIT/work --spec h200 --out-spec fitted.json --report fit.md
    python3 bench/gpu/fit_spec.py --db bench/profiles/h200.json --misses KIT/misses/misses.jsonl --spec h200

Exit status 0, 2 for a usage error, 3 when the DB is the only source and holds no kernel-group
time of the spec's card for the misses file's requests (nothing to fit).
"""

import argparse
import concurrent.futures
import copy
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPECS = os.path.join(REPO, "search", "cost", "devices")

# (where in the spec, "fraction" in (0, 1], "positive", "count" (at least 1) or "non_negative"), as
# search/cost/device_spec.cpp checks them; the tile sizes and the alignment are the libraries'
# structure, not fitted.
FITTED = [
    (("launch_overhead_us",), "positive"),
    (("efficiency", "gemm_peak"), "fraction"),
    (("efficiency", "split_k_max"), "count"),
    (("efficiency", "split_k_min_depth"), "positive"),
    (("efficiency", "conv_peak"), "fraction"),
    (("efficiency", "unaligned"), "fraction"),
    (("efficiency", "dilated"), "fraction"),
    (("efficiency", "grouped"), "fraction"),
    (("efficiency", "depthwise"), "fraction"),
    (("efficiency", "cuda_core"), "fraction"),
    (("efficiency", "bandwidth_peak"), "fraction"),
    (("efficiency", "bandwidth_half_bytes"), "positive"),
    (("efficiency", "permute_bandwidth"), "fraction"),
    (("efficiency", "unhidden"), "fraction"),
    (("efficiency", "conv_fixed_us"), "non_negative"),
]
NOTHING_TO_FIT = 3  # exit status: the only source named holds nothing of the spec's card
FACTORS = [0.25, 0.5, 0.7, 0.85, 1.2, 1.4, 2.0, 4.0]
STEPS_US = [1.0, 4.0, 8.0]  # a value that may be 0 also moves by these, so it can leave 0

TIME_SECTION = re.compile(r"^== time (\S+)\n(.*?)(?=^== |\Z)", re.M | re.S)
END_TO_END = re.compile(r"^end to end: median ([\d.]+) ms", re.M)
STEP = re.compile(r"^  step (\d+) (\S+) '([^']*)'(?: \(\+(\d+)\))?: ([\d.]+) ms", re.M)


def parse_executor(text):
    """{model: {"e2e_ms", "steps": [{"kind", "head", "nodes", "ms"}]}} from the executor stage's output."""
    models = {}
    for match in TIME_SECTION.finditer(text):
        model, body = match.group(1), match.group(2)
        e2e = END_TO_END.search(body)
        steps = [{"kind": kind, "head": head, "nodes": 1 + int(more or 0), "ms": float(ms)}
                 for _, kind, head, more, ms in STEP.findall(body)]
        if e2e and steps:
            models[model] = {"e2e_ms": float(e2e.group(1)), "steps": steps}
    return models


def read_spec(name_or_path):
    path = name_or_path if os.path.exists(name_or_path) else os.path.join(SPECS, name_or_path + ".json")
    with open(path) as f:
        return json.load(f)


def get_value(spec, where):
    node = spec
    for key in where[:-1]:
        node = node[key]
    value = node[where[-1]]
    return value["value"] if isinstance(value, dict) else value


def with_value(spec, where, value):
    out = copy.deepcopy(spec)
    node = out
    for key in where[:-1]:
        node = node[key]
    if isinstance(node[where[-1]], dict):
        node[where[-1]]["value"] = value
    else:
        node[where[-1]] = value
    return out


def write_specs(folder, specs):
    """Each spec as a file in `folder`, for pet-profile --device; their paths in order."""
    paths = []
    for i, spec in enumerate(specs):
        paths.append(os.path.join(folder, f"spec{i}.json"))
        with open(paths[-1], "w") as f:
            json.dump(spec, f)
    return paths


def estimate_groups(pet_profile, model_paths, spec_paths):
    """Per model: its kernel groups as pet-profile --estimate prints them (one run for them all)."""
    args = [pet_profile]
    for path in model_paths:
        args += ["--estimate", path]
    for path in spec_paths:
        args += ["--device", path]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"fit_spec: pet-profile --estimate ({len(model_paths)} models) failed: {run.stderr.strip()}")
    groups, model = {}, None
    for line in run.stdout.splitlines():
        record = json.loads(line)
        if "model" in record:
            model = record["model"]
            groups[model] = []
        else:
            groups[model].append(record)
    return groups


def estimates(pet_profile, model_path, spec_paths):
    """Per kernel group of the model: (head output, node count, [µs per spec])."""
    groups = estimate_groups(pet_profile, [model_path], spec_paths)[model_path]
    return [(group["head"], len(group["nodes"]), group["us"]) for group in groups]


def step_estimates(steps, groups):
    """[(step index, [µs per spec])] for the steps a kernel group prices as they ran (its head and node
    count), and how many steps none does; None when none is matched."""
    by_step = {(head, count): us for head, count, us in groups}
    matched = [(s, by_step[(step["head"], step["nodes"])]) for s, step in enumerate(steps)
               if (step["head"], step["nodes"]) in by_step]
    if not matched:
        return None
    return matched, len(steps) - len(matched)


class Problem:
    """The measured steps of each model, and the nodes each step's estimate sums."""

    def __init__(self, measured, work, pet_profile):
        self.measured = measured
        self.work = work
        self.pet_profile = pet_profile
        self.unmatched = {}  # per model: steps no kernel group of the model file prices as they ran

    def evaluate(self, specs, models):
        """Per model: [(step, measured µs scaled to the CUDA graph, [estimate µs per spec])]."""
        with tempfile.TemporaryDirectory() as folder:
            paths = write_specs(folder, specs)
            with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
                futures = {m: pool.submit(estimates, self.pet_profile, os.path.join(self.work, m, "model.pet"), paths)
                           for m in models}
                per_model = {}
                for model, future in futures.items():
                    steps = self.measured[model]["steps"]
                    laid = step_estimates(steps, future.result())
                    if laid is None:
                        continue
                    matched, self.unmatched[model] = laid
                    scale = self.measured[model]["e2e_ms"] / sum(s["ms"] for s in steps)
                    # A step timed at 0.0000 ms (below the printed precision) counts as 0.05 µs.
                    per_model[model] = [(steps[s], max(steps[s]["ms"] * 1000 * scale, 0.05), est)
                                        for s, est in matched]
                return per_model


def model_totals(pet_profile, model_paths, spec_paths):
    """Per model: the sum of its kernel groups' estimates, one per spec (one pet-profile run)."""
    return {model: [sum(us) for us in zip(*(group["us"] for group in groups))] if groups else [0.0] * len(spec_paths)
            for model, groups in estimate_groups(pet_profile, model_paths, spec_paths).items()}


KERNELS = re.compile(r", kernels ([0-9a-f]+) \|")


def kernels_of(device):
    """The pet-gpu kernels tag a DB entry's device names ("... kernels 678da8de81847f48 | card | ..."), or ""."""
    match = KERNELS.search(device)
    return match.group(1) if match else ""


def read_groups(db_path, misses_path, card):
    """([(key, model file, measured µs)], kernels tag, entries left out): the DB's kernel-group entries of
    `card` (the spec's name, the device key's first field) whose key a kernel-groups request of the misses
    file names, all timed with one version of pet-gpu's kernels (the one of the newest such entry: times
    of other kernels time other code); of several entries of one key, the newest; refusals (no time) left out."""
    models = {}
    with open(misses_path) as f:
        for line in f:
            request = json.loads(line)
            if request.get("kind") == "kernel-groups":
                for key, model in zip(request["keys"], request["models"]):
                    models[key] = os.path.join(misses_path + ".models", model)
    with open(db_path) as f:
        entries = json.load(f)["entries"]
    requested = [e for e in entries if e["device"].split(" | ")[0] == card and e["key"] in models
                 and not e.get("method", "").startswith("refused by pet-gpu")]
    if not requested:
        return [], "", 0
    kernels = kernels_of(max(requested, key=lambda e: (e["date"], kernels_of(e["device"])))["device"])
    newest = {}
    for entry in requested:
        if kernels_of(entry["device"]) != kernels:
            continue
        if entry["key"] not in newest or entry["date"] >= newest[entry["key"]]["date"]:
            newest[entry["key"]] = entry
    left_out = len({e["key"] for e in requested} - set(newest))
    return [(key, models[key], newest[key]["microseconds"]) for key in sorted(newest)], kernels, left_out


class GroupProblem:
    """Kernel groups timed stand-alone on the card, each with the model that computes it alone."""

    BATCH = 200  # models per pet-profile run

    def __init__(self, groups, pet_profile):
        self.groups = groups
        self.pet_profile = pet_profile

    def evaluate(self, specs):
        """[(key, measured µs, [estimate µs per spec])]."""
        with tempfile.TemporaryDirectory() as folder:
            paths = write_specs(folder, specs)
            files = [model for _, model, _ in self.groups]
            batches = [files[i:i + self.BATCH] for i in range(0, len(files), self.BATCH)]
            totals = {}
            with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
                for part in pool.map(lambda batch: model_totals(self.pet_profile, batch, paths), batches):
                    totals.update(part)
        return [(key, max(measured, 0.05), totals[model]) for key, model, measured in self.groups]

    def errors(self, specs):
        rows = self.evaluate(specs)
        return [statistics.mean(math.log(max(est[d], 1e-3) / measured) ** 2 for _, measured, est in rows)
                for d in range(len(specs))]


def step_objective(problem, models):
    """Each spec's error on the executor's steps of `models`."""
    def errors(specs):
        per_model = problem.evaluate(specs, models)
        return [error(per_model, d) for d in range(len(specs))]
    return errors


def mean_objective(objectives):
    """Each spec's mean error over the sources."""
    return lambda specs: [statistics.mean(errs) for errs in zip(*(objective(specs) for objective in objectives))]


def error(per_model, d):
    """Mean over models of the time-share-weighted squared log error of spec d's step estimates."""
    errors = []
    for rows in per_model.values():
        total = sum(measured for _, measured, _ in rows)
        errors.append(sum(measured / total * math.log(max(est[d], 1e-3) / measured) ** 2 for _, measured, est in rows))
    return statistics.mean(errors)


def candidates(spec):
    out = []
    for where, kind in FITTED:
        value = get_value(spec, where)
        for factor in FACTORS:
            moved = value * factor
            if kind == "fraction":
                moved = min(moved, 1.0)
            if kind == "count":
                moved = max(moved, 1.0)
            if moved != value:
                out.append((where, moved))
        if kind == "non_negative":
            out += [(where, value + step) for step in STEPS_US]
            out += [(where, value - step) for step in STEPS_US if value - step >= 0]
    return out


def fit(objective, spec, rounds, log):
    """Greedy coordinate descent: `objective(specs)` gives each spec's error."""
    current = spec
    best = objective([current])[0]
    log(f"  start: error {best:.4f}")
    for round_index in range(rounds):
        moves = candidates(current)
        errors = objective([current] + [with_value(current, w, v) for w, v in moves])
        new_error, i = min((errors[i + 1], i) for i in range(len(moves)))
        if new_error >= best * (1 - 1e-4):
            log(f"  round {round_index + 1}: no move lowers the error; stopped")
            break
        where, value = moves[i]
        log(f"  round {round_index + 1}: {'.'.join(where)} {get_value(current, where):.4g} -> {value:.4g}, "
            f"error {best:.4f} -> {new_error:.4f}")
        current, best = with_value(current, where, value), new_error
    return current, best


def summary_rows(per_model, d):
    """Per step kind: steps, median |log2 ratio|, share-weighted mean |log2 ratio|; per model totals."""
    by_kind = {}
    for rows in per_model.values():
        total = sum(m for _, m, _ in rows)
        for step, measured, est in rows:
            by_kind.setdefault(step["kind"], []).append((abs(math.log2(max(est[d], 1e-3) / measured)), measured / total))
    kinds = {k: (len(v), statistics.median(e for e, _ in v), sum(e * w for e, w in v) / sum(w for _, w in v))
             for k, v in by_kind.items()}
    totals = {m: (sum(x for _, x, _ in rows), sum(e[d] for _, _, e in rows)) for m, rows in per_model.items()}
    return kinds, totals


def held_out_text(problem, base, held_out_fit, b1, b16):
    if held_out_fit is None:
        return "Held out: nothing (a held-out check needs models at batch 1 and at batch 16)."
    held = problem.evaluate([base, held_out_fit], b16)
    return (f"Held out: fitted on the {len(b1)} batch-1 models alone, the {len(b16)} batch-16 models it never "
            f"saw: {error(held, 0):.4f} with the spec before, {error(held, 1):.4f} with that fit.")


def step_report(problem, base, fitted, held_out_fit, models, b1, b16, executor):
    per_model = problem.evaluate([base, fitted], models)
    kinds0, totals0 = summary_rows(per_model, 0)
    kinds1, totals1 = summary_rows(per_model, 1)
    lines = [f"Measured: `{executor}` (per step: `pet-gpu time`'s CUDA events; each model's steps scaled "
             "to its CUDA-graph end-to-end median). Estimated: `pet-profile --estimate` with the spec as "
             "committed before and as fitted. Error: |log2(estimate / measured)|, so 1.0 is a factor of 2.", "",
             f"Fit error (mean over {len(models)} models of the time-weighted squared ln ratio): "
             f"{error(per_model, 0):.4f} before, {error(per_model, 1):.4f} fitted; "
             f"{sum(len(rows) for rows in per_model.values())} steps, "
             f"{sum(problem.unmatched.get(m, 0) for m in models)} more left out, which the card ran otherwise than "
             "this build's kernel groups (no group has their first node and node count).", "",
             held_out_text(problem, base, held_out_fit, b1, b16), "",
             "| step kind | steps | median error before | fitted | time-weighted before | fitted |",
             "|---|---|---|---|---|---|"]
    for kind in sorted(kinds0, key=lambda k: -kinds0[k][0]):
        n, med0, w0 = kinds0[kind]
        _, med1, w1 = kinds1[kind]
        lines.append(f"| {kind} | {n} | {med0:.2f} | {med1:.2f} | {w0:.2f} | {w1:.2f} |")
    lines += ["", "| model | measured ms (matched steps, scaled to the CUDA graph) | estimated before ms | fitted ms |",
              "|---|---|---|---|"]
    for model in models:
        if model in totals0:
            measured, before = totals0[model]
            lines.append(f"| {model} | {measured / 1000:.3f} | {before / 1000:.3f} | {totals1[model][1] / 1000:.3f} |")
    return lines


def group_report(groups, base, fitted, db):
    """The kernel groups' errors before and fitted, overall and by the group's first op."""
    rows = groups.evaluate([base, fitted])
    by_op = {}
    for key, measured, est in rows:
        by_op.setdefault(key.split("[")[0].split("(")[0], []).append(
            [abs(math.log2(max(e, 1e-3) / measured)) for e in est])
    errors = groups.errors([base, fitted])
    lines = [f"Kernel groups timed stand-alone on the card (`{db}`, the spec's card's kernel-group entries "
             f"for the misses file's requests): {len(rows)} groups; mean squared ln ratio {errors[0]:.4f} before, "
             f"{errors[1]:.4f} fitted.", "",
             "| first op | groups | median error before | fitted |", "|---|---|---|---|"]
    for op in sorted(by_op, key=lambda o: -len(by_op[o])):
        values = by_op[op]
        lines.append(f"| {op} | {len(values)} | {statistics.median(v[0] for v in values):.2f} | "
                     f"{statistics.median(v[1] for v in values):.2f} |")
    return lines


def report(sections, base, fitted, spec_name):
    lines = [f"# {spec_name}: the analytic spec against the card's times", ""]
    for section in sections:
        lines += section + [""]
    lines += ["| value | before | fitted |", "|---|---|---|"]
    for where, _ in FITTED:
        lines.append(f"| {'.'.join(where)} | {get_value(base, where):.4g} | {get_value(fitted, where):.4g} |")
    return "\n".join(lines) + "\n"


def spec_text(spec):
    """The spec as search/cost/devices/*.json lay it out: one line per field and per efficiency value."""
    lines = ["{"]
    items = list(spec.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i + 1 < len(items) else ""
        if isinstance(value, dict):
            lines.append(f"  {json.dumps(key)}: {{")
            entries = list(value.items())
            for j, (name, entry) in enumerate(entries):
                lines.append(f"    {json.dumps(name)}: {json.dumps(entry, ensure_ascii=False)}" + ("," if j + 1 < len(entries) else ""))
            lines.append("  }" + comma)
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    return "\n".join(lines + ["}"]) + "\n"


def rounded(spec):
    """Fitted values to 4 significant digits, as a spec file shows them."""
    out = copy.deepcopy(spec)
    for where, _ in FITTED:
        out = with_value(out, where, float(f"{get_value(out, where):.4g}"))
    return out


class Sources:
    """What the fit lowers: one objective per source named, with what each source is."""

    def __init__(self):
        self.objectives, self.described = [], []
        self.problem = self.groups = None
        self.models, self.b1, self.b16 = [], [], []

    def objective(self):
        return self.objectives[0] if len(self.objectives) == 1 else mean_objective(self.objectives)


def add_executor_source(sources, executor, work, pet_profile, log):
    with open(executor) as f:
        measured = parse_executor(f.read())
    models = sorted(m for m in measured if os.path.exists(os.path.join(work, m, "model.pet")))
    if not models:
        sys.exit(f"fit_spec: no model timed in {executor} has {work}/<model>/model.pet")
    sources.models = models
    sources.b16 = [m for m in models if m.endswith("_b16")]
    sources.b1 = [m for m in models if m not in sources.b16]
    sources.problem = Problem(measured, work, pet_profile)
    sources.objectives.append(step_objective(sources.problem, models))
    sources.described.append(f"{executor}: pet-gpu time's per-step medians of {len(models)} models, each scaled to "
                             "its CUDA-graph end-to-end median")
    log(f"fit_spec: {len(models)} models timed in {executor}")


def add_group_source(sources, db, misses, card, pet_profile, log):
    """False when the DB holds no kernel-group time of the card for the misses file's requests."""
    found, kernels, left_out = read_groups(db, misses, card)
    if not found:
        log(f"fit_spec: {db} holds no kernel-group time of {card} for a request of {misses}")
        return False
    sources.groups = GroupProblem(found, pet_profile)
    sources.objectives.append(sources.groups.errors)
    more = f" ({left_out} more timed only with other kernels, left out)" if left_out else ""
    sources.described.append(f"{db}: {len(found)} kernel groups timed stand-alone with pet-gpu's kernels {kernels}"
                             + more)
    log(f"fit_spec: {len(found)} kernel groups timed in {db} with pet-gpu's kernels {kernels}"
        + (f"; {left_out} timed only with other kernels left out" if left_out else ""))
    return True


def fit_and_report(sources, base, rounds, executor, db, spec_name, log):
    """The fitted spec, the fit on batch 1 alone (None without both batches) and the report text."""
    log("fit:")
    fitted, _ = fit(sources.objective(), base, rounds, log)
    fitted = rounded(fitted)
    held_out_fit = None
    if sources.b1 and sources.b16:
        log("fit on the batch-1 models' steps alone (held out: batch 16):")
        held_out_fit, _ = fit(step_objective(sources.problem, sources.b1), base, rounds, log)
    sections = []
    if sources.problem:
        sections.append(step_report(sources.problem, base, fitted, held_out_fit, sources.models, sources.b1,
                                    sources.b16, executor))
    if sources.groups:
        sections.append(group_report(sources.groups, base, fitted, db))
    return fitted, held_out_fit, report(sections, base, fitted, spec_name)


def write_fitted_spec(path, sources, base, fitted, held_out_fit):
    errors = sources.objective()([base, fitted])
    fitted["fit"] = {
        "measured": "; ".join(sources.described),
        "how": "bench/gpu/fit_spec.py: greedy coordinate descent in log space over launch_overhead_us and the "
               "efficiency values but the tile sizes and the alignment",
        "error_before": round(errors[0], 4), "error_fitted": round(errors[1], 4)}
    if sources.problem:
        fitted["fit"]["held_out"] = held_out_text(sources.problem, base, held_out_fit, sources.b1, sources.b16)
    with open(path, "w") as f:
        f.write(spec_text(fitted))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--executor", help="a check's executor.txt (the executor stage's output)")
    parser.add_argument("--work", help="with --executor: the kit's work folder, <model>/model.pet as the card ran them")
    parser.add_argument("--db", help="a profile DB with the card's kernel-group times (with --misses)")
    parser.add_argument("--misses", help="the misses file whose kernel-groups requests name those groups' models")
    parser.add_argument("--spec", required=True, help="the device spec to start from: h200, h100 or a JSON file")
    parser.add_argument("--pet-profile", default=os.path.join(REPO, "build", "tools", "pet-profile"))
    parser.add_argument("--rounds", type=int, default=60, help="coordinate-descent rounds at most (60)")
    parser.add_argument("--out-spec", help="write the fitted spec here")
    parser.add_argument("--report", help="write the before/fitted comparison (Markdown) here")
    args = parser.parse_args(argv)
    if bool(args.executor) != bool(args.work) or bool(args.db) != bool(args.misses) or not (args.executor or args.db):
        parser.error("give --executor FILE --work DIR, --db DB --misses FILE, or both pairs")

    base = read_spec(args.spec)
    log = lambda text: print(text, flush=True)  # noqa: E731
    sources = Sources()
    if args.executor:
        add_executor_source(sources, args.executor, args.work, args.pet_profile, log)
    if args.db and not add_group_source(sources, args.db, args.misses, base["name"], args.pet_profile, log):
        if not sources.objectives:
            return NOTHING_TO_FIT
    fitted, held_out_fit, text = fit_and_report(sources, base, args.rounds, args.executor, args.db,
                                                base.get("name", args.spec), log)
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    if args.out_spec:
        write_fitted_spec(args.out_spec, sources, base, fitted, held_out_fit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
