// The one place a target's name is read: parsing it into a TargetSpec and its capabilities.
#include "kernels/runtime/target_spec.h"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/runtime/gpu_worker_runtime.h"
#include "kernels/runtime/openvino_runtime.h"
#include "kernels/runtime/ort_runtime.h"

namespace pet {
namespace {

constexpr std::array<std::pair<const char*, TargetSpec::Kind>, 4> kMeasured = {
    {{"ort-cpu", TargetSpec::Kind::onnxruntime_cpu},
     {"openvino-cpu", TargetSpec::Kind::openvino_cpu},
     {"h100", TargetSpec::Kind::gpu},
     {"h200", TargetSpec::Kind::gpu}}};

std::vector<std::string> names_of(bool gpu) {
  std::vector<std::string> names;
  for (const auto& [name, kind] : kMeasured)
    if ((kind == TargetSpec::Kind::gpu) == gpu) names.push_back(name);
  return names;
}

}  // namespace

TargetSpec TargetSpec::parse(const std::string& name, int runtime_threads) {
  if (name.empty())
    throw UserError("--target needs a name: ort-cpu, openvino-cpu (measured here), h100, h200 (measured on a GPU "
                    "machine), or a100, v100 or a device spec file (estimated)");
  if (runtime_threads < 0) throw UserError(fmt::format("--threads {} must be at least 1", runtime_threads));
  TargetSpec spec;
  spec.name_ = name;
  spec.kind_ = Kind::device;
  spec.runtime_threads_ = runtime_threads;
  for (const auto& [measured_name, kind] : kMeasured)
    if (name == measured_name) spec.kind_ = kind;
  return spec;
}

std::vector<std::string> TargetSpec::measured_names() { return names_of(false); }

std::vector<std::string> TargetSpec::gpu_names() { return names_of(true); }

int TargetSpec::resolved_threads() const {
  if (!timed_here()) return 1;  // a GPU's one stream
  return runtime_threads_ > 0 ? runtime_threads_ : runtime::available_cores();
}

std::string TargetSpec::correction_form() const {
  switch (kind_) {
    case Kind::onnxruntime_cpu: return "as the standard ops ONNX Runtime runs fastest";
    case Kind::openvino_cpu: return "as pet's OpenVINO extension op, or standard ops with --portable";
    case Kind::gpu:
    case Kind::device: return "as CUDA kernels pet emits (--emit-kernels)";
  }
  PET_CHECK(false, "unknown target kind");
  return "";
}

std::unique_ptr<runtime::Runtime> TargetSpec::open_runtime() const {
  switch (kind_) {
    case Kind::onnxruntime_cpu: return runtime::open_ort_runtime();
    case Kind::openvino_cpu: return runtime::open_openvino_runtime();
    case Kind::gpu: return runtime::open_gpu_worker_runtime(/*strict=*/true);
    case Kind::device: break;
  }
  PET_CHECK(false, fmt::format("target {} is an analytic spec: it has no runtime to open", name_));
  return nullptr;
}

}  // namespace pet
