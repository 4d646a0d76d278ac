// Finalize pass order: folding and CSE first so the layout and fusion passes see shared, folded
// weights; corrections fuse with their inverse layout, and leave it where the next conv of a stage
// undoes it, before activations fuse into the result;
// dead nodes go last. The whole list repeats until a round changes nothing.
#include "search/passes/finalize.h"

#include <fmt/format.h>

#include "core/error.h"
#include "corrector/fuse_corrections.h"
#include "search/cost/correction_lowering.h"
#include "search/passes/eliminate_common_subexpressions.h"
#include "search/passes/eliminate_dead_nodes.h"
#include "search/passes/eliminate_layout_chains.h"
#include "search/passes/fuse_attention.h"
#include "search/passes/fold_weights.h"
#include "search/passes/fuse_activations.h"
#include "search/passes/fuse_conv_bias.h"
#include "search/passes/sink_layouts.h"
#include "search/passes/sink_layouts_below_corrections.h"

namespace pet {
namespace {

// Each pass removes nodes or fuses pairs, so the rounds needed are bounded by the node count;
// this bound only guards against a pass pair that undoes each other.
constexpr int kMaxRounds = 64;

int skip_pass(Graph&) { return 0; }

}  // namespace

std::span<const NamedPass> finalize_passes() {
  static constexpr NamedPass kPasses[] = {
      {"fold-weights", fold_weights},
      {"eliminate-common-subexpressions", eliminate_common_subexpressions},
      {"sink-layouts", sink_layouts},
      {"eliminate-layout-chains", eliminate_layout_chains},
      {"fuse-conv-bias", fuse_conv_bias},
      {"fuse-corrections", corrector::fuse_corrections},
      {"sink-layouts-below-corrections", sink_layouts_below_corrections},
      {"fuse-activations", fuse_activations},
      {"eliminate-dead-nodes", eliminate_dead_nodes},
  };
  return kPasses;
}

std::vector<PassResult> finalize(Graph& graph, const FinalizeOptions& options) {
  std::vector<NamedPass> passes(finalize_passes().begin(), finalize_passes().end());
  if (!options.fold_weights) passes.front().run = skip_pass;  // fold-weights comes first
  std::vector<PassResult> results;
  for (const NamedPass& pass : passes) results.push_back({pass.name, 0});
  for (int round = 1;; ++round) {
    PET_CHECK(round <= kMaxRounds, fmt::format("finalize did not reach a fixed point in {} rounds", kMaxRounds));
    int changes = 0;
    for (size_t i = 0; i < passes.size(); ++i) {
      int changed = passes[i].run(graph);
      results[i].changes += changed;
      changes += changed;
    }
    if (options.rerun_shape_rules) graph.validate();
    else graph.validate_structure();
    if (changes == 0) break;
  }
  if (options.lowerings_for) {
    results.push_back({"pick-correction-lowerings", cost::pick_correction_lowerings(graph, *options.lowerings_for)});
    const cost::Measurement* measurement = options.lowerings_for->measurement();
    if (measurement && measurement->fuses_onnx_runtime_ops)
      results.push_back({"fuse-attention", pick_attention_fusion(graph, *options.lowerings_for)});
  }
  return results;
}

}  // namespace pet
