// GpuRuntime: each serialized model written to a private folder, imported, loaded once in the
// runtime's one device session (so later models reuse the context, the compiled kernels and the
// algorithm searches of earlier ones); timing interleaves the models round by round as the CPU
// runtimes do, each run one CUDA-graph replay.
#include "kernels/gpu/executor/gpu_runtime.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <chrono>
#include <functional>

#include <fmt/format.h>

#include "core/executor.h"
#include "core/onnx_import.h"
#include "kernels/devices.h"
#include "kernels/gpu/executor/cuda_check.h"
#include "kernels/gpu/executor/device_session.h"
#include "kernels/runtime/gpu_kernels_version.h"
#include "kernels/nvrtc_compile.h"

namespace pet::gpu {
namespace {

std::string version_text(size_t version) {
  return fmt::format("{}.{}.{}", version / 10000, version / 100 % 100, version % 100);
}

struct PreparedModel {
  Graph graph;
  HostProgram program;
};

struct LoadedModel {
  Graph graph;
  std::unique_ptr<GpuModel> model;
  std::vector<Tensor> inputs;
};

class GpuRuntime : public runtime::Runtime {
 public:
  explicit GpuRuntime(const ExecutorOptions& options)
      : options_(options), session_(std::make_shared<DeviceSession>(options.device)) {}

  std::string target() const override { return "pet-gpu"; }
  // What a GPU target's profile DB entries are keyed by, besides the card: the math, the libraries
  // as loaded, the driver, and the version of pet's own kernels.
  std::string version() const override {
    return fmt::format("pet-gpu {} math (cuDNN {}, cuBLASLt {}, NVRTC {}, driver {}), {}", to_string(options_.math),
                       version_text(cudnnGetVersion()), version_text(cublasLtGetVersion()), nvrtc_version(),
                       format_version(probe_devices().versions.driver), runtime::gpu_kernels_tag());
  }
  std::string compute_precision() const override { return options_.math == MathMode::strict ? "f32" : "tf32"; }
  // What it times is best sent weight-free: time_models fills the weights (pet-gpu measure's models
  // serialized in memory, pet-opt's through the worker).
  ExportOptions export_options() const override { return {.extension_ops = false, .weight_free = true}; }
  std::string activity() const override {
    std::string lock = device_.describe();
    return session_->activity().describe() + "; " + describe(random_weight_draws()) +
           fmt::format("; host work before the loads (imports, weights, host programs, kernels) {:.1f} s", host_s_) +
           (lock.empty() ? "" : "; " + lock);
  }
  // The worker's GPU lock is held from each call's first load to its end: importing the models,
  // filling their weights, preparing their host programs and compiling their kernels overlap another
  // worker's timing.
  bool share_device(const runtime::SharedDevice& device) override {
    device_ = device;
    return true;
  }

  std::vector<runtime::Timing> time_models(const std::vector<runtime::ModelBytes>& models,
                                           const runtime::TimingOptions& options) override {
    // Every model's refusal before any device work, then every load's, each pass naming all the
    // models it refused at once (so pet-opt retries once, not once per refusal). Models to time may
    // come weight-free (pet-opt's worker client sends them so): no time depends on the weights'
    // values, which their noise stands in for.
    std::vector<PreparedModel> prepared = prepared_for_loads(models.size(), [&](size_t i) {
      return models[i].with_bytes(
          [&](const std::string& bytes) { return prepare(bytes, i, ImportOptions::weights_filled()); });
    });
    runtime::SharedDevice::Hold held = device_.hold();  // released after the loaded models are freed
    std::vector<LoadedModel> loaded = runtime::each_or_refusals<LoadedModel>(
        prepared.size(), [&](size_t i) { return load(std::move(prepared[i]), i, options.seed); });
    std::vector<runtime::Timing> timings(models.size());
    guarded([&] {
      for (LoadedModel& model : loaded) model.model->time(model.inputs, options.warmup, 0);
      for (int round = 0; round < options.runs; ++round)
        for (size_t i = 0; i < loaded.size(); ++i)
          timings[i].runs_us.push_back(loaded[i].model->time(loaded[i].inputs, 0, 1).median * 1000.0);
      if (options.per_node)
        for (size_t i = 0; i < loaded.size(); ++i) timings[i].nodes = node_times(loaded[i], options.runs);
    });
    return timings;
  }

  std::vector<Tensor> run_model(const std::string& model, const std::vector<Tensor>& inputs, int) override {
    std::vector<PreparedModel> prepared = prepared_for_loads(1, [&](size_t) { return prepare(model, 0, {}); });
    runtime::SharedDevice::Hold held = device_.hold();
    LoadedModel loaded = load(std::move(prepared.front()), 0, kDefaultSeed);
    std::vector<Tensor> outputs;
    guarded([&] { outputs = loaded.model->run(inputs); });
    return outputs;
  }

 private:
  // A CUDA failure while running is the runtime's failure, not the model's.
  template <typename Work>
  static void guarded(const Work& work) {
    try {
      work();
    } catch (const CudaFailure& failure) {
      throw InternalError("pet-gpu: " + failure.status().message);
    }
  }

  PreparedModel prepare(const std::string& bytes, size_t index, const ImportOptions& import) {
    try {
      Graph graph = import_onnx_bytes(bytes, fmt::format("model {}", index), import);
      HostProgram program = prepare_host_program(graph);
      return {std::move(graph), std::move(program)};
    } catch (const UserError& error) {
      throw runtime::ModelRejected(index, fmt::format("pet-gpu refuses model {}: {}", index, error.what()));
    }
  }

  // prepare_model(i) for each of `count` models (ModelRejected naming every model refused),
  // then their own kernels compiled (or read from the kernel store), every distinct one of the call
  // at once on every compile thread: all the host work before the GPU lock, timed for the activity.
  std::vector<PreparedModel> prepared_for_loads(size_t count,
                                                const std::function<PreparedModel(size_t)>& prepare_model) {
    auto start = std::chrono::steady_clock::now();
    std::vector<PreparedModel> prepared = runtime::each_or_refusals<PreparedModel>(count, prepare_model);
    std::vector<codegen::GeneratedKernel> kernels;
    for (const PreparedModel& model : prepared)
      for (codegen::GeneratedKernel& kernel : model.program.distinct_kernels()) kernels.push_back(std::move(kernel));
    session_->compile_ahead(kernels, options_.compile_threads);
    host_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return prepared;
  }

  // A load that fails on a device still usable afterwards (cuDNN refusing a configuration, say) is
  // that model's refusal, so the other models of a request, and the requests after it, are timed;
  // a failure that leaves the device unusable is the runtime's.
  LoadedModel load(PreparedModel prepared, size_t index, uint64_t seed) {
    GpuModelLoad load = load_gpu_model(prepared.graph, std::move(prepared.program), options_, session_);
    if (load.status.outcome == CudaOutcome::no_device)
      throw UserError("no CUDA device: " + load.status.message + "; pet-gpu runs only where a GPU is");
    if (!load.status.ok()) {
      if (!device_usable())
        throw InternalError("pet-gpu: " + load.status.message + " (the device is unusable after it)");
      throw runtime::ModelRejected(index,
                                   fmt::format("pet-gpu could not load model {}: {}", index, load.status.message));
    }
    LoadedModel loaded{std::move(prepared.graph), std::move(load.model), {}};
    loaded.inputs = random_inputs(loaded.graph, seed);
    return loaded;
  }

  // Whether the device still runs work: a sticky error (an illegal address, a failed launch) makes
  // every later call fail; a library's refusal leaves nothing behind.
  static bool device_usable() {
    cudaGetLastError();  // clears an error that is not sticky
    return cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess;
  }

  static std::vector<runtime::NodeTime> node_times(LoadedModel& loaded, int runs) {
    std::vector<runtime::NodeTime> nodes;
    for (const StepTime& step : loaded.model->profile(loaded.inputs, 0, runs))
      nodes.push_back({step.nodes.front(), step.op, step.kind, step.ms.median * 1000.0});
    return nodes;
  }

  ExecutorOptions options_;
  std::shared_ptr<DeviceSession> session_;
  runtime::SharedDevice device_;  // not shared unless the worker shares it
  double host_s_ = 0;             // prepared_for_loads's time, every call added up
};

}  // namespace

std::unique_ptr<runtime::Runtime> open_gpu_runtime(const ExecutorOptions& options) {
  return std::make_unique<GpuRuntime>(options);
}

}  // namespace pet::gpu
