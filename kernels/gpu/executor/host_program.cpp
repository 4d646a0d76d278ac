// prepare_host_program reads as a table: each step kind and the backend that runs it, the kinds
// without one named with the reason, then one preparation per backend.
#include "kernels/gpu/executor/host_program.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "core/error.h"
#include "kernels/gpu/codegen/generate.h"
#include "kernels/gpu/executor/conv_columns.h"
#include "kernels/gpu/executor/conv_epilogue.h"
#include "kernels/gpu/executor/transpose_folding.h"

namespace pet::gpu {
namespace {

std::optional<Backend> backend_of(StepKind kind) {
  if (kind == StepKind::cudnn_conv) return Backend::cudnn;
  if (kind == StepKind::cublaslt_gemm) return Backend::cublaslt;
  if (codegen::generates_kernel(kind)) return Backend::generated;
  return std::nullopt;
}

// What makes the column path refuse `config` (column_plan gave none), as the rest of a sentence.
std::string column_refusal(const ConvConfig& config) {
  if (config.groups != 1) return fmt::format("grouped convolution ({} groups)", config.groups);
  if (config.input.size() != 4) return fmt::format("convolution of {} spatial dims", config.input.size() - 2);
  return fmt::format("convolution whose columns exceed {} MiB", kMaxColumnBytes >> 20);
}

class Preparer {
 public:
  Preparer(const Graph& graph, HostProgram& program) : graph_(graph), program_(program) {}

  StepProgram prepare(int index) {
    const Step& step = program_.plan.steps[static_cast<size_t>(index)];
    std::optional<Backend> backend = backend_of(step.kind);
    if (!backend) refuse(index, "the executor has no backend for this kind of step");
    StepProgram prepared;
    prepared.backend = *backend;
    if (*backend == Backend::cudnn) prepare_conv_step(index, step, prepared);
    if (*backend == Backend::cublaslt) prepare_gemm_step(index, step, prepared);
    if (*backend == Backend::generated) prepared.kernel = codegen::generate_kernel(graph_, program_.plan, index);
    return prepared;
  }

 private:
  [[noreturn]] void refuse(int index, const std::string& why) const {
    throw UserError(fmt::format("pet-gpu's executor cannot run {}: {}", program_.describe_step(index), why));
  }

  void prepare_conv_step(int index, const Step& step, StepProgram& prepared) const {
    ConvPreparation conv = prepare_conv(graph_, step);
    if (!conv.config) refuse(index, conv.refusal + "; run this model on a CPU target (--target ort-cpu)");
    prepared.column_path = column_path_offered(*conv.config);
    if (prepared.column_path && !column_plan(*conv.config)->reads_input) prepared.columns = column_kernel(*conv.config);
    if (!conv.config->symmetric_pads() && !prepared.column_path)
      refuse(index, fmt::format("its pads [{}] at the start and [{}] at the end differ, which cuDNN cannot pad, and "
                                "the column path takes no {}; run this model on a CPU target (--target ort-cpu)",
                                fmt::join(conv.config->pads, ","), fmt::join(conv.config->pads_end, ","),
                                column_refusal(*conv.config)));
    prepared.conv = conv.config;
    bool adds = conv.config->bias != kNoValue || conv.config->residual != kNoValue;
    if (adds || conv.config->relu) prepared.epilogue = conv_epilogue_kernel(*conv.config);
  }

  void prepare_gemm_step(int index, const Step& step, StepProgram& prepared) const {
    GemmPreparation gemm = prepare_gemm(graph_, step);
    if (!gemm.config) refuse(index, gemm.refusal + "; run this model on a CPU target (--target ort-cpu)");
    prepared.gemm = gemm.config;
  }

  const Graph& graph_;
  HostProgram& program_;
};

}  // namespace

std::string to_string(Backend backend) {
  switch (backend) {
    case Backend::cudnn:
      return "cuDNN";
    case Backend::cublaslt:
      return "cuBLASLt";
    case Backend::generated:
      return "generated";
  }
  return "?";
}

std::vector<codegen::GeneratedKernel> HostProgram::distinct_kernels() const {
  std::vector<codegen::GeneratedKernel> kernels;
  std::set<std::string> seen;
  for (const StepProgram& step : steps)
    for (const auto* kernel : {&step.kernel, &step.columns, &step.epilogue})
      if (*kernel && seen.insert((*kernel)->name).second) kernels.push_back(**kernel);
  return kernels;
}

std::string HostProgram::describe_step(int step) const {
  const Step& planned = plan.steps.at(static_cast<size_t>(step));
  // A conv or GEMM step is named after its main node, every other after the node that writes it.
  bool library_step = planned.kind == StepKind::cudnn_conv || planned.kind == StepKind::cublaslt_gemm;
  NodeId named = library_step ? planned.nodes.front() : planned.nodes.back();
  const PlannedNode& node = plan.nodes.at(static_cast<size_t>(named));
  return fmt::format("step {} ({}, node '{}', op {})", step, to_string(planned.kind), node.name, node.op);
}

namespace {

// What one step runs, after its description.
std::string step_work(const StepProgram& step) {
  if (step.folded_into >= 0) return fmt::format("folded into step {}'s GEMM", step.folded_into);
  if (step.gemm) return "cuBLASLt " + step.gemm->key();
  if (step.conv) {
    std::string work = "cuDNN " + step.conv->key();
    if (step.column_path) work += "; the column path offered";
    if (step.epilogue) work += "; epilogue kernel " + step.epilogue->name + " where cuDNN cannot fuse it";
    return work;
  }
  if (step.kernel) return fmt::format("kernel {}, {}", step.kernel->name, step.kernel->launch.to_string());
  return "nothing to run";
}

}  // namespace

std::string format_host_program(const HostProgram& program) {
  std::string text;
  int convs = 0, gemms = 0, kernels = 0, folded = 0;
  for (int s = 0; s < static_cast<int>(program.steps.size()); ++s) {
    const StepProgram& step = program.steps[static_cast<size_t>(s)];
    size_t nodes = program.plan.steps.at(static_cast<size_t>(s)).nodes.size();
    std::string more = nodes > 1 ? fmt::format(" + {} node{}", nodes - 1, nodes == 2 ? "" : "s") : "";
    text += fmt::format("{}{}: {}\n", program.describe_step(s), more, step_work(step));
    if (step.folded_into >= 0) ++folded;
    else if (step.gemm) ++gemms;
    else if (step.conv) ++convs;
    else if (step.kernel) ++kernels;
  }
  text += fmt::format("{} steps ({} cuBLASLt GEMMs, {} generated kernels, {} cuDNN convolutions, {} transposes folded "
                      "into GEMMs); {} distinct own kernels; activation arena {:.1f} MiB\n",
                      program.steps.size(), gemms, kernels, convs, folded, program.distinct_kernels().size(),
                      static_cast<double>(program.plan.arena_bytes) / (1 << 20));
  return text;
}

HostProgram prepare_host_program(const Graph& graph) {
  HostProgram program;
  program.plan = plan_for_gpu(graph);
  Preparer preparer(graph, program);
  for (int s = 0; s < static_cast<int>(program.plan.steps.size()); ++s) program.steps.push_back(preparer.prepare(s));
  fold_transposes(graph, program);
  return program;
}

}  // namespace pet::gpu
