// The measured choice among a correction's standard-op lowerings (core/ops/patch_lowering.h):
// ONNX Runtime cannot load pet's fused correction kernel (its custom-op API needs C/C++ headers
// that its wheel does not ship), so for ort-cpu each correction is written in the lowering the
// runtime runs fastest in its place in the program.
#pragma once

#include <utility>
#include <vector>

#include "core/graph.h"
#include "core/ops/patch_lowering.h"
#include "search/cost/cost_model.h"

namespace pet::cost {

// Whether the target writes corrections as standard ops whose lowering it picks: ort-cpu (by its
// name, so a replayed DB picks as the measuring run did). OpenVINO runs pet's extension kernel,
// and a GPU spec gets the emitted CUDA kernels.
bool picks_correction_lowerings(const CostModel& cost);

// An Overwrite or LayoutOverwrite: a correction whose lowering the pick chooses.
bool is_correction(const Node& node);

// The lowering of each correction node in graph order, joined by "+" ("" when there is none).
std::string correction_lowerings_of(const Graph& graph);

// The program's cost with every correction written in each lowering in turn (the lowerings some
// correction refuses are left out): what the pick chose among, for reports and benchmarks.
std::vector<std::pair<ops::PatchLowering, double>> cost_by_lowering(const Graph& graph, const CostModel& cost);

// Each Overwrite and LayoutOverwrite without a lowering takes the one that makes the whole
// program cheapest under `cost` (each variant's kernel group timed like any other, or replayed);
// a tie keeps slices, the first. Lowerings the node's patches or the opset refuse are skipped.
// Returns the nodes given a lowering other than slices; no change on other targets.
int pick_correction_lowerings(Graph& graph, const CostModel& cost);

}  // namespace pet::cost
