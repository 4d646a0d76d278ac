// The refusal policy of timing, and the machine facts a measurement is keyed by.
#include "kernels/runtime/runtime.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "core/error.h"
#include "core/file_safety.h"

namespace pet::runtime {

std::string default_openvino_extension() {
  if (const char* given = std::getenv("PET_OPENVINO_EXTENSION")) return given;
#ifdef PET_OPENVINO_EXTENSION
  if (std::filesystem::exists(PET_OPENVINO_EXTENSION)) return PET_OPENVINO_EXTENSION;
#endif
  return "";
}

ModelBytes::ModelBytes(std::string bytes) : held_(std::make_shared<const std::string>(std::move(bytes))) {}

ModelBytes ModelBytes::written_from(const Graph& graph, const ExportOptions& options) {
  ModelBytes model;
  model.graph_ = &graph;
  model.options_ = options;
  return model;
}

int ModelBytes::write(int fd) const {
  return held_ ? write_all_bytes(fd, *held_) : write_onnx(*graph_, fd, options_);
}

std::vector<Timing> time_accepted(Runtime& runtime, const std::vector<ModelBytes>& models,
                                  const TimingOptions& options, std::vector<std::string>& refused, FirstModel first) {
  refused.assign(models.size(), "");
  std::vector<Timing> by_model(models.size());
  while (true) {
    std::vector<size_t> offered;
    for (size_t i = 0; i < models.size(); ++i)
      if (refused[i].empty()) offered.push_back(i);
    if (offered.empty()) return by_model;  // every model refused
    std::vector<ModelBytes> given;  // copies share the models' bytes or graphs
    for (size_t i : offered) given.push_back(models[i]);
    try {
      std::vector<Timing> timings = runtime.time_models(given, options);
      for (size_t k = 0; k < offered.size(); ++k) by_model[offered[k]] = std::move(timings.at(k));
      return by_model;
    } catch (const ModelRejected& refusal) {
      std::vector<ModelRejected::Refusal> all{{refusal.index(), refusal.what()}};
      all.insert(all.end(), refusal.others().begin(), refusal.others().end());
      for (size_t k = 0; k < all.size(); ++k) {
        size_t model = offered.at(all[k].index);
        if (model != 0 || first != FirstModel::reference) continue;
        if (k == 0) throw;
        throw ModelRejected(all[k].index, all[k].message);  // the reference among the others
      }
      for (const ModelRejected::Refusal& one : all) refused[offered.at(one.index)] = one.message;
    }
  }
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "unknown CPU" : line.substr(start);
  }
  return "unknown CPU";
}

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace pet::runtime
