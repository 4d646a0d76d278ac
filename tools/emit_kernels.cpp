// Matches each correction of the written program's history to the patch it fills in the written
// model, lowers it to CUDA with that node's activation, and writes the sources and the manifest.
#include "tools/emit_kernels.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "core/file_safety.h"
#include "core/ops/patch_lowering.h"
#include "corrector/emit_cuda.h"
#include "search/cost/cost_model.h"

namespace pet {
namespace {

// One patch input of an Overwrite or LayoutOverwrite in the written model, and the values its
// computation reads from outside the correction (the data slices, the weights).
struct WrittenPatch {
  NodeId node;
  int patch;
  std::vector<int64_t> offsets;
  Shape shape;
  std::set<std::string> reads;
  bool claimed = false;
};

std::set<std::string> outside_reads(const Graph& graph, ValueId patch, const std::vector<bool>& correction_only) {
  std::set<std::string> reads;
  std::vector<ValueId> pending = {patch};
  std::set<ValueId> seen;
  while (!pending.empty()) {
    ValueId value = pending.back();
    pending.pop_back();
    if (value == kNoValue || !seen.insert(value).second) continue;
    NodeId producer = graph.value(value).producer;
    if (producer < 0 || !correction_only[static_cast<size_t>(producer)]) {
      reads.insert(graph.value(value).name);
      continue;
    }
    for (ValueId input : graph.node(producer).inputs) pending.push_back(input);
  }
  return reads;
}

std::vector<WrittenPatch> written_patches(const Graph& written) {
  std::vector<bool> correction_only = cost::fused_correction_nodes(written);
  std::vector<WrittenPatch> patches;
  for (NodeId id = 0; id < static_cast<NodeId>(written.nodes().size()); ++id) {
    const Node& node = written.node(id);
    if (node.op() != "Overwrite" && node.op() != "LayoutOverwrite") continue;
    std::vector<ops::PatchBox> boxes = ops::patch_boxes(written, node);
    for (size_t i = 0; i < boxes.size(); ++i)
      patches.push_back({id, static_cast<int>(i), boxes[i].offsets, boxes[i].shape,
                         outside_reads(written, node.inputs[i + 1], correction_only)});
  }
  return patches;
}

// The patch lands where the correction's box is, on an output of the same shape, and is computed
// from the data the correction reads at its site (weights may have been folded under new names).
bool fills(const Graph& written, const WrittenPatch& patch, const CorrectedSite& site,
           const corrector::Correction& correction) {
  const Shape& output = site.original.value(site.original.outputs().at(static_cast<size_t>(correction.output))).type.shape;
  if (written.value(written.node(patch.node).outputs[0]).type.shape != output) return false;
  if (patch.offsets != correction.box.lo) return false;
  for (int d = 0; d < patch.shape.rank(); ++d)
    if (patch.shape[d] != correction.box.hi[static_cast<size_t>(d)] - correction.box.lo[static_cast<size_t>(d)]) return false;
  for (const corrector::InputSlice& slice : correction.input_slices) {
    std::optional<ValueId> value = written.find_value(slice.value);
    if (value && !written.is_constant(*value) && !patch.reads.count(slice.value)) return false;
  }
  return true;
}

nlohmann::ordered_json kernel_entry(const Graph& written, const WrittenPatch& patch, const corrector::CudaKernel& kernel,
                                    const corrector::Correction& correction, size_t step, const Transformation& t) {
  const Node& node = written.node(patch.node);
  nlohmann::ordered_json params = nlohmann::ordered_json::array();
  for (const std::string& name : kernel.params)
    params.push_back({{"value", name}, {"in_written_model", written.find_value(name).has_value()}});
  std::vector<std::string> fixes;
  for (const Box& box : correction.covers) fixes.push_back(box.to_string());
  std::optional<corrector::FusedActivation> activation = corrector::fused_activation_of(node);
  return {{"kernel", kernel.name},
          {"file", kernel.name + ".cu"},
          {"transformation", step + 1},
          {"transformation_name", t.name},
          {"replaces", t.location},
          {"written_into", {{"node", node.name}, {"op", node.op()}, {"patch", patch.patch}, {"offsets", patch.offsets},
                            {"shape", patch.shape.dims()}}},
          {"output_box", correction.box.to_string()},
          {"fixes", fixes},
          {"params", params},
          {"output_param", "the written node's output buffer (float*), written in place inside the box"},
          {"launch", {{"grid", kernel.launch.grid}, {"block", kernel.launch.block}}},
          {"elements", kernel.elements},
          {"activation", activation ? nlohmann::ordered_json(activation->op) : nlohmann::ordered_json(nullptr)}};
}

}  // namespace

nlohmann::ordered_json correction_kernel_manifest(const Graph& written, const std::vector<Transformation>& history,
                                                  std::vector<std::pair<std::string, std::string>>& sources) {
  std::vector<WrittenPatch> patches = written_patches(written);
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array(), skipped = nlohmann::ordered_json::array();
  std::set<std::string> named;
  for (size_t step = 0; step < history.size(); ++step) {
    for (const auto& site : history[step].corrected_sites) {
      for (const corrector::Correction& correction : site->corrections) {
        auto patch = std::find_if(patches.begin(), patches.end(), [&](const WrittenPatch& candidate) {
          return !candidate.claimed && fills(written, candidate, *site, correction);
        });
        if (patch == patches.end()) {
          skipped.push_back({{"transformation", step + 1}, {"output_box", correction.box.to_string()},
                             {"reason", "no patch of the written model fills this box (its site was left out of the move)"}});
          continue;
        }
        patch->claimed = true;
        corrector::CudaEmitOptions options;
        options.activation = corrector::fused_activation_of(written.node(patch->node));
        try {
          corrector::CudaKernel kernel = corrector::emit_cuda_kernel(site->original, correction, options);
          if (named.insert(kernel.name).second) sources.emplace_back(kernel.name, kernel.source);
          kernels.push_back(kernel_entry(written, *patch, kernel, correction, step, history[step]));
        } catch (const UserError& error) {
          skipped.push_back({{"transformation", step + 1}, {"output_box", correction.box.to_string()},
                             {"reason", error.what()}});
        }
      }
    }
  }
  return {{"format", "pet correction kernels, version 1"},
          {"kernels", kernels},
          {"not_emitted", skipped}};
}

int write_correction_kernels(const std::string& folder, const Graph& written, const std::vector<Transformation>& history) {
  std::vector<std::pair<std::string, std::string>> sources;
  nlohmann::ordered_json manifest = correction_kernel_manifest(written, history, sources);
  prepare_output_folder(folder, "--emit-kernels");
  for (const auto& [name, source] : sources)
    write_file_atomically((std::filesystem::path(folder) / (name + ".cu")).string(), source, "a correction kernel");
  write_file_atomically((std::filesystem::path(folder) / "manifest.json").string(), manifest.dump(2) + "\n",
                        "the kernel manifest");
  return static_cast<int>(manifest["kernels"].size());
}

}  // namespace pet
