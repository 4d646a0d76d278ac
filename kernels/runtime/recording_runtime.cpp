// RecordingRuntime: each model imported once and printed weight-free (its node names kept, so the
// per-node rows measured elsewhere attribute to it), each distinct request kept in order.
#include "kernels/runtime/recording_runtime.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "core/error.h"
#include "core/file_safety.h"
#include "core/hash.h"
#include "core/onnx_import.h"
#include "core/text_ir.h"

namespace pet::runtime {
namespace {

uint64_t hash_of(std::string_view text) {
  Hasher hasher;
  hasher.add(text);
  return hasher.value();
}

bool same_request(const TimingRequest& a, const TimingRequest& b) {
  const TimingOptions &x = a.options, &y = b.options;
  return a.models == b.models && x.purpose.kind == y.purpose.kind && x.purpose.keys == y.purpose.keys &&
         x.purpose.first == y.purpose.first && x.threads == y.threads && x.warmup == y.warmup && x.runs == y.runs &&
         x.per_node == y.per_node && x.seed == y.seed;
}

}  // namespace

RecordingRuntime::RecordingRuntime(std::string target) : target_(std::move(target)) {}

std::string RecordingRuntime::record_model(const std::string& bytes) {
  uint64_t hash = hash_of(bytes);
  if (auto known = file_of_bytes_.find(hash); known != file_of_bytes_.end()) return known->second;
  std::string text = print_graph(import_onnx_bytes(bytes, "a recorded model"),
                                 PrintOptions{.node_names = true, .weight_free = true});
  std::string name = fmt::format("{:016x}.pet", hash_of(text));
  text_of_file_.emplace(name, std::move(text));
  file_of_bytes_.emplace(hash, name);
  return name;
}

std::vector<Timing> RecordingRuntime::time_models(const std::vector<ModelBytes>& models, const TimingOptions& options) {
  TimingRequest request;
  request.target = target_;
  request.options = options;
  for (const ModelBytes& model : models)
    request.models.push_back(model.with_bytes([&](const std::string& bytes) { return record_model(bytes); }));
  bool known = std::any_of(requests_.begin(), requests_.end(),
                           [&](const TimingRequest& recorded) { return same_request(recorded, request); });
  if (!known) {
    request.id = static_cast<int>(requests_.size()) + 1;
    requests_.push_back(std::move(request));
  }
  return std::vector<Timing>(models.size());
}

std::vector<Tensor> RecordingRuntime::run_model(const std::string&, const std::vector<Tensor>&, int) {
  PET_CHECK(false, fmt::format("the {} runtime here only records timing requests: it runs no model", target_));
  return {};
}

void RecordingRuntime::write(const std::string& path) const {
  std::filesystem::path folder = models_folder(path);
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
  std::filesystem::create_directories(folder);
  for (const auto& [name, text] : text_of_file_)
    write_file_atomically((folder / name).string(), text, "a recorded weight-free model");
  std::string lines;
  for (const TimingRequest& request : requests_) lines += request_line(request);
  write_file_atomically(path, lines, "misses file");
}

}  // namespace pet::runtime
