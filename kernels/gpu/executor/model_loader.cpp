// load_on_device reads as the load's stages, each timed: the session's context, own kernels (those
// the session compiled before reused), memory with random data, one runner per step (algorithm
// searches kept in the session per distinct configuration; a convolution on cuDNN or the column
// path, whichever is faster and agrees), the workspace sized to the algorithms chosen, one checked
// eager pass, then the forward pass captured.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "core/error.h"
#include "kernels/gpu/executor/column_conv_step.h"
#include "kernels/gpu/executor/conv_columns.h"
#include "kernels/gpu/executor/cublaslt_gemm.h"
#include "kernels/gpu/executor/cuda_check.h"
#include "kernels/gpu/executor/conv_decision_cache.h"
#include "kernels/gpu/executor/cudnn_conv.h"
#include "kernels/gpu/executor/device_timing.h"
#include "kernels/gpu/executor/model_check.h"
#include "kernels/gpu/executor/model_state.h"
#include "kernels/gpu/executor/reference.h"
#include "kernels/gpu/executor/weight_layout.h"

namespace pet::gpu {
namespace {

// A transpose step whose GEMM reads or writes through it (transpose_folding.h): nothing to run.
class FoldedStep : public StepRunner {
 public:
  explicit FoldedStep(int gemm_step) : gemm_step_(gemm_step) {}
  void enqueue(cudaStream_t) override {}
  std::string describe() const override {
    return fmt::format("folded into step {}'s GEMM, which reads or writes through it", gemm_step_);
  }

 private:
  int gemm_step_;
};

// The workspace the searches may offer an algorithm: at least this, at most half the free memory.
constexpr int64_t kSearchWorkspaceFloor = int64_t{256} << 20;

class RunnerBuilder {
 public:
  RunnerBuilder(GpuModel::State& state, DeviceBuffer& search, ConvDecisionCache* decisions)
      : state_(state),
        memory_(*state.memory),
        search_(search),
        decisions_(decisions),
        results_(state.session->searches()),
        settings_(search_settings(state.options)) {}

  std::unique_ptr<StepRunner> build(int index) {
    const StepProgram& program = state_.program.steps[static_cast<size_t>(index)];
    if (program.folded_into >= 0) return std::make_unique<FoldedStep>(program.folded_into);
    switch (program.backend) {
      case Backend::cudnn:
        return conv(program, index);
      case Backend::cublaslt:
        return gemm(*program.gemm);
      case Backend::generated:
        return kernel(*program.kernel);
    }
    PET_CHECK(false, "a step without a backend reached the device");
    return nullptr;
  }

 private:
  std::unique_ptr<StepRunner> kernel(const codegen::GeneratedKernel& kernel) {
    std::vector<void*> pointers;
    for (const codegen::KernelArgument& argument : kernel.arguments)
      pointers.push_back(argument.value == kNoValue ? nullptr : memory_.pointer(argument.value));
    return std::make_unique<KernelStep>(state_.kernels->function(kernel.name), kernel.name, kernel.launch, pointers);
  }

  void* conv_bias(const ConvConfig& config) {
    if (config.bias == kNoValue) return memory_.zeros(config.channels());
    if (!state_.graph.is_constant(config.bias)) return memory_.pointer(config.bias);
    return memory_.prepared(config.bias, fmt::format("conv_bias {}", config.channels()), [&] {
      return per_channel_values(*state_.graph.value(config.bias).constant, config.channels());
    });
  }

  // cuDNN's runner, the column path's, or the faster of the two as the options ask (conv_columns.h).
  std::unique_ptr<StepRunner> conv(const StepProgram& program, int index) {
    const ConvConfig& config = *program.conv;
    ColumnPath path = program.column_path ? state_.options.conv_columns : ColumnPath::off;
    if (!config.symmetric_pads()) {
      if (path == ColumnPath::off)
        throw UserError(fmt::format("pet-gpu's executor cannot run {} with --conv-columns off: its pads differ at the "
                                    "two ends, which only the column path can pad",
                                    state_.program.describe_step(index)));
      std::unique_ptr<ColumnConvStep> columns = column_conv(program);
      columns->set_note("cuDNN cannot pad the two ends of an axis differently");
      return columns;
    }
    std::unique_ptr<ConvStep> step = cudnn_conv(config, program.epilogue);
    if (path == ColumnPath::off) return step;
    if (path == ColumnPath::always) {
      std::unique_ptr<ColumnConvStep> columns = column_conv(program);
      columns->set_note("--conv-columns always");
      return columns;
    }
    return faster(std::move(step), program);
  }

  // The im2col kernel, the GEMM of the filter and the columns (its algorithm searched once per
  // configuration) and the epilogue.
  std::unique_ptr<ColumnConvStep> column_conv(const StepProgram& program) {
    const ConvConfig& config = *program.conv;
    std::optional<ColumnPlan> plan = column_plan(config);
    PET_CHECK(plan && plan->bytes <= state_.columns.bytes(), "a column convolution outgrew the columns buffer");
    std::unique_ptr<StepRunner> columns;
    if (!plan->reads_input) {
      const codegen::GeneratedKernel& im2col = *program.columns;
      columns = std::make_unique<KernelStep>(state_.kernels->function(im2col.name), im2col.name, im2col.launch,
                                             std::vector<void*>{memory_.pointer(config.x), state_.columns.data()});
    }
    void* a = plan->reads_input ? static_cast<void*>(memory_.pointer(config.x)) : state_.columns.data();
    GemmPointers pointers{a, memory_.pointer(config.w), nullptr, memory_.pointer(config.y), nullptr};
    pointers.c = column_c(config, *plan, pointers.d);
    auto gemm = std::make_unique<GemmStep>(state_.context->cublaslt(), plan->gemm, state_.options.math, pointers,
                                           state_.workspace);
    gemm->use(searched(results_.gemm, settings_ + gemm->search_key(), [&] {
      return gemm->find_algorithm(state_.stream(), search_.data(), search_.bytes(), state_.options.gemm);
    }));
    std::unique_ptr<StepRunner> epilogue;
    if (plan->epilogue == ColumnEpilogue::kernel) {
      PET_CHECK(program.epilogue.has_value(), "a column convolution needs the epilogue the host program did not generate");
      epilogue = epilogue_step(config, *program.epilogue);
    }
    return std::make_unique<ColumnConvStep>(std::move(columns), std::move(gemm), std::move(epilogue));
  }

  // The column GEMM's C: the residual, the bias expanded to the output's shape, or D (read times 0).
  void* column_c(const ConvConfig& config, const ColumnPlan& plan, void* d) {
    if (plan.epilogue == ColumnEpilogue::residual_as_c) return memory_.pointer(config.residual);
    if (plan.epilogue != ColumnEpilogue::bias_as_c) return d;
    return memory_.prepared(
        config.bias, fmt::format("conv_bias_columns {}x{}x{}", plan.images, config.channels(), plan.pixels), [&] {
          return column_bias_matrix(per_channel_values(*state_.graph.value(config.bias).constant, config.channels()),
                                    plan.images, plan.pixels);
        });
  }

  // cuDNN's runner and the column path's timed in turn, twice each, the faster kept if its output
  // agrees with cuDNN's (relative L2 within the math mode's check tolerance, on the load's random
  // data); decided once per configuration, epilogue and operand alignment in the session. A
  // column path that cuBLASLt refuses leaves cuDNN's runner, saying why.
  std::unique_ptr<StepRunner> faster(std::unique_ptr<ConvStep> cudnn, const StepProgram& program) {
    const ConvConfig& config = *program.conv;
    ConvAlignments alignments{alignment_of(memory_.pointer(config.x)), alignment_of(memory_.pointer(config.w)),
                              alignment_of(memory_.pointer(config.y))};
    std::string key =
        fmt::format("columns {} engines {} split GEMMs {}", decision_key(config, alignments),
                    state_.options.conv_engines, state_.options.gemm.split_bases);
    std::unique_ptr<ColumnConvStep> columns;
    const ColumnChoice& choice = searched(results_.columns, settings_ + key, [&] {
      if (std::optional<ColumnChoice> earlier = cached_column_choice(key)) return *earlier;
      ColumnChoice made = timed_column_choice(*cudnn, program, columns);
      if (decisions_ && std::isfinite(made.ms))  // a failed column path is tried again by the next load
        decisions_->record(key, {made.taken ? 1 : 0, made.ms, made.cudnn_ms});
      return made;
    });
    if (!choice.taken) {
      cudnn->note_columns(choice.note.empty() ? fmt::format("the column path took {:.3f} ms at load", choice.ms)
                                              : choice.note);
      return cudnn;
    }
    if (!columns) columns = column_conv(program);  // an earlier load decided
    columns->set_note(fmt::format("{:.3f} ms at load against cuDNN's {:.3f} ms: {}", choice.ms, choice.cudnn_ms,
                                  cudnn->describe()));
    return columns;
  }

  // An earlier load's decision from the cache file (engine 1: the column path taken, 0: cuDNN
  // kept, either for its time or for a disagreement, which that load's line said).
  std::optional<ColumnChoice> cached_column_choice(const std::string& key) const {
    std::optional<ConvDecision> decision = decisions_ ? decisions_->find(key) : std::nullopt;
    if (!decision) return std::nullopt;
    ColumnChoice choice;
    choice.taken = decision->engine == 1;
    choice.ms = decision->ms;
    choice.cudnn_ms = decision->legacy_ms;
    if (!choice.taken)
      choice.note = fmt::format("the column path took {:.3f} ms against cuDNN's {:.3f} ms, or differed from it, as "
                                "an earlier load timed it",
                                choice.ms, choice.cudnn_ms);
    return choice;
  }

  // Both runners timed in turn, twice each; the column path taken when faster and in agreement.
  ColumnChoice timed_column_choice(ConvStep& cudnn, const StepProgram& program,
                                   std::unique_ptr<ColumnConvStep>& columns) {
    const ConvConfig& config = *program.conv;
    ColumnChoice made;
    try {
      columns = column_conv(program);
    } catch (const CudaFailure& failure) {
      made.note = fmt::format("the column path failed at load: {}", failure.status().message);
      made.ms = std::numeric_limits<float>::infinity();
      return made;
    }
    made.cudnn_ms = cudnn.time(state_.stream(), search_.data());
    made.ms = columns->time(state_.stream(), search_.data());
    made.cudnn_ms = std::min(made.cudnn_ms, cudnn.time(state_.stream(), search_.data()));
    made.ms = std::min(made.ms, columns->time(state_.stream(), search_.data()));
    made.taken = made.ms < made.cudnn_ms;
    if (made.taken) made.disagreement = disagreement(cudnn, *columns, config);
    if (made.disagreement > default_tolerance(state_.options.math)) {
      made.taken = false;
      made.note = fmt::format("the column path took {:.3f} ms at load, but its output differs from cuDNN's by "
                              "relative L2 {:.3g}",
                              made.ms, made.disagreement);
    }
    return made;
  }

  // The relative L2 distance between the step's output run through cuDNN and through the column
  // path, on the load's random data.
  double disagreement(ConvStep& cudnn, ColumnConvStep& columns, const ConvConfig& config) {
    Shape shape{std::vector<int64_t>(config.output.begin(), config.output.end())};
    Tensor expected(DType::f32, shape), got(DType::f32, shape);
    cudnn.time(state_.stream(), search_.data());
    download_output(config, expected);
    columns.run(state_.stream(), search_.data());
    download_output(config, got);
    return relative_l2_error(got, expected);
  }

  void download_output(const ConvConfig& config, Tensor& into) {
    check_cuda(cudaMemcpyAsync(into.mutable_f32().data(), memory_.pointer(config.y),
                               static_cast<size_t>(config.output_elements()) * sizeof(float), cudaMemcpyDeviceToHost,
                               state_.stream()),
               "cudaMemcpyAsync (a convolution's output, comparing the column path with cuDNN)");
    check_cuda(cudaStreamSynchronize(state_.stream()), "cudaStreamSynchronize");
  }

  // The generated epilogue on y in place, with the bias and residual it adds.
  std::unique_ptr<StepRunner> epilogue_step(const ConvConfig& config, const codegen::GeneratedKernel& epilogue) {
    std::vector<void*> arguments;
    if (config.bias != kNoValue) arguments.push_back(conv_bias(config));
    if (config.residual != kNoValue) arguments.push_back(memory_.pointer(config.residual));
    arguments.push_back(memory_.pointer(config.y));
    return std::make_unique<KernelStep>(state_.kernels->function(epilogue.name), epilogue.name, epilogue.launch,
                                        arguments);
  }

  std::unique_ptr<ConvStep> cudnn_conv(const ConvConfig& config,
                                       const std::optional<codegen::GeneratedKernel>& epilogue) {
    ConvPointers pointers{memory_.pointer(config.x),
                          memory_.pointer(config.w),
                          memory_.pointer(config.y),
                          conv_bias(config),
                          config.residual == kNoValue ? nullptr : memory_.pointer(config.residual),
                          memory_.zeros(config.output_elements())};
    auto step =
        std::make_unique<ConvStep>(state_.context->cudnn(), config, state_.options.math, pointers, state_.workspace);
    const ConvChoice& choice = searched(results_.conv, settings_ + config.key(),
                                        [&] { return step->find_algorithm(search_.data(), search_.bytes()); });
    ConvCall call = step->use(choice, state_.stream(), search_.data());
    if (epilogue) step->set_epilogue(epilogue_step(config, *epilogue));
    PET_CHECK(call != ConvCall::forward_then_epilogue || epilogue.has_value(),
              "a convolution needs an epilogue the host program did not generate");
    if (state_.options.math == MathMode::tf32 && state_.options.conv_engines > 0) choose_engine(*step, config, pointers);
    return step;
  }

  // A convolution decision's key in the session and the decision file: the configuration, the
  // operands' alignments and the epilogue.
  static std::string decision_key(const ConvConfig& config, const ConvAlignments& alignments) {
    return fmt::format("{} {} bias {} residual {} relu {}", config.key(), alignments.key(), config.bias != kNoValue,
                       config.residual != kNoValue, config.relu);
  }

  // The graph API's fastest plan where it beats the legacy choice as this step runs it (bias,
  // residual and ReLU included), decided once per configuration, epilogue and operand alignment.
  void choose_engine(ConvStep& step, const ConvConfig& config, const ConvPointers& pointers) {
    ConvAlignments alignments{alignment_of(pointers.x), alignment_of(pointers.w), alignment_of(pointers.y)};
    std::string key = decision_key(config, alignments);
    const EngineChoice& choice = searched(results_.engine, settings_ + key, [&] {
      std::optional<EngineChoice> earlier = cached_choice(key, config, alignments);
      EngineChoice made = earlier ? *earlier : timed_choice(step, config, alignments);
      if (decisions_ && !earlier)
        decisions_->record(key, {made.plan ? made.plan->engine : -1, made.ms, made.legacy_ms});
      return made;
    });
    if (choice.plan)
      step.use_engine(*choice.plan, choice.ms, choice.legacy_ms);
    else
      step.note_engine_search(choice.note);
  }

  // Every plan the graph API offers timed against the legacy choice as the step runs it.
  EngineChoice timed_choice(ConvStep& step, const ConvConfig& config, const ConvAlignments& alignments) {
    EngineChoice choice;
    choice.legacy_ms = step.time(state_.stream(), search_.data());
    EnginePlans plans = conv_engine_plans(state_.context->cudnn(), config, state_.options.math, alignments,
                                          search_.bytes(), state_.options.conv_engines);
    for (const EnginePlan& plan : plans.plans) {
      float ms = step.time_engine(plan, state_.stream(), search_.data());
      if (ms < choice.ms) {
        choice.plan = plan;
        choice.ms = ms;
      }
    }
    if (plans.plans.empty())
      choice.note = fmt::format("the graph API offered no plan: {}", plans.note);
    else if (choice.ms >= choice.legacy_ms)
      choice.note = fmt::format("the graph API's best of {} plans, {}, took {:.3f} ms", plans.plans.size(),
                                choice.plan ? choice.plan->describe() : "none that ran", choice.ms);
    if (choice.ms >= choice.legacy_ms) choice.plan.reset();
    return choice;
  }

  // An earlier load's decision from the cache file, its plan built again; none when there is no
  // such decision or its engine no longer finalizes (then this load times the plans itself).
  std::optional<EngineChoice> cached_choice(const std::string& key, const ConvConfig& config,
                                            const ConvAlignments& alignments) {
    std::optional<ConvDecision> decision = decisions_ ? decisions_->find(key) : std::nullopt;
    if (!decision) return std::nullopt;
    EngineChoice choice;
    choice.ms = decision->ms;
    choice.legacy_ms = decision->legacy_ms;
    if (decision->engine < 0) {
      choice.note = fmt::format("the graph API's best took {:.3f} ms, as an earlier load timed it", decision->ms);
      return choice;
    }
    EnginePlans plans = conv_engine_plans(state_.context->cudnn(), config, state_.options.math, alignments,
                                          search_.bytes(), 1, decision->engine);
    if (plans.plans.empty()) return std::nullopt;
    choice.plan = plans.plans.front();
    return choice;
  }

  std::unique_ptr<StepRunner> gemm(const GemmConfig& config) {
    GemmPointers pointers{memory_.pointer(config.a), memory_.pointer(config.b), nullptr, memory_.pointer(config.d),
                          nullptr};
    pointers.c = gemm_c(config, pointers.d);
    if (config.bias != kNoValue && !state_.graph.is_constant(config.bias))
      pointers.bias = memory_.pointer(config.bias);  // a computed C of one value per column
    else if (config.bias != kNoValue)
      pointers.bias = memory_.prepared(config.bias, fmt::format("gemm_bias {}", config.m), [&] {
        return per_channel_values(*state_.graph.value(config.bias).constant, config.m);
      });
    auto step =
        std::make_unique<GemmStep>(state_.context->cublaslt(), config, state_.options.math, pointers, state_.workspace);
    step->use(searched(results_.gemm, settings_ + step->search_key(), [&] {
      return step->find_algorithm(state_.stream(), search_.data(), search_.bytes(), state_.options.gemm);
    }));
    return step;
  }

  // C is D itself when the step reads none (beta is then 0); a weight C broadcast at load.
  void* gemm_c(const GemmConfig& config, void* d) {
    if (config.c == kNoValue) return d;
    if (!config.c_expanded) return memory_.pointer(config.c);
    return memory_.prepared(config.c, fmt::format("gemm_c {}x{}", config.n, config.m),
                            [&] { return gemm_c_matrix(*state_.graph.value(config.c).constant, config.n, config.m); });
  }

  // The result under `key`, searched now where no earlier step of this load or of another load in
  // the session searched it; the summary counts which.
  template <typename Choice, typename Search>
  const Choice& searched(std::map<std::string, Choice>& results, const std::string& key, const Search& search) {
    auto found = results.find(key);
    if (found != results.end()) {
      ++state_.summary.searches_reused;
      return found->second;
    }
    ++state_.summary.searches;
    return results.emplace(key, search()).first->second;
  }

  // What every search result depends on besides its configuration: the settings of this load.
  static std::string search_settings(const ExecutorOptions& options) {
    return fmt::format("{} math, {} engines, GEMM {} candidates x {} runs, {} split: ", to_string(options.math),
                       options.conv_engines, options.gemm.candidates, options.gemm.runs, options.gemm.split_bases);
  }

  GpuModel::State& state_;
  ValueMemory& memory_;
  DeviceBuffer& search_;
  ConvDecisionCache* decisions_;  // null without a cache file
  SearchResults& results_;        // the session's, shared with its other loads
  std::string settings_;
};

int64_t search_workspace_bytes(const GpuModel::State& state) {
  int64_t wanted = std::max(state.program.plan.workspace_bytes(), kSearchWorkspaceFloor);
  return std::max<int64_t>(std::min(wanted, state.context->free_memory() / 2), 0);
}

// The most zero floats any convolution asks for (its z, its bias), allocated once up front.
int64_t conv_zeros(const GpuModel::State& state) {
  int64_t count = 0;
  for (const StepProgram& step : state.program.steps)
    if (step.conv) count = std::max(count, step.conv->output_elements());
  return count;
}

// The card and the library versions as loaded, which every figure from it must name.
std::string device_line(int device) {
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
  size_t cudnn = cudnnGetVersion(), lt = cublasLtGetVersion();
  return fmt::format("GPU {}: {}, cuDNN {}.{}.{}, cuBLASLt {}.{}.{}", device, properties.name, cudnn / 10000,
                     cudnn / 100 % 100, cudnn % 100, lt / 10000, lt / 100 % 100, lt % 100);
}

// The largest columns buffer a convolution the column path may run asks for (none when it is off).
int64_t columns_bytes(const GpuModel::State& state) {
  int64_t bytes = 0;
  if (state.options.conv_columns == ColumnPath::off) return bytes;
  for (const StepProgram& step : state.program.steps)
    if (step.column_path) bytes = std::max(bytes, column_plan(*step.conv)->bytes);
  return bytes;
}

void build_runners(GpuModel::State& state) {
  state.memory->zeros(conv_zeros(state));
  state.columns = DeviceBuffer(columns_bytes(state));
  DeviceBuffer& search = state.session->search_buffer(search_workspace_bytes(state));
  std::optional<ConvDecisionCache> decisions;
  if (!state.options.conv_cache.empty())
    decisions.emplace(state.options.conv_cache,
                      fmt::format("{} {}", device_line(state.context->device()), to_string(state.options.math)));
  RunnerBuilder builder(state, search, decisions ? &*decisions : nullptr);
  for (int s = 0; s < static_cast<int>(state.program.plan.steps.size()); ++s) state.runners.push_back(builder.build(s));
  state.context->synchronize();
}

void size_workspace(GpuModel::State& state) {
  int64_t bytes = 0;
  for (const auto& runner : state.runners) bytes = std::max(bytes, runner->workspace_bytes());
  state.workspace = DeviceBuffer(bytes);
}

// "step 3 cudnn-conv 'conv1' (+2 nodes): ..."
std::string step_line(const GpuModel::State& state, int index) {
  const Step& step = state.program.plan.steps[static_cast<size_t>(index)];
  const PlannedNode& main = state.program.plan.nodes[static_cast<size_t>(step.nodes.front())];
  std::string more = step.nodes.size() > 1 ? fmt::format(" (+{} nodes)", step.nodes.size() - 1) : "";
  if (step.computes_patch) more += " [patch]";
  return fmt::format("step {} {} '{}'{}: {}", index, to_string(step.kind), main.name, more,
                     state.runners[static_cast<size_t>(index)]->describe());
}

void summarize(GpuModel::State& state) {
  LoadSummary& summary = state.summary;
  summary.device = device_line(state.context->device());
  for (int s = 0; s < static_cast<int>(state.runners.size()); ++s) summary.steps.push_back(step_line(state, s));
  summary.kernels = state.kernels->size();
  summary.arena_bytes = state.memory->arena_bytes();
  summary.workspace_bytes = state.workspace.bytes();
  summary.weight_bytes = state.memory->weight_bytes();
  summary.graph_nodes = state.forward->nodes();
}

// Milliseconds since `start`, which moves to now.
double lap(std::chrono::steady_clock::time_point& start) {
  auto now = std::chrono::steady_clock::now();
  double ms = std::chrono::duration<double, std::milli>(now - start).count();
  start = now;
  return ms;
}

}  // namespace

GpuModel::State::~State() {
  if (context) cudaStreamSynchronize(context->stream());
}

void GpuModel::State::enqueue_all(cudaStream_t stream) {
  for (const auto& runner : runners) runner->enqueue(stream);
}

void GpuModel::State::run_steps_checked() {
  for (size_t s = 0; s < runners.size(); ++s) {
    try {
      runners[s]->enqueue(stream());
      check_cuda(cudaGetLastError(), "cudaGetLastError");
      check_cuda(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
    } catch (const CudaFailure& failure) {
      throw CudaFailure({failure.status().outcome,
                         fmt::format("{}: {}", program.describe_step(static_cast<int>(s)), failure.status().message)});
    }
  }
}

void load_on_device(GpuModel::State& state) {
  LoadSummary& summary = state.summary;
  auto start = std::chrono::steady_clock::now(), part = start;
  state.context = state.session->context();
  summary.context_ms = lap(part);
  SessionKernels kernels = state.session->kernels(state.program.distinct_kernels(), state.options.compile_threads);
  state.kernels = std::move(kernels.loaded);
  summary.kernels_reused = kernels.reused;
  summary.kernels_recalled = kernels.recalled;
  summary.compile_wall_ms = kernels.compile_wall_ms;
  summary.kernels_ms = lap(part);
  state.memory = std::make_unique<ValueMemory>(state.graph, state.program.plan, state.stream());
  state.memory->fill_random(state.options.seed);
  summary.memory_ms = lap(part);
  build_runners(state);
  size_workspace(state);
  summary.searches_ms = lap(part);
  // One eager pass first: lazy initialization inside cuDNN and cuBLASLt happens outside the capture,
  // and a failing step is named.
  state.run_steps_checked();
  summary.eager_ms = lap(part);
  state.forward = std::make_unique<CudaGraph>(state.stream(), [&](cudaStream_t stream) { state.enqueue_all(stream); });
  summary.capture_ms = lap(part);
  summarize(state);
  summary.load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  state.session->record(summary);
}

}  // namespace pet::gpu
