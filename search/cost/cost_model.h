// The cost model: a graph's expected time on its target, measured in the target runtime kernel
// group by kernel group (kept in the profile DB, for a GPU target timed on a GPU machine and
// imported), or from an analytic roofline over each op's FLOP and byte counts.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/default_seed.h"
#include "core/graph.h"
#include "kernels/runtime/runtime.h"
#include "search/cost/in_context.h"
#include "search/cost/kernel_groups.h"
#include "search/cost/target.h"

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
  double conv_fixed_us = 0;  // a tensor-core convolution's time beyond one launch (>= 0)
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
// The spec that prices a measured target's kernel groups it could neither time nor replay.
DeviceSpec load_cpu_fallback();
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
// A kernel key with every fused activation (a Conv's activation="relu") spelled as the standard
// op that follows the node ("Conv[...](...) f32 ; Relu(#0) f32"), the form the runtime sees either
// way; `#k` references are renumbered. Other keys are returned as they are.
std::string canonical_key(const std::string& key);

struct ProfileEntry {
  std::string key;            // OpSignature::key()
  std::string device;         // "h100"
  double microseconds = 0;    // median
  std::string method;         // "cudnn IMPLICIT_PRECOMP_GEMM fused bias+relu", "cublas sgemm", ...
  std::string libraries;      // "CUDA 13.0, cuDNN 9.19.0, cuBLAS 13.1.0"
  std::string date;           // ISO 8601
  double spread_us = 0;       // half the interquartile range of the timed runs (0: not recorded)
  int runs = 0;               // timed runs behind the median (0: not recorded)
  bool operator==(const ProfileEntry&) const = default;
};

// Measured times (JSON: {"entries": [...]}, sorted by device then key so files diff cleanly).
class ProfileDb {
 public:
  static ProfileDb load(const std::string& path);  // UserError naming the file when malformed
  // The same from JSON text; `source` names it in error messages.
  static ProfileDb parse(const std::string& json_text, const std::string& source);
  void save(const std::string& path) const;
  // Saves what this DB added or changed since `loaded` (the same file as read earlier) into the
  // file as it is now, under an exclusive lock on PATH.lock: runs sharing a DB keep each other's
  // entries; where both changed one, this DB's wins. UserError when the file became malformed.
  void save_merged(const std::string& path, const ProfileDb& loaded) const;
  std::string to_json_text() const;                 // what save() writes
  std::optional<double> lookup(const std::string& device, const std::string& key) const;
  const ProfileEntry* find(const std::string& device, const std::string& key) const;
  // The measured targets recorded for `target_name` at `threads` (parse_db_device of each device).
  std::vector<Target> measured_targets(const std::string& target_name, int threads) const;
  void add(ProfileEntry entry);                     // replaces an entry with the same device+key
  std::vector<ProfileEntry> entries() const;         // sorted by device then key

 private:
  // By (device, key): kept in the order files are written, and an add costs a lookup, not a copy
  // of the whole DB (a measured target adds entries throughout a search).
  std::map<std::pair<std::string, std::string>, ProfileEntry> entries_;
};

struct NodeCost {
  double microseconds = 0;  // > 0 for every op that runs; 0 only for nodes folded before running
  double flops = 0;
  double bytes = 0;
  bool folded = false;      // every input is a constant (weight preparation, folded by finalize)
};

// The median of timed runs, and their spread: half the interquartile range (0 for fewer than 2).
double median_of(std::vector<double> values);
double half_iqr(std::vector<double> values);

// Today's date (UTC, ISO 8601), as profile DB entries record it.
std::string today();

// A whole model's end-to-end time as the DB keeps it: the median and spread of `runs_us`, times
// `scale` (a reference's recorded time over its time in this run, 1 for the first run), under `method`.
ProfileEntry end_to_end_entry(const Target& target, const std::string& key, const std::vector<double>& runs_us,
                              double scale, const std::string& method);

// Nodes that only compute a correction's values (their one reader chain ends in an Overwrite's or
// LayoutOverwrite's correction operand): the emitted correction kernel recomputes them in place.
std::vector<bool> fused_correction_nodes(const Graph& graph);

// Where a GPU runs a node of a kernel group, which on a GPU target is one pet-gpu step
// (GroupingRule::pet_gpu_steps).
enum class KernelPlace {
  own_kernel,  // the step's kernel: a launch, its reads and its write (a step's first node)
  fused,       // inside its step's kernel (a cuDNN or cuBLASLt epilogue, an elementwise tree, a
               // written-out layer normalization): its arithmetic and the reads of its operands
               // from outside the step
  view,        // no kernel (KernelGroup::in_place): a view op whose output is no graph output, a
               // Concat its producers write straight into, a Split into pieces of its input
};

// "own kernel", "fused", "view": as pet-profile --estimate prints a place.
const char* kernel_place_name(KernelPlace place);

// Each node's place in `group`, one step of `grouping` (whose rule must be pet_gpu_steps): a group
// pet-gpu runs in place none, else the first node the step's kernel and every other node fused into it.
std::vector<KernelPlace> gpu_kernel_places(const KernelGrouping& grouping, const KernelGroup& group);

// The analytic spec's price of one node as a GPU runs it: its kernel's roofline time, or, for a node
// that only computes a correction's values (`in_correction_kernel`: fused_correction_nodes, the
// analytic targets' model of PET's fused corrections), its share of a correction kernel that
// recomputes it in place.
double estimated_node_us(const DeviceSpec& device, const Graph& graph, NodeId node, bool in_correction_kernel);

// The analytic spec's price of each node of `group` as pet-gpu runs it (gpu_kernel_places): the
// step's first node as estimated_node_us, a view nothing, a node fused into the step its arithmetic
// on CUDA cores or the reads of its operands from outside the step, whichever is slower (no launch,
// no write). Their sum is what a GPU target prices a step its profile DB lacks at; pet-gpu computes
// a correction's patches in steps of their own, and they are priced as such.
std::vector<double> estimated_group_us(const DeviceSpec& device, const Graph& graph, const KernelGrouping& grouping,
                                       const KernelGroup& group);

// Where one kernel group's cost came from. `refused`: the runtime refused to run the group (the
// profile DB keeps the refusal), and it is priced at kRefusedGroupUs.
enum class CostSource { measured, replayed, estimated, refused };

// Where the costs a measured target used came from: distinct kernel groups by source.
struct CostSources {
  int64_t measured = 0;   // timed in the runtime during this run
  int64_t replayed = 0;   // read from the profile DB
  int64_t estimated = 0;  // neither: the analytic fallback (a replayed DB without the entry)
  int64_t refused = 0;    // refused by pet-gpu on the card: their programs priced past every runnable one
  double measuring_seconds = 0;  // wall clock spent timing kernel groups and in-context runs
  // Wall clock spent handing them to a runtime that records them instead (an exporting run's misses).
  double recording_seconds = 0;
};

// How a measured target's kernel groups are timed; `runtime` null replays the DB read-only.
struct Measurement {
  Target target;
  runtime::Runtime* runtime = nullptr;
  runtime::TimingOptions timing{.threads = 1, .warmup = 2, .runs = 7, .per_node = true, .seed = kDefaultSeed, .purpose = {}};
  // The target writes each correction as the standard-op lowering it runs fastest
  // (TargetSpec::picks_correction_lowering_by_measurement).
  bool picks_correction_lowering = false;
  // The target runs ONNX Runtime's contrib ops and the model may carry them (TargetSpec::
  // runs_onnx_runtime_ops, not --portable): finalize fuses attention into its Attention op where
  // that prices cheaper (search/passes/fuse_attention.h).
  bool fuses_onnx_runtime_ops = false;
  // The target runs pet-gpu's kernels: its kernel groups are pet-gpu's steps
  // (GroupingRule::pet_gpu_steps), and a group the DB lacks is estimated at the places pet-gpu runs
  // its nodes (gpu_kernel_places), not one kernel per node.
  bool pet_gpu_kernels = false;
  GroupingRule grouping_rule() const {
    return pet_gpu_kernels ? GroupingRule::pet_gpu_steps : GroupingRule::runtime_epilogues;
  }
};

// The profile DB entries of one timing, as the live path records them and pet-profile --import
// turns a GPU machine's results into them: one function per kind of request, so both agree.
inline constexpr const char* kKernelGroups = "kernel-groups";
// A kernel group timed stand-alone: its kernels' time under `key`, and the layout reorders the
// runtime put before and after them under `key` plus " @reorder-in" / " @reorder-out". None when
// the timing was not measured.
std::vector<ProfileEntry> kernel_group_entries(const Target& target, const std::string& key,
                                               const runtime::Timing& timing);
// A kernel group pet-gpu refused to run on the card (a step it has no kernel for, such as a Conv whose
// pads differ at the two ends): pet-gpu refuses a step alike stand-alone and in a whole model, so a
// program with it cannot run there. Kept in the DB at kRefusedGroupUs, so a replay prices it as the
// live run did: past every runnable program (a sum of many stays finite), never estimated.
inline constexpr double kRefusedGroupUs = 1e12;
inline constexpr const char* kRefusedGroupMethod = "refused by pet-gpu";
ProfileEntry kernel_group_refusal(const Target& target, const std::string& key, const std::string& reason);
bool is_refused_group(const ProfileEntry& entry);
// A graph's in-context run (kInContext, `base` = in_context_base of the graph the keys name): the
// end-to-end time, the profiler rows' sum, the rows naming nothing of `graph`, and the rows of each
// group key, attributed to `graph` (which may be its weight-free copy: the same nodes and names).
// None when either timing was not measured or the profiler named nothing.
std::vector<ProfileEntry> context_run_entries(const Target& target, const Graph& graph, const KernelGrouping& grouping,
                                             const std::string& base, const runtime::Timing& profiled,
                                             const runtime::Timing& plain);

class CostModel {
 public:
  // A kernel group's time as the runtime ran it stand-alone: its kernels, and the layout
  // reorders the runtime put before and after them (paid only at a blocked region's edges).
  struct GroupTime {
    double kernel_us = 0;
    double reorder_in_us = 0;
    double reorder_out_us = 0;
    CostSource source = CostSource::measured;
  };

  // An analytic target: every cost from the roofline of `device`.
  explicit CostModel(DeviceSpec device);
  // A measured target: `fallback` prices what is neither in the DB nor measurable.
  CostModel(DeviceSpec fallback, ProfileDb profile, Measurement measurement);
  const DeviceSpec& device() const { return device_; }
  ProfileDb profile() const;  // a copy: measurements add to it while the search runs
  bool measured() const { return measurement_.has_value(); }
  const Measurement* measurement() const { return measurement_ ? &*measurement_ : nullptr; }
  // A profile DB entry of this model's target (end-to-end times are kept beside kernel groups).
  std::optional<ProfileEntry> find_entry(const std::string& key) const;
  void add_entry(ProfileEntry entry) const;
  CostSources sources() const;
  // Wall clock spent in the runtime so far, timing or recording: time the search's budget does not charge.
  double runtime_seconds() const;
  NodeCost node_cost(const Graph& graph, NodeId node) const;
  // Sum over nodes; nodes whose inputs are all constants (weight preparation) cost nothing.
  double graph_cost(const Graph& graph) const;  // microseconds
  // In-context calibration of a measured target: `graph` (the cleaned input) run whole under the
  // runtime's profiler, or the run a profile DB recorded for it, fits the scales every later
  // graph_cost applies to stand-alone group times. Unfitted (scale 1) when neither is to be had.
  ContextScales calibrate_in_context(const Graph& graph);
  ContextScales context_scales() const;
  // graph_cost without the in-context scales: the sum of stand-alone group times (and reorders).
  double standalone_graph_cost(const Graph& graph) const;
  // graph_cost(graph) where it times nothing: an analytic target, a measured one that does not
  // time here, or every kernel group of `graph` known (this run's memo, the profile DB, or run as
  // no kernel); none where it would time. Thread-safe; what it reads from the DB joins the memo.
  std::optional<double> graph_cost_without_timing(const Graph& graph) const;
  // Thread-safe memo by signature key: models repeat shapes, the search asks the same many times.
 private:
  struct ContextRun {
    GroupAttribution attribution;
    double end_to_end_us = 0;
  };
  std::optional<ContextRun> stored_context_run(const std::string& base, const KernelGrouping& grouping) const;
  // Times the graph whole and records its run; false when nothing was recorded (refused, not measured).
  bool measure_context_run(const Graph& graph, const KernelGrouping& grouping, const std::string& base);
  std::vector<GroupTime> group_times(const Graph& graph, const KernelGrouping& grouping) const;
  void estimate_refused_input_groups(const Graph& graph, const KernelGrouping& grouping,
                                     std::vector<GroupTime>& times) const;
  bool free_on_gpu(const KernelGroup& group) const;
  double measured_graph_cost(const Graph& graph) const;
  // The fallback's estimate: one kernel per node, or on a target running pet-gpu's kernels at the
  // group's gpu_kernel_places.
  double estimated_group_cost(const Graph& graph, const KernelGrouping& grouping, const KernelGroup& group) const;
  // Times the groups in the runtime (one interleaved batch) and records them.
  void measure_groups(const Graph& graph, const KernelGrouping& grouping, const std::vector<const KernelGroup*>& groups) const;
  std::optional<GroupTime> stored_group_time(const std::string& key) const;  // under mutex_
  double with_reorders_at_edges(const Graph& graph, const KernelGrouping& grouping, const std::vector<GroupTime>& times,
                                const ContextScales& scales) const;
  // The stand-alone reorders a graph pays where its blocked regions meet plain layouts.
  double reorders_at_edges(const Graph& graph, const KernelGrouping& grouping, const std::vector<GroupTime>& times) const;
  DeviceSpec device_;
  mutable ProfileDb profile_;
  std::optional<Measurement> measurement_;
  mutable std::mutex mutex_;
  mutable std::mutex measuring_;  // one measurement at a time: they would disturb each other
  mutable std::map<std::string, NodeCost> memo_;
  mutable std::map<std::string, GroupTime> group_memo_;
  // Adds a runtime call's wall clock to measuring or recording, as the runtime times or records.
  void add_runtime_seconds(double seconds) const;  // under mutex_
  mutable double measuring_seconds_ = 0;
  mutable double recording_seconds_ = 0;
  ContextScales scales_;  // set once, before the search reads costs (calibrate_in_context)
};

}  // namespace pet::cost
