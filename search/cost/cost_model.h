// The cost model: each node's expected GPU time on a named device, from a measured profile DB
// entry where one exists, else from an analytic roofline over the op's FLOP and byte counts.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"

namespace pet::cost {

// The efficiency-curve parameters of a device spec; their meaning is documented next to each value
// in search/cost/devices/*.json and the formulas using them are all in roofline.cpp.
struct EfficiencyCurves {
  double gemm_peak = 0;
  double conv_peak = 0;
  double tile_m = 0;
  double tile_n = 0;
  double split_k_max = 0;
  double split_k_min_depth = 0;
  double tensor_core_alignment = 0;
  double unaligned = 0;
  double dilated = 0;
  double grouped = 0;
  double depthwise = 0;
  double cuda_core = 0;
  double bandwidth_peak = 0;
  double bandwidth_half_bytes = 0;
  double permute_bandwidth = 0;
  double unhidden = 0;
};

// One device's figures (search/cost/devices/<name>.json); peak rates in units per second.
struct DeviceSpec {
  std::string name;                  // "h100"
  std::string description;           // "NVIDIA H100 SXM5 80 GB"
  double fp32_flops = 0;             // without tensor cores
  double tf32_flops = 0;             // tensor cores, what cuDNN/cuBLAS use for f32 by default
  double fp16_flops = 0;
  double bandwidth = 0;              // bytes per second from device memory
  double launch_overhead_us = 0;     // a kernel's fixed cost
  int sm_count = 0;
  // Efficiency curves (fraction of peak reached, by shape); the JSON file documents each.
  nlohmann::json efficiency;
  EfficiencyCurves curves;           // the same parameters, read and checked
};

// The device spec shipped for `name` (h100, a100, v100), or read from a JSON file path.
// UserError naming the known devices when neither exists.
DeviceSpec load_device(const std::string& name_or_path);
std::vector<std::string> known_devices();
// Reads a spec from JSON text; UserError naming `source` and the missing or bad field.
DeviceSpec parse_device(const std::string& json_text, const std::string& source);

// What a profile DB entry is keyed by: op, canonical attributes, input types, dtype, device.
struct OpSignature {
  std::string op;
  std::string attributes;               // canonical text, as the textual IR prints them
  std::vector<std::string> input_types; // "f32[1,64,56,56]", "" for an absent optional input
  std::string dtype;                    // of output 0
  std::string key() const;              // one line: "Conv[...](f32[..], f32[..]) f32"
};
OpSignature signature_of(const Graph& graph, const Node& node);

struct ProfileEntry {
  std::string key;            // OpSignature::key()
  std::string device;         // "h100"
  double microseconds = 0;    // median
  std::string method;         // "cudnn IMPLICIT_PRECOMP_GEMM fused bias+relu", "cublas sgemm", ...
  std::string libraries;      // "CUDA 13.0, cuDNN 9.19.0, cuBLAS 13.1.0"
  std::string date;           // ISO 8601
};

// Measured times (JSON: {"entries": [...]}, sorted by device then key so files diff cleanly).
class ProfileDb {
 public:
  static ProfileDb load(const std::string& path);  // UserError naming the file when malformed
  // The same from JSON text; `source` names it in error messages.
  static ProfileDb parse(const std::string& json_text, const std::string& source);
  void save(const std::string& path) const;
  std::string to_json_text() const;                 // what save() writes
  std::optional<double> lookup(const std::string& device, const std::string& key) const;
  void add(ProfileEntry entry);                     // replaces an entry with the same device+key
  const std::vector<ProfileEntry>& entries() const { return entries_; }

 private:
  std::vector<ProfileEntry> entries_;
  std::map<std::pair<std::string, std::string>, size_t> index_;
};

struct NodeCost {
  double microseconds = 0;  // > 0 for every op that runs; 0 only for nodes folded before running
  double flops = 0;
  double bytes = 0;
  bool measured = false;    // from the profile DB
  bool folded = false;      // every input is a constant (weight preparation, folded by finalize)
};

// Nodes that only compute a correction's values (their one reader chain ends in an Overwrite's or
// LayoutOverwrite's correction operand): the emitted correction kernel recomputes them in place.
std::vector<bool> fused_correction_nodes(const Graph& graph);

class CostModel {
 public:
  explicit CostModel(DeviceSpec device, ProfileDb profile = {});
  const DeviceSpec& device() const { return device_; }
  const ProfileDb& profile() const { return profile_; }
  NodeCost node_cost(const Graph& graph, NodeId node) const;
  // Sum over nodes; nodes whose inputs are all constants (weight preparation) cost nothing.
  double graph_cost(const Graph& graph) const;  // microseconds
  // Thread-safe memo by signature key: models repeat shapes, the search asks the same many times.
 private:
  double fused_correction_time(const Graph& graph, const Node& node) const;
  DeviceSpec device_;
  ProfileDb profile_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, NodeCost> memo_;
};

}  // namespace pet::cost
