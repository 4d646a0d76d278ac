// check_model and time_model: load first (a machine without a device stops there, before any CPU
// reference is computed), then run, compare or time; the formatters print what the commands show.
#include "kernels/gpu/executor/model_check.h"

#include <fmt/format.h>

#include <cmath>

#include "core/executor.h"
#include "kernels/gpu/executor/cuda_check.h"
#include "kernels/gpu/executor/reference.h"

namespace pet::gpu {
namespace {

double mib(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

std::string load_lines(const LoadSummary& load, bool steps) {
  std::string text = fmt::format(
      "{}\nloaded: {} steps, {} own kernels compiled in {:.0f} ms, arena {:.2f} MiB, workspace {:.2f} MiB, weights "
      "{:.2f} MiB, CUDA graph of {} nodes\n{}\n",
      load.device, load.steps.size(), load.kernels, load.compile_wall_ms, mib(load.arena_bytes),
      mib(load.workspace_bytes), mib(load.weight_bytes), load.graph_nodes, load.timing_line());
  if (!load.fallback.empty()) text += "fallback: " + load.fallback + "\n";
  if (steps)
    for (const std::string& line : load.steps) text += "  " + line + "\n";
  return text;
}

bool within(double error, double tolerance) { return !std::isnan(error) && error <= tolerance; }

ReferenceData reference_for(const Graph& graph, const CheckOptions& options, std::string& described) {
  if (options.reference_folder.empty()) {
    described = fmt::format("seed {}, references from pet's CPU executor", options.seed);
    return compute_reference(graph, options.seed);
  }
  described = fmt::format("reference folder '{}'", options.reference_folder);
  ReferenceData reference = read_reference(options.reference_folder);
  require_reference_fits(graph, reference, options.reference_folder);
  return reference;
}

}  // namespace

double default_tolerance(MathMode math) { return math == MathMode::strict ? 1e-4 : 1e-2; }

bool CheckReport::passed() const {
  if (!status.ok() || outputs.empty()) return false;
  for (const OutputCheck& output : outputs)
    if (!output.passed) return false;
  return true;
}

CheckReport check_model(const Graph& graph, const CheckOptions& options) {
  CheckReport report;
  report.math = options.executor.math;
  report.tolerance = options.tolerance > 0 ? options.tolerance : default_tolerance(report.math);
  GpuModelLoad loaded = load_gpu_model(graph, options.executor);
  report.status = loaded.status;
  if (!loaded.status.ok()) return report;
  report.load = loaded.model->summary();
  ReferenceData reference = reference_for(graph, options, report.inputs);
  try {
    std::vector<Tensor> eager = loaded.model->run_eager(reference.inputs);  // first: it names a failing step
    std::vector<Tensor> replayed = loaded.model->run(reference.inputs);
    for (size_t i = 0; i < reference.outputs.size(); ++i) {
      OutputCheck output{graph.value(graph.outputs()[i]).name, relative_l2_error(replayed[i], reference.outputs[i]),
                         relative_l2_error(eager[i], reference.outputs[i]), false};
      output.passed = within(output.graph_error, report.tolerance) && within(output.eager_error, report.tolerance);
      report.outputs.push_back(output);
    }
  } catch (const CudaFailure& failure) {
    report.status = failure.status();
  }
  return report;
}

std::string format_check_report(const Graph& graph, const CheckReport& report, bool steps) {
  if (report.status.outcome == CudaOutcome::no_device) return "no CUDA device: " + report.status.message + "\n";
  std::string text = fmt::format("pet-gpu check: model '{}', {} math (passes at relative L2 <= {:.0e})\n", graph.name,
                                 to_string(report.math), report.tolerance);
  if (!report.load.device.empty()) text += load_lines(report.load, steps);
  if (!report.status.ok()) return text + "failed: " + report.status.message + "\n";
  text += fmt::format("inputs: {}\n", report.inputs);
  int failed = 0;
  for (size_t i = 0; i < report.outputs.size(); ++i) {
    const OutputCheck& output = report.outputs[i];
    failed += output.passed ? 0 : 1;
    text += fmt::format("output {} '{}': relative L2 error {:.3e} (CUDA graph), {:.3e} (eager): {}\n", i, output.name,
                        output.graph_error, output.eager_error, output.passed ? "pass" : "FAIL");
  }
  if (failed == 0) return text + "check passed\n";
  return text +
         fmt::format("check FAILED: {} of {} outputs above {:.0e}\n", failed, report.outputs.size(), report.tolerance);
}

TimeReport time_model(const Graph& graph, const TimeOptions& options) {
  TimeReport report;
  report.math = options.executor.math;
  report.warmup = options.warmup;
  GpuModelLoad loaded = load_gpu_model(graph, options.executor);
  report.status = loaded.status;
  if (!loaded.status.ok()) return report;
  report.load = loaded.model->summary();
  std::vector<Tensor> inputs = random_inputs(graph, options.seed);
  try {
    report.end_to_end = loaded.model->time(inputs, options.warmup, options.runs);
    if (options.per_step) report.steps = loaded.model->profile(inputs, options.warmup, options.runs);
  } catch (const CudaFailure& failure) {
    report.status = failure.status();
  }
  return report;
}

std::string format_time_report(const Graph& graph, const TimeReport& report) {
  if (report.status.outcome == CudaOutcome::no_device) return "no CUDA device: " + report.status.message + "\n";
  std::string text =
      fmt::format("pet-gpu time: model '{}', {} math, CUDA-graph replays\n", graph.name, to_string(report.math));
  if (!report.load.device.empty()) text += load_lines(report.load, false);
  if (!report.status.ok()) return text + "failed: " + report.status.message + "\n";
  const RunSummary& e2e = report.end_to_end;
  text += fmt::format("end to end: median {:.4f} ms (q1 {:.4f}, q3 {:.4f}) over {} runs after {} warm-ups\n",
                      e2e.median, e2e.q1, e2e.q3, e2e.runs, report.warmup);
  if (report.steps.empty()) return text;
  double total = 0;
  for (const StepTime& step : report.steps) total += step.ms.median;
  text += fmt::format("per step (eager, CUDA events around each step; medians add up to {:.4f} ms):\n", total);
  for (const StepTime& step : report.steps)
    text += fmt::format("  step {} {} '{}'{}{}: {:.4f} ms (q1 {:.4f}, q3 {:.4f})\n", step.step, step.kind,
                        step.nodes.front(), step.nodes.size() > 1 ? fmt::format(" (+{})", step.nodes.size() - 1) : "",
                        step.patch ? " [patch]" : "", step.ms.median, step.ms.q1, step.ms.q3);
  return text;
}

}  // namespace pet::gpu
