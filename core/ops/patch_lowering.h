// The standard-op lowerings of a base tensor with patches written over it (Overwrite and the fused
// LayoutOverwrite share them): nested Slices and Concats, one ScatterND, or a Pad and Where per
// patch. A measured target times each and keeps the fastest per node (the pet-only attribute
// `lowering`, see search/cost/correction_lowering.h); every lowering computes the same values.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/attributes.h"
#include "core/graph.h"
#include "core/onnx_mapping.h"
#include "core/op_def.h"
#include "core/shape.h"

namespace pet::ops {

inline constexpr const char* kLoweringAttr = "lowering";
// ScatterND and the input forms of Pad's pads: the lowerings other than slices need opset 11.
inline constexpr int kPatchLoweringMinOpset = 11;

enum class PatchLowering { slices, scatter, where };

// "slices", "scatter", "where": every lowering, the default first (a measured tie keeps it).
std::span<const PatchLowering> patch_lowerings();
const char* to_string(PatchLowering lowering);
std::optional<PatchLowering> parse_patch_lowering(const std::string& text);

// Where one patch lands: its offsets into the base and its extent.
struct PatchBox {
  std::vector<int64_t> offsets;
  Shape shape;
};

// Where each patch of an Overwrite or LayoutOverwrite node (its inputs 1..n) lands in its output:
// `offsets` holds the patches' offsets back to back, one output rank each.
std::vector<PatchBox> patch_boxes(const Graph& graph, const Node& node);

// Why `lowering` cannot write `boxes` over a base of shape `base` ("" when it can): ScatterND
// needs patches that do not overlap (its order over repeated indices is unspecified) and an
// index table of bounded size.
std::string patch_lowering_refusal(PatchLowering lowering, const Shape& base, const std::vector<PatchBox>& boxes);

// The node's lowering (the attribute's value; slices when absent). The shape rule's check: a
// refusal through `context` for an unknown name or a lowering these patches refuse.
PatchLowering lowering_of(const Attributes& attrs);
ShapeCheck check_patch_lowering(const ShapeContext& context, const Shape& base, const std::vector<PatchBox>& boxes);

// One patch to write: its value's name in the exported graph, where it lands, and the name its
// intermediate values are given after.
struct ExportedPatch {
  std::string value;
  PatchBox box;
  std::string hint;
};

// Writes `patches` over `base` (of `base_type`), in order (a later patch wins where they overlap),
// as standard ONNX ops producing `output`; `node` names the node in messages. UserError when the
// lowering needs a newer opset than the model's.
void export_patches(OnnxExportNode& out, const std::string& node, const std::string& base, const TensorType& base_type,
                    const std::vector<ExportedPatch>& patches, PatchLowering lowering, const std::string& output);

}  // namespace pet::ops
