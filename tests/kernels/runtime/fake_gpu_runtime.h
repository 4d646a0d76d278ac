// A test double behind runtime::Runtime standing in for pet-gpu on a GPU machine: every model is
// imported and "timed" by a fixed rule (per node, a 5 us launch plus 1 us per thousand output
// elements, so fewer kernels pay), with per-node rows under the nodes' names, and this build's GPU
// kernels in its version; a model it cannot import is refused as pet-gpu refuses one (and, when
// asked, a Conv whose pads differ at the two ends, as pet-gpu did before its column path), and a
// run computes with pet's CPU executor.
#pragma once

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "core/executor.h"
#include "core/onnx_import.h"
#include "kernels/runtime/gpu_kernels_version.h"
#include "kernels/runtime/runtime.h"

namespace pet::testing {

class FakeGpuRuntime : public runtime::Runtime {
 public:
  FakeGpuRuntime() = default;
  explicit FakeGpuRuntime(bool refuses_uneven_pads) : refuses_uneven_pads_(refuses_uneven_pads) {}
  std::string target() const override { return "pet-gpu"; }
  std::string version() const override {
    return "fake pet-gpu tf32 math (a test double), " + runtime::gpu_kernels_tag();
  }
  std::vector<runtime::Timing> time_models(const std::vector<runtime::ModelBytes>& models,
                                           const runtime::TimingOptions& options) override {
    ++calls;
    // Every model imported first, as pet-gpu's runtime prepares them, its refusals named at once.
    std::vector<Graph> graphs = runtime::each_or_refusals<Graph>(models.size(), [&](size_t i) {
      return models[i].with_bytes([&](const std::string& bytes) {
        largest_timed_ = std::max(largest_timed_, bytes.size());
        return imported(bytes, i, ImportOptions::weights_filled());
      });
    });
    imported_models += static_cast<int>(graphs.size());
    runtime::SharedDevice::Hold held = device_.hold();  // as pet-gpu's runtime: around the "device" work
    std::vector<runtime::Timing> timings;
    for (const Graph& graph : graphs) {
      runtime::Timing timing;
      double total = 0;
      for (const Node& node : graph.nodes()) {
        double us = 5.0 + static_cast<double>(graph.value(node.outputs.at(0)).type.shape.numel()) / 1000.0;
        total += us;
        if (options.per_node) timing.nodes.push_back({node.name, node.op(), "fake", us});
      }
      timing.runs_us.assign(static_cast<size_t>(options.runs), total);
      timings.push_back(std::move(timing));
    }
    return timings;
  }
  std::vector<Tensor> run_model(const std::string& model, const std::vector<Tensor>& inputs, int) override {
    largest_run_ = std::max(largest_run_, model.size());
    Graph graph = imported(model, 0, {});
    runtime::SharedDevice::Hold held = device_.hold();
    return execute(graph, inputs);
  }
  bool share_device(const runtime::SharedDevice& device) override {
    device_ = device;
    return true;
  }
  // What it was sent, as pet-gpu's activity line says what its loads did: the largest model to time
  // and to run, in bytes (models to time travel weight-free, models to run with their weights), and
  // the weights it filled as pet-gpu's line counts them.
  std::string activity() const override {
    std::string lock = device_.describe();
    return "timed models up to " + std::to_string(largest_timed_) + " bytes, ran models up to " +
           std::to_string(largest_run_) + " bytes; " + describe(random_weight_draws()) +
           (lock.empty() ? "" : "; " + lock);
  }

  int calls = 0;
  std::atomic<int> imported_models = 0;  // models to time imported, the host work done outside the GPU lock

 private:
  Graph imported(const std::string& bytes, size_t index, const ImportOptions& import) {
    Graph graph;
    try {
      graph = import_onnx_bytes(bytes, "model " + std::to_string(index), import);
    } catch (const UserError& error) {
      throw runtime::ModelRejected(index, std::string("the fake pet-gpu refuses it: ") + error.what());
    }
    for (const Node& node : graph.nodes())
      if (refuses_uneven_pads_ && node.op() == "Conv" && uneven(node.attrs.get_ints("pads")))
        throw runtime::ModelRejected(index, "the fake pet-gpu refuses it: its pads differ at the two ends");
    return graph;
  }

  static bool uneven(const std::vector<int64_t>& pads) {
    for (size_t d = 0; d < pads.size() / 2; ++d)
      if (pads[d] != pads[d + pads.size() / 2]) return true;
    return false;
  }

  bool refuses_uneven_pads_ = false;
  size_t largest_timed_ = 0;
  runtime::SharedDevice device_;
  size_t largest_run_ = 0;
};

}  // namespace pet::testing
