// GpuModel's runs: inputs uploaded, the forward pass replayed or enqueued, outputs downloaded;
// the profiled run brackets each step with events, the timed run each replay.
#include "kernels/gpu/executor/gpu_model.h"

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/gpu/executor/cuda_check.h"
#include "kernels/gpu/executor/model_state.h"

namespace pet::gpu {
namespace {

// Owns CUDA events, destroyed together.
class Events {
 public:
  explicit Events(size_t count) : events_(count, nullptr) {
    for (cudaEvent_t& event : events_) check_cuda(cudaEventCreate(&event), "cudaEventCreate");
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  ~Events() {
    for (cudaEvent_t event : events_)
      if (event != nullptr) cudaEventDestroy(event);
  }
  void record(size_t i, cudaStream_t stream) { check_cuda(cudaEventRecord(events_[i], stream), "cudaEventRecord"); }
  double elapsed_ms(size_t from, size_t to) const {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, events_[from], events_[to]), "cudaEventElapsedTime");
    return static_cast<double>(ms);
  }

 private:
  std::vector<cudaEvent_t> events_;
};

void finish(const GpuModel::State& state, const char* what) {
  check_cuda(cudaGetLastError(), fmt::format("{} (cudaGetLastError)", what));
  check_cuda(cudaStreamSynchronize(state.stream()), fmt::format("{} (cudaStreamSynchronize)", what));
}

std::string main_op(const GpuModel::State& state, const Step& step) {
  bool library_step = step.kind == StepKind::cudnn_conv || step.kind == StepKind::cublaslt_gemm;
  return state.program.plan.nodes[static_cast<size_t>(library_step ? step.nodes.front() : step.nodes.back())].op;
}

std::vector<std::string> node_names(const GpuModel::State& state, const Step& step) {
  std::vector<std::string> names;
  for (NodeId n : step.nodes) names.push_back(state.program.plan.nodes[static_cast<size_t>(n)].name);
  return names;
}

}  // namespace

GpuModel::GpuModel(std::unique_ptr<State> state) : state_(std::move(state)) {}
GpuModel::~GpuModel() = default;

std::vector<Tensor> GpuModel::run(const std::vector<Tensor>& inputs) {
  state_->memory->upload_inputs(inputs);
  state_->memory->poison();
  state_->forward->launch(state_->stream());
  finish(*state_, "the forward pass (CUDA graph)");
  return state_->memory->download_outputs();
}

std::vector<Tensor> GpuModel::run_eager(const std::vector<Tensor>& inputs) {
  state_->memory->upload_inputs(inputs);
  state_->memory->poison();
  state_->run_steps_checked();
  return state_->memory->download_outputs();
}

std::vector<StepTime> GpuModel::profile(const std::vector<Tensor>& inputs, int warmup, int runs) {
  state_->memory->upload_inputs(inputs);
  cudaStream_t stream = state_->stream();
  for (int i = 0; i < warmup; ++i) state_->enqueue_all(stream);
  finish(*state_, "the profile's warm-up");
  size_t steps = state_->runners.size();
  Events events(steps + 1);
  std::vector<std::vector<double>> ms(steps);
  for (int run = 0; run < runs; ++run) {
    events.record(0, stream);
    for (size_t s = 0; s < steps; ++s) {
      state_->runners[s]->enqueue(stream);
      events.record(s + 1, stream);
    }
    finish(*state_, "a profiled run");
    for (size_t s = 0; s < steps; ++s) ms[s].push_back(events.elapsed_ms(s, s + 1));
  }
  std::vector<StepTime> times;
  for (size_t s = 0; s < steps; ++s) {
    const Step& step = state_->program.plan.steps[s];
    times.push_back({static_cast<int>(s), to_string(step.kind), main_op(*state_, step), node_names(*state_, step),
                     summarize_runs(ms[s]), step.computes_patch});
  }
  return times;
}

RunSummary GpuModel::time(const std::vector<Tensor>& inputs, int warmup, int runs) {
  state_->memory->upload_inputs(inputs);
  cudaStream_t stream = state_->stream();
  for (int i = 0; i < warmup; ++i) state_->forward->launch(stream);
  finish(*state_, "the timing's warm-up");
  Events events(2);
  std::vector<double> ms;
  for (int run = 0; run < runs; ++run) {
    events.record(0, stream);
    state_->forward->launch(stream);
    events.record(1, stream);
    finish(*state_, "a timed run");
    ms.push_back(events.elapsed_ms(0, 1));
  }
  return summarize_runs(std::move(ms));
}

const LoadSummary& GpuModel::summary() const { return state_->summary; }

void GpuModel::note_fallback(std::string why) { state_->summary.fallback = std::move(why); }

namespace {

// Whether some convolution of `program` may take the column path by timing (one with symmetric
// pads that it is offered); one with asymmetric pads has only the column path either way.
bool uses_columns_by_choice(const HostProgram& program) {
  for (const StepProgram& step : program.steps)
    if (step.column_path && step.conv->symmetric_pads()) return true;
  return false;
}

// A failed load's program loaded again with `options`, its device memory released first; the new
// load's line says why (`fallback`).
GpuModelLoad loaded_again(const Graph& graph, std::unique_ptr<GpuModel::State> failed, const ExecutorOptions& options,
                          std::shared_ptr<DeviceSession> session, std::string why) {
  HostProgram again = failed->program;
  failed.reset();
  GpuModelLoad retried = load_gpu_model(graph, std::move(again), options, std::move(session));
  if (retried.model) retried.model->note_fallback(std::move(why));
  return retried;
}

}  // namespace

GpuModelLoad load_gpu_model(const Graph& graph, const ExecutorOptions& options) {
  return load_gpu_model(graph, prepare_host_program(graph), options);
}

std::string to_string(ColumnPath path) {
  switch (path) {
    case ColumnPath::timed:
      return "timed";
    case ColumnPath::always:
      return "always";
    case ColumnPath::off:
      return "off";
  }
  return "?";
}

ColumnPath column_path_named(const std::string& name) {
  for (ColumnPath path : {ColumnPath::timed, ColumnPath::always, ColumnPath::off})
    if (to_string(path) == name) return path;
  throw UserError(fmt::format("--conv-columns takes timed, always or off, not '{}'", name));
}

std::string LoadSummary::timing_line() const {
  return fmt::format("load {:.1f} ms (context {:.1f}, kernels {:.1f}, memory {:.1f}, searches {:.1f}, eager pass "
                     "{:.1f}, capture {:.1f}); {} of {} own kernels reused and {} read from the kernel store, {} of "
                     "{} algorithm searches reused",
                     load_ms, context_ms, kernels_ms, memory_ms, searches_ms, eager_ms, capture_ms, kernels_reused,
                     kernels, kernels_recalled, searches_reused, searches + searches_reused);
}

GpuModelLoad load_gpu_model(const Graph& graph, HostProgram program, const ExecutorOptions& options,
                            std::shared_ptr<DeviceSession> session) {
  PET_CHECK(!session || session->device() == options.device, "a load in a session of another device");
  auto state = std::make_unique<GpuModel::State>();
  state->graph = graph;
  state->options = options;
  state->program = std::move(program);
  state->session = session ? session : std::make_shared<DeviceSession>(options.device);
  try {
    load_on_device(*state);
  } catch (const CudaFailure& failure) {
    if (failure.status().outcome != CudaOutcome::failed) return {failure.status(), nullptr};
    // The newest path first: the column path (a convolution only it can run then refuses the
    // load by name), then cuDNN's graph API.
    if (options.conv_columns == ColumnPath::timed && uses_columns_by_choice(state->program)) {
      ExecutorOptions cudnn_only = options;
      cudnn_only.conv_columns = ColumnPath::off;
      return loaded_again(graph, std::move(state), cudnn_only, std::move(session),
                          fmt::format("the load with the column path failed ({}); every convolution runs on cuDNN",
                                      failure.status().message));
    }
    if (options.math != MathMode::tf32 || options.conv_engines == 0) return {failure.status(), nullptr};
    ExecutorOptions legacy = options;
    legacy.conv_engines = 0;
    return loaded_again(graph, std::move(state), legacy, std::move(session),
                        fmt::format("the load with cuDNN graph-API convolutions failed ({}); every convolution runs "
                                    "on cuDNN's legacy API",
                                    failure.status().message));
  }
  return {{}, std::make_unique<GpuModel>(std::move(state))};
}

}  // namespace pet::gpu
