// Kernel groups: the units a measured target is timed in, each what its runtime runs as one kernel
// (a CPU runtime: an op plus the elementwise ops that follow it alone; pet-gpu: one of its steps).
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"

namespace pet::cost {

struct KernelGroup {
  std::vector<NodeId> nodes;  // in graph order; nodes[0] is the head
  std::string key;            // the profile DB key: each node's signature, internal inputs as #k
  // pet-gpu runs it as no kernel (GroupingRule::pet_gpu_steps only): a view of its input, a Concat
  // its producers write straight into, or a Split into pieces of its input (kernels/gpu/plan/storage.h).
  bool in_place = false;
};

// Per value: a constant, or computed from constants only (weights the search has rearranged but
// not yet folded, which finalize folds before anything runs).
std::vector<bool> constant_derived_values(const Graph& graph);

// How a target's runtime cuts a graph into kernels.
enum class GroupingRule {
  // The CPU runtimes (ONNX Runtime, OpenVINO): a head node followed by up to three elementwise
  // nodes, each the only reader of the previous one's output, whose other inputs are constants or
  // computed outside the group; groups in graph order by head.
  runtime_epilogues,
  // pet-gpu (the h100 and h200 targets): its steps as its plan forms them (gpu::planned_steps; a
  // convolution or GEMM with its epilogue, an elementwise tree, a written-out layer normalization,
  // a correction alone, the steps computing its patches their own), each view, Concat and Split
  // pet-gpu runs in place (KernelGroup::in_place) and each node it cannot run alone; groups in
  // pet-gpu's order, by last node.
  pet_gpu_steps,
};

// A graph cut into kernel groups, with the facts about the graph the grouping computed (the
// measured cost model reads them again to place layout reorders).
struct KernelGrouping {
  std::vector<KernelGroup> groups;
  std::vector<int> group_of_node;              // -1 for nodes computed from constants only
  std::vector<bool> constant_derived;          // constant_derived_values(graph)
  Consumers readers;    // graph.consumers()
  GroupingRule rule = GroupingRule::runtime_epilogues;
};

// Every node that runs (not computed from constants only) is in exactly one group, as `rule` cuts them.
KernelGrouping kernel_groups(const Graph& graph, GroupingRule rule = GroupingRule::runtime_epilogues);

// The ops a group runs, a fused activation spelled as its own op ("Conv+Add+Relu", "Concat+Relu"):
// the class its in-context scale is fitted for. A Relu after a Concat is a kernel of its own in
// the runtimes, so it must not take the scale of a Concat the runtime writes in place.
std::string context_class(const Graph& graph, const KernelGroup& group);

// A self-contained graph that computes one group: its outside inputs become graph inputs, its
// constants are kept (values computed from constants only are computed and kept as constants,
// as finalize will fold them), and every value read outside the group (or a graph output) is an
// output.
Graph kernel_group_model(const Graph& graph, const KernelGroup& group);

// Whether the node's output is computed once by finalize before anything runs (all inputs are
// constants, or the op depends only on input types): such nodes cost nothing.
bool folded_before_running(const Graph& graph, const Node& node);

}  // namespace pet::cost
