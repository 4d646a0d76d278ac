// load_on_device reads as the load's stages: device, compiled kernels, memory with random data,
// one runner per step (algorithm searches cached per distinct configuration), the workspace sized
// to the algorithms chosen, one checked eager pass, then the forward pass captured.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <optional>

#include "core/error.h"
#include "kernels/gpu/executor/cublaslt_gemm.h"
#include "kernels/gpu/executor/cuda_check.h"
#include "kernels/gpu/executor/conv_decision_cache.h"
#include "kernels/gpu/executor/cudnn_conv.h"
#include "kernels/gpu/executor/device_timing.h"
#include "kernels/gpu/executor/model_state.h"
#include "kernels/gpu/executor/weight_layout.h"

namespace pet::gpu {
namespace {

// The workspace the searches may offer an algorithm: at least this, at most half the free memory.
constexpr int64_t kSearchWorkspaceFloor = int64_t{256} << 20;

// A convolution's graph-API plan, or why the legacy choice stays.
struct EngineChoice {
  std::optional<EnginePlan> plan;  // none when the legacy choice was as fast
  float ms = std::numeric_limits<float>::infinity(), legacy_ms = 0;
  std::string note;  // why the legacy choice stays
};

class RunnerBuilder {
 public:
  RunnerBuilder(GpuModel::State& state, DeviceBuffer& search, ConvDecisionCache* decisions)
      : state_(state), memory_(*state.memory), search_(search), decisions_(decisions) {}

  std::unique_ptr<StepRunner> build(int index) {
    const StepProgram& program = state_.program.steps[static_cast<size_t>(index)];
    switch (program.backend) {
      case Backend::cudnn:
        return conv(*program.conv, program.epilogue);
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

  std::unique_ptr<StepRunner> conv(const ConvConfig& config, const std::optional<codegen::GeneratedKernel>& epilogue) {
    ConvPointers pointers{memory_.pointer(config.x),
                          memory_.pointer(config.w),
                          memory_.pointer(config.y),
                          conv_bias(config),
                          config.residual == kNoValue ? nullptr : memory_.pointer(config.residual),
                          memory_.zeros(config.output_elements())};
    auto step =
        std::make_unique<ConvStep>(state_.context->cudnn(), config, state_.options.math, pointers, state_.workspace);
    std::string key = config.key();
    auto found = conv_choices_.find(key);
    if (found == conv_choices_.end())
      found = conv_choices_.emplace(key, step->find_algorithm(search_.data(), search_.bytes())).first;
    ConvCall call = step->use(found->second, state_.stream(), search_.data());
    if (epilogue) {
      std::vector<void*> arguments;
      if (config.bias != kNoValue) arguments.push_back(pointers.bias);
      if (config.residual != kNoValue) arguments.push_back(pointers.residual);
      arguments.push_back(pointers.y);
      step->set_epilogue(std::make_unique<KernelStep>(state_.kernels->function(epilogue->name), epilogue->name,
                                                      epilogue->launch, arguments));
    }
    PET_CHECK(call != ConvCall::forward_then_epilogue || epilogue.has_value(),
              "a convolution needs an epilogue the host program did not generate");
    if (state_.options.math == MathMode::tf32 && state_.options.conv_engines > 0) choose_engine(*step, config, pointers);
    return step;
  }

  // The graph API's fastest plan where it beats the legacy choice as this step runs it (bias,
  // residual and ReLU included), decided once per configuration, epilogue and operand alignment.
  void choose_engine(ConvStep& step, const ConvConfig& config, const ConvPointers& pointers) {
    ConvAlignments alignments{alignment_of(pointers.x), alignment_of(pointers.w), alignment_of(pointers.y)};
    std::string key = fmt::format("{} {} bias {} residual {} relu {}", config.key(), alignments.key(),
                                  config.bias != kNoValue, config.residual != kNoValue, config.relu);
    auto found = engine_choices_.find(key);
    if (found == engine_choices_.end()) {
      std::optional<EngineChoice> earlier = cached_choice(key, config, alignments);
      EngineChoice choice = earlier ? *earlier : timed_choice(step, config, alignments);
      if (decisions_ && !earlier)
        decisions_->record(key, {choice.plan ? choice.plan->engine : -1, choice.ms, choice.legacy_ms});
      found = engine_choices_.emplace(key, std::move(choice)).first;
    }
    if (found->second.plan)
      step.use_engine(*found->second.plan, found->second.ms, found->second.legacy_ms);
    else
      step.note_engine_search(found->second.note);
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
    if (config.bias != kNoValue)
      pointers.bias = memory_.prepared(config.bias, fmt::format("gemm_bias {}", config.m), [&] {
        return per_channel_values(*state_.graph.value(config.bias).constant, config.m);
      });
    auto step =
        std::make_unique<GemmStep>(state_.context->cublaslt(), config, state_.options.math, pointers, state_.workspace);
    std::string key = step->search_key();
    auto found = gemm_choices_.find(key);
    if (found == gemm_choices_.end())
      found = gemm_choices_
                  .emplace(key, step->find_algorithm(state_.stream(), search_.data(), search_.bytes(),
                                                     state_.options.gemm_candidates, state_.options.gemm_search_runs))
                  .first;
    step->use(found->second);
    return step;
  }

  // C is D itself when the step reads none (beta is then 0); a weight C broadcast at load.
  void* gemm_c(const GemmConfig& config, void* d) {
    if (config.c == kNoValue) return d;
    if (!config.c_expanded) return memory_.pointer(config.c);
    return memory_.prepared(config.c, fmt::format("gemm_c {}x{}", config.n, config.m),
                            [&] { return gemm_c_matrix(*state_.graph.value(config.c).constant, config.n, config.m); });
  }

  GpuModel::State& state_;
  ValueMemory& memory_;
  DeviceBuffer& search_;
  ConvDecisionCache* decisions_;  // null without a cache file
  std::map<std::string, ConvChoice> conv_choices_;
  std::map<std::string, GemmChoice> gemm_choices_;
  std::map<std::string, EngineChoice> engine_choices_;
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

void build_runners(GpuModel::State& state) {
  state.memory->zeros(conv_zeros(state));
  DeviceBuffer search(search_workspace_bytes(state));
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


void summarize(GpuModel::State& state, const CompiledKernels& compiled) {
  LoadSummary& summary = state.summary;
  summary.device = device_line(state.context->device());
  for (int s = 0; s < static_cast<int>(state.runners.size()); ++s) summary.steps.push_back(step_line(state, s));
  summary.kernels = compiled.cubins.size();
  summary.compile_wall_ms = compiled.wall_ms;
  summary.arena_bytes = state.memory->arena_bytes();
  summary.workspace_bytes = state.workspace.bytes();
  summary.weight_bytes = state.memory->weight_bytes();
  summary.graph_nodes = state.forward->nodes();
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
  auto start = std::chrono::steady_clock::now();
  state.context = std::make_unique<DeviceContext>(state.options.device);
  CompiledKernels compiled = compile_kernels(state.program.distinct_kernels(), state.options.compile_threads);
  state.memory = std::make_unique<ValueMemory>(state.graph, state.program.plan, state.stream());
  state.memory->fill_random(state.options.seed);
  state.kernels = std::make_unique<LoadedKernels>(compiled);
  build_runners(state);
  size_workspace(state);
  // One eager pass first: lazy initialization inside cuDNN and cuBLASLt happens outside the capture,
  // and a failing step is named.
  state.run_steps_checked();
  state.forward = std::make_unique<CudaGraph>(state.stream(), [&](cudaStream_t stream) { state.enqueue_all(stream); });
  summarize(state, compiled);
  state.summary.load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace pet::gpu
