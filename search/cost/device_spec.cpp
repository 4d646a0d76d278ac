// Loading device specs: the embedded h100/h200/a100/v100 files by name, or a user's JSON file by path.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/error.h"
#include "search/cost/cost_model.h"
#include "search/cost/embedded_devices.h"

namespace pet::cost {
namespace {

// fraction: a share of some peak, in (0, 1]; count: a size or a number of slices, at least 1.
enum class Range { fraction, positive, count, non_negative };

struct CurveField {
  const char* name;
  double EfficiencyCurves::*member;
  Range range;
};

constexpr CurveField kCurveFields[] = {
    {"gemm_peak", &EfficiencyCurves::gemm_peak, Range::fraction},
    {"conv_peak", &EfficiencyCurves::conv_peak, Range::fraction},
    {"tile_m", &EfficiencyCurves::tile_m, Range::count},
    {"tile_n", &EfficiencyCurves::tile_n, Range::count},
    {"split_k_max", &EfficiencyCurves::split_k_max, Range::count},
    {"split_k_min_depth", &EfficiencyCurves::split_k_min_depth, Range::positive},
    {"tensor_core_alignment", &EfficiencyCurves::tensor_core_alignment, Range::count},
    {"unaligned", &EfficiencyCurves::unaligned, Range::fraction},
    {"dilated", &EfficiencyCurves::dilated, Range::fraction},
    {"grouped", &EfficiencyCurves::grouped, Range::fraction},
    {"depthwise", &EfficiencyCurves::depthwise, Range::fraction},
    {"cuda_core", &EfficiencyCurves::cuda_core, Range::fraction},
    {"bandwidth_peak", &EfficiencyCurves::bandwidth_peak, Range::fraction},
    {"bandwidth_half_bytes", &EfficiencyCurves::bandwidth_half_bytes, Range::positive},
    {"permute_bandwidth", &EfficiencyCurves::permute_bandwidth, Range::fraction},
    {"unhidden", &EfficiencyCurves::unhidden, Range::fraction},
    {"conv_fixed_us", &EfficiencyCurves::conv_fixed_us, Range::non_negative},
};

bool in_range(double value, Range range) {
  switch (range) {
    case Range::fraction: return value > 0 && value <= 1;
    case Range::positive: return value > 0;
    case Range::count: return value >= 1;
    case Range::non_negative: return value >= 0;
  }
  return false;
}

const char* range_text(Range range) {
  switch (range) {
    case Range::fraction: return "a number in (0, 1]";
    case Range::positive: return "a positive number";
    case Range::count: return "a number >= 1";
    case Range::non_negative: return "a number >= 0";
  }
  return "";
}

double positive_number(const nlohmann::json& object, const char* field, const std::string& source) {
  auto found = object.find(field);
  if (found == object.end() || !found->is_number() || found->get<double>() <= 0)
    throw UserError(fmt::format("device spec '{}': \"{}\" is missing or not a positive number", source, field));
  return found->get<double>();
}

std::string text_field(const nlohmann::json& object, const char* field, const std::string& source) {
  auto found = object.find(field);
  if (found == object.end() || !found->is_string())
    throw UserError(fmt::format("device spec '{}': \"{}\" is missing or not a string", source, field));
  return found->get<std::string>();
}

EfficiencyCurves read_curves(const nlohmann::json& efficiency, const std::string& source) {
  EfficiencyCurves curves;
  for (const CurveField& field : kCurveFields) {
    auto found = efficiency.find(field.name);
    bool documented = found != efficiency.end() && found->is_object() && found->contains("value") &&
                      (*found)["value"].is_number() && found->contains("doc") && (*found)["doc"].is_string();
    double value = documented ? (*found)["value"].get<double>() : 0.0;
    if (!documented || !in_range(value, field.range))
      throw UserError(fmt::format("device spec '{}': efficiency \"{}\" must be {{\"value\": {}, \"doc\": \"what it means\"}}",
                                  source, field.name, range_text(field.range)));
    curves.*field.member = value;
  }
  return curves;
}

}  // namespace

DeviceSpec parse_device(const std::string& json_text, const std::string& source) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& error) {
    throw UserError(fmt::format("device spec '{}' is not valid JSON at byte {}", source, error.byte));
  }
  if (!root.is_object()) throw UserError(fmt::format("device spec '{}': expected a JSON object", source));
  DeviceSpec spec;
  spec.name = text_field(root, "name", source);
  spec.description = text_field(root, "description", source);
  spec.fp32_flops = positive_number(root, "fp32_tflops", source) * 1e12;
  spec.tf32_flops = positive_number(root, "tf32_tflops", source) * 1e12;
  spec.fp16_flops = positive_number(root, "fp16_tflops", source) * 1e12;
  spec.bandwidth = positive_number(root, "bandwidth_gb_per_s", source) * 1e9;
  spec.launch_overhead_us = positive_number(root, "launch_overhead_us", source);
  spec.sm_count = static_cast<int>(positive_number(root, "sm_count", source));
  auto efficiency = root.find("efficiency");
  if (efficiency == root.end() || !efficiency->is_object())
    throw UserError(fmt::format("device spec '{}': \"efficiency\" is missing or not an object", source));
  spec.efficiency = *efficiency;
  spec.curves = read_curves(*efficiency, source);
  return spec;
}

// The CPU spec prices only what a measured target could not time; it is no target of its own.
constexpr const char* kCpuFallback = "cpu";

std::vector<std::string> known_devices() {
  std::vector<std::string> names;
  for (const EmbeddedDevice& device : embedded_devices())
    if (std::string(device.name) != kCpuFallback) names.emplace_back(device.name);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

// The embedded specs never change: each is parsed once per process (every optimize() opens one).
const std::map<std::string, DeviceSpec>& embedded_specs() {
  static const std::map<std::string, DeviceSpec> specs = [] {
    std::map<std::string, DeviceSpec> parsed;
    for (const EmbeddedDevice& device : embedded_devices())
      parsed.emplace(device.name, parse_device(device.json, "built-in " + std::string(device.name)));
    return parsed;
  }();
  return specs;
}

}  // namespace

DeviceSpec load_cpu_fallback() {
  auto found = embedded_specs().find(kCpuFallback);
  PET_CHECK(found != embedded_specs().end(), "the cpu spec is embedded");
  return found->second;
}

DeviceSpec load_device(const std::string& name_or_path) {
  if (auto found = embedded_specs().find(name_or_path); found != embedded_specs().end() && name_or_path != kCpuFallback)
    return found->second;
  std::error_code error;
  if (std::filesystem::is_regular_file(name_or_path, error)) {
    std::ifstream file(name_or_path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    if (file.is_open()) return parse_device(text.str(), name_or_path);
  }
  throw UserError(fmt::format(
      "unknown device '{}': pet ships specs for {} and no readable file has that path; pass one of those names "
      "or the path of a device spec JSON file shaped like search/cost/devices/h100.json",
      name_or_path, fmt::join(known_devices(), ", ")));
}

}  // namespace pet::cost
