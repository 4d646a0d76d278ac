// LayoutOverwrite: a Layout whose output then gets patches written over it, one after another;
// the corrector's fused form of `Overwrite(...Overwrite(Layout(m), p1)..., pk)`. Every facet is
// the Layout's followed by the Overwrites', called through the registry (the export: the Layout's,
// then the patches as patch_lowering.h writes them), so the fused op cannot drift from the two it
// replaces; finalize may fuse a following Relu too (activation="relu").
#include <numeric>

#include <fmt/format.h>

#include "core/error.h"
#include "core/graph.h"
#include "core/onnx_mapping.h"
#include "core/ops/fused_activation.h"
#include "core/ops/import_util.h"
#include "core/ops/layout.h"
#include "core/ops/op_util.h"
#include "core/ops/overwrite.h"
#include "core/ops/patch_lowering.h"
#include "core/registry.h"

namespace pet::ops {
namespace {

constexpr int kMaxPatches = 64;

const OpDef& layout_def() { return OpRegistry::global().get("Layout"); }
const OpDef& overwrite_def() { return OpRegistry::global().get("Overwrite"); }

// Patch i's offsets (`offsets` holds them back to back, `rank` each) as Overwrite attributes.
Attributes patch_attrs(const Attributes& attrs, int patch, int rank) {
  const auto& offsets = attrs.get_ints("offsets");
  auto begin = offsets.begin() + static_cast<int64_t>(patch) * rank;
  return {{"offsets", std::vector<int64_t>(begin, begin + rank)}};
}

// The Layout facets read only expanded/perm/groups, so they take this op's attributes as they are.
ShapeResult infer_layout_overwrite(const ShapeContext& context) {
  const TensorType* source[] = {&context.input(0)};
  PET_TRY_ASSIGN(std::vector<TensorType> laid_types,
                 layout_def().infer(ShapeContext{context.attrs, source, context.op, context.node_name}));
  TensorType laid = laid_types.at(0);
  int patches = context.num_inputs() - 1;
  int rank = laid.shape.rank();
  const auto& offsets = context.attrs.get_ints("offsets");
  PET_REFUSE_UNLESS(context, static_cast<int64_t>(offsets.size()) == static_cast<int64_t>(patches) * rank,
                    fmt::format("offsets {} need {} entries: {} per patch for each of the {} patches",
                                ints_to_string(offsets), patches * rank, rank, patches));
  std::vector<PatchBox> boxes;
  for (int i = 0; i < patches; ++i) {
    const TensorType* pair[] = {&laid, &context.input(1 + i)};
    Attributes attrs = patch_attrs(context.attrs, i, rank);
    PET_TRY(overwrite_def().infer(ShapeContext{attrs, pair, context.op, context.node_name}));
    boxes.push_back({attrs.get_ints("offsets"), context.input(1 + i).shape});
  }
  PET_TRY(check_patch_lowering(context, laid.shape, boxes));
  return {laid};
}

void layout_overwrite_kernel(KernelContext& context) {
  Tensor& out = context.outputs[0];
  apply_layout(context.input(0), context.attrs, out);
  int rank = out.shape().rank();
  for (int i = 0; i + 1 < static_cast<int>(context.inputs.size()); ++i)
    write_patch(context.input(1 + i), patch_attrs(context.attrs, i, rank).get_ints("offsets"), out);
}

// One pass over the source, the patches and the output: the patches land where the Layout would
// have written, so the output is written once.
Cost layout_overwrite_cost(const CostContext& context) { return {0, context.input_bytes() + context.output_bytes()}; }

// The last patch covering the position wins (as the last Overwrite would); elsewhere the Layout.
uint64_t layout_overwrite_point(const PointContext& context) {
  const auto& offsets = context.attrs.get_ints("offsets");
  int rank = context.output.shape.rank();
  int64_t local[kMaxRank];
  for (int i = static_cast<int>(context.inputs.size()) - 2; i >= 0; --i) {
    const Shape& patch = context.input(1 + i).shape;
    bool inside = true;
    for (int d = 0; d < rank && inside; ++d) {
      local[d] = context.index[d] - offsets[static_cast<size_t>(i * rank + d)];
      inside = local[d] >= 0 && local[d] < patch[d];
    }
    if (inside) return context.pull(1 + i, local);
  }
  const TensorType* source[] = {&context.input(0)};
  return layout_def().eval_point(
      PointContext{context.attrs, source, context.output, context.output_index, context.index, context.puller});
}

BoxGrid layout_overwrite_boxes(const BoxContext& context) {
  const TensorType* source[] = {&context.input(0)};
  const BoxGrid* source_grid[] = {&context.grid(0)};
  BoxGrid grid = layout_def().propagate_boxes(BoxContext{context.attrs, source, source_grid, context.output, 0});
  int rank = context.output.shape.rank();
  for (int i = 0; i + 1 < static_cast<int>(context.inputs.size()); ++i) {
    const TensorType* pair[] = {&context.output, &context.input(1 + i)};
    const BoxGrid* grids[] = {&grid, &context.grid(1 + i)};
    Attributes attrs = patch_attrs(context.attrs, i, rank);
    grid = overwrite_def().propagate_boxes(BoxContext{attrs, pair, grids, context.output, 0});
  }
  return grid;
}

// One step of the lowering: the named input and output stand in for the fused node's.
class StepExport : public ForwardingExportNode {
 public:
  StepExport(OnnxExportNode& outer, std::string input, std::optional<TensorType> type, std::string output)
      : ForwardingExportNode(outer), input_(std::move(input)), type_(std::move(type)), output_(std::move(output)) {}
  std::string input(int /*index*/) const override { return input_; }
  std::string output(int /*index*/) const override { return output_; }
  std::optional<TensorType> input_type(int /*index*/) const override { return type_; }

 private:
  std::string input_;
  std::optional<TensorType> type_;
  std::string output_;
};

// Lowered to the unfused pair: the Layout's Reshape/Transpose/Reshape through its own exporter,
// then the patches by the node's lowering (patch_lowering.h).
void export_layout_overwrite(const Node& node, OnnxExportNode& out) {
  std::optional<TensorType> source = out.input_type(0);
  PET_CHECK(source, "LayoutOverwrite export needs its input types");
  const auto& attrs = node.attrs;
  TensorType laid{source->dtype, layout_output_shape(attrs)};
  int patches = static_cast<int>(node.inputs.size()) - 1;
  std::string current = patches == 0 ? out.output(0) : out.fresh_name("layout");
  Node layout{&layout_def(), node.name + "_layout",
              layout_attrs(attrs.get_ints("expanded"), attrs.get_ints("perm"), attrs.get_ints("groups")), {}, {}};
  StepExport layout_step(out, out.input(0), source, current);
  layout_def().to_onnx(layout, layout_step);
  if (patches == 0) return;
  int rank = laid.shape.rank();
  std::vector<ExportedPatch> written;
  for (int i = 0; i < patches; ++i) {
    std::optional<TensorType> patch = out.input_type(1 + i);
    PET_CHECK(patch, "LayoutOverwrite export needs its input types");
    written.push_back({out.input(1 + i), {patch_attrs(attrs, i, rank).get_ints("offsets"), patch->shape},
                       fmt::format("{}_overwrite{}", node.name, i)});
  }
  export_patches(out, node.name, current, laid, written, lowering_of(attrs), out.output(0));
}

}  // namespace

OpDef make_LayoutOverwrite() {
  OpDef def;
  def.name = "LayoutOverwrite";  // not an ONNX op: the Layout + Overwrite lowerings, or pet's extension op
  def.extension_domain = kPetDomain;
  def.attrs = {attr_ints("expanded"), attr_ints("perm"), attr_ints("groups"), attr_ints("offsets"),
               {kLoweringAttr, AttrKind::String, AttrValue(std::string("slices")), true}};
  def.min_inputs = 1;
  def.max_inputs = 1 + kMaxPatches;
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs.resize(static_cast<size_t>(def.max_inputs));
  std::iota(def.traits.linear_inputs.begin(), def.traits.linear_inputs.end(), 0);
  def.traits.layout_only = true;
  def.infer = infer_layout_overwrite;
  def.compute = layout_overwrite_kernel;
  def.cost = layout_overwrite_cost;
  def.to_onnx = export_layout_overwrite;
  def.eval_point = layout_overwrite_point;
  def.propagate_boxes = layout_overwrite_boxes;
  return with_fused_activation(std::move(def));  // activation="relu" after finalize
}

}  // namespace pet::ops
