// In-context calibration: the input run whole in the target runtime under its own profiler says what
// each kernel group costs among its neighbours (caches warm from the producer, reorders elided,
// epilogues fused), which a group timed alone does not; the ratio per op scales every stand-alone time.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/graph.h"
#include "kernels/runtime/runtime.h"
#include "search/cost/kernel_groups.h"

namespace pet::cost {

// The profiler's rows of one whole-graph run, attributed to the graph's kernel groups.
struct GroupAttribution {
  std::vector<double> group_us;  // per group of the grouping: the time of the rows that name one of its nodes or values
  double unattributed_us = 0;    // rows naming nothing of the graph: the runtime's reorders, converts, copies
  double profiled_us = 0;        // every row
  int rows_matched = 0, rows = 0;
};

// Attributes each profiler row to the group of the node or value it names. Runtimes name a row after
// the node ("/fc/Gemm"), the node with a suffix of their own ("/conv1/Conv/WithoutBiases" in
// OpenVINO), or the value it writes ("/relu/Relu_output_0_nchwc" in ONNX Runtime's blocked layout).
GroupAttribution attribute_rows(const Graph& graph, const KernelGrouping& grouping,
                                const std::vector<runtime::NodeTime>& rows);

// The scales the cost model applies to stand-alone kernel times: in-context over stand-alone, per
// context class of a group (its ops, context_class(): summed over the groups of that class, so one
// fused-away group does not zero a class), the overall ratio for classes the input lacks, and the
// unprofiled end-to-end time over the profiled rows' sum (a profiler's own overhead).
struct ContextScales {
  bool fitted = false;
  std::map<std::string, double> by_op;  // by context class: "Conv+Add+Relu", "Transpose"
  double overall = 1;
  double end_to_end = 1;
  // The rows naming nothing of the graph (the runtime's reorders and converts) over the reorders the
  // stand-alone times charge the input at its blocked regions' edges (1 when it charges none).
  double reorder = 1;
  int groups_matched = 0, groups = 0;
  double coverage = 0;  // the share of the profiled time attributed to the graph's groups
  // The factor for a group of context class `ops` ("Conv+Relu"): by_op's, else overall; times end_to_end.
  double factor(const std::string& ops) const;
  // The factor for the stand-alone reorders: reorder times end_to_end.
  double reorder_factor() const { return fitted ? reorder * end_to_end : 1; }
};

// The profile DB keys of a graph's in-context run start with this (the graph's timing hash).
std::string in_context_base(const Graph& graph);
inline constexpr const char* kInContextKeyPrefix = "in-context model ";  // in_context_base's, and its entries'

// The kind of the timing requests of an in-context run (runtime::TimingPurpose): two of them, the
// graph profiled per node, then run with the profiler off; the purpose's one key is the base.
inline constexpr const char* kInContext = "in-context";

// The share of the profiled time the attribution must cover before scales are fitted: below it the
// runtime's rows do not name pet's nodes well enough (ONNX Runtime's fused attention and MatMul+Add
// nodes in BERT carry new names), and scales fitted on the rest would misprice the whole graph.
inline constexpr double kMinCoverage = 0.8;

// Scales are clamped to [kMinScale, kMaxScale]: a ratio outside means the attribution failed (a
// runtime that names rows otherwise), not that a kernel is 20 times faster among its neighbours.
inline constexpr double kMinScale = 0.2;
inline constexpr double kMaxScale = 5.0;

// `standalone_us`: each group's stand-alone kernel time (as the cost model holds it), by group;
// `standalone_reorders_us`: the reorders those times charge the graph at its blocked regions' edges.
ContextScales fit_scales(const Graph& graph, const KernelGrouping& grouping, const GroupAttribution& in_context,
                         const std::vector<double>& standalone_us, double standalone_reorders_us,
                         double end_to_end_us);

}  // namespace pet::cost
