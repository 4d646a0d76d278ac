// The three standard-op lowerings of patches written over a base tensor, and the checks that say
// which of them a given set of patches admits.
#include "core/ops/patch_lowering.h"

#include <array>

#include <fmt/format.h>

#include "core/error.h"
#include "core/ops/op_util.h"

namespace pet::ops {
namespace {

constexpr std::array kLowerings = {PatchLowering::slices, PatchLowering::scatter, PatchLowering::where};
// ScatterND's index table: at most this many int64 entries (32 MiB) in the written model.
constexpr int64_t kMaxScatterIndexEntries = int64_t{1} << 22;

bool overlap(const PatchBox& a, const PatchBox& b) {
  for (int d = 0; d < a.shape.rank(); ++d) {
    auto axis = static_cast<size_t>(d);
    if (a.offsets[axis] >= b.offsets[axis] + b.shape[d] || b.offsets[axis] >= a.offsets[axis] + a.shape[d])
      return false;
  }
  return true;
}

// The number of leading axes ScatterND indexes: every patch spans the base on the axes after them.
int scatter_depth(const Shape& base, const std::vector<PatchBox>& boxes) {
  int depth = 1;
  for (const PatchBox& box : boxes)
    for (int d = 0; d < base.rank(); ++d)
      if (box.shape[d] != base[d]) depth = std::max(depth, d + 1);
  return depth;
}

int64_t leading_count(const Shape& shape, int depth) {
  int64_t count = 1;
  for (int d = 0; d < depth; ++d) count *= shape[d];
  return count;
}

std::string constant_ints(OnnxExportNode& out, const std::vector<int64_t>& values) {
  return out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(values.size())}, values));
}

// One ONNX Slice of `source` (all axes; opset 10 moved starts/ends into inputs).
std::string slice_of(OnnxExportNode& out, const std::string& source, const std::vector<int64_t>& starts,
                     const std::vector<int64_t>& ends, const std::string& result) {
  std::vector<int64_t> axes(starts.size());
  for (size_t a = 0; a < axes.size(); ++a) axes[a] = static_cast<int64_t>(a);
  if (out.opset() < 10) {
    out.add_node("Slice", {source}, {result}, {{"starts", starts}, {"ends", ends}, {"axes", axes}});
    return result;
  }
  out.add_node("Slice", {source, constant_ints(out, starts), constant_ints(out, ends), constant_ints(out, axes)},
               {result}, {});
  return result;
}

// From the last axis outwards: the piece built so far (covering the patch's extent on axis d and
// the whole base on later axes) gets the base's slabs before and after it on axis d.
void write_by_slices(OnnxExportNode& out, const std::string& hint, const std::string& base, const Shape& shape,
                     const ExportedPatch& patch, const std::string& result) {
  const std::vector<int64_t>& offsets = patch.box.offsets;
  const Shape& extent = patch.box.shape;
  std::string piece = patch.value;
  for (int d = shape.rank() - 1; d >= 0; --d) {
    auto a = static_cast<size_t>(d);
    std::vector<int64_t> starts(a + 1, 0), ends = shape.dims();
    ends.resize(a + 1);
    for (size_t e = 0; e < a; ++e) starts[e] = offsets[e], ends[e] = offsets[e] + extent[static_cast<int>(e)];
    std::vector<std::string> parts;
    if (offsets[a] > 0) {
      starts[a] = 0, ends[a] = offsets[a];
      parts.push_back(slice_of(out, base, starts, ends, out.fresh_name(hint + "_before")));
    }
    parts.push_back(piece);
    if (offsets[a] + extent[d] < shape[d]) {
      starts[a] = offsets[a] + extent[d], ends[a] = shape[d];
      parts.push_back(slice_of(out, base, starts, ends, out.fresh_name(hint + "_after")));
    }
    if (parts.size() == 1) continue;
    std::string joined = d == 0 ? result : out.fresh_name(hint + "_joined");
    out.add_node("Concat", parts, {joined}, {{"axis", int64_t{d}}});
    piece = joined;
  }
  if (piece != result) out.add_node("Identity", {piece}, {result}, {});
}

// Each patch's index rows over the first `depth` axes, in row-major order, patch after patch.
Tensor scatter_indices(const std::vector<ExportedPatch>& patches, int depth) {
  std::vector<int64_t> rows;
  int64_t count = 0;
  for (const ExportedPatch& patch : patches) {
    Shape leading(std::vector<int64_t>(patch.box.shape.dims().begin(), patch.box.shape.dims().begin() + depth));
    std::vector<int64_t> index(static_cast<size_t>(depth));
    for (int64_t r = 0, end = leading.numel(); r < end; ++r, ++count) {
      int64_t rest = r;
      for (int d = depth - 1; d >= 0; --d) {
        index[static_cast<size_t>(d)] = rest % leading[d];
        rest /= leading[d];
      }
      for (int d = 0; d < depth; ++d) rows.push_back(index[static_cast<size_t>(d)] + patch.box.offsets[static_cast<size_t>(d)]);
    }
  }
  return Tensor::i64(Shape{count, depth}, std::move(rows));
}

// One ScatterND: each patch flattened over the indexed axes, the flattened patches concatenated.
void write_by_scatter(OnnxExportNode& out, const std::string& hint, const std::string& base, const Shape& shape,
                      const std::vector<ExportedPatch>& patches, const std::string& result) {
  std::vector<PatchBox> boxes;
  for (const ExportedPatch& patch : patches) boxes.push_back(patch.box);
  int depth = scatter_depth(shape, boxes);
  std::vector<std::string> updates;
  for (const ExportedPatch& patch : patches) {
    std::vector<int64_t> flat = {leading_count(patch.box.shape, depth)};
    for (int d = depth; d < shape.rank(); ++d) flat.push_back(shape[d]);
    std::string reshaped = out.fresh_name(patch.hint + "_rows");
    out.add_node("Reshape", {patch.value, constant_ints(out, flat)}, {reshaped}, {});
    updates.push_back(reshaped);
  }
  std::string joined = updates.front();
  if (updates.size() > 1) {
    joined = out.fresh_name(hint + "_updates");
    out.add_node("Concat", updates, {joined}, {{"axis", int64_t{0}}});
  }
  out.add_node("ScatterND", {base, out.add_constant(scatter_indices(patches, depth)), joined}, {result}, {});
}

// The patch's box as a condition that broadcasts over the base: extent 1 on the axes the patch
// spans, true inside the box on the others.
Tensor box_mask(const Shape& shape, const PatchBox& box) {
  std::vector<int64_t> dims;
  for (int d = 0; d < shape.rank(); ++d) dims.push_back(box.shape[d] == shape[d] ? 1 : shape[d]);
  Shape mask_shape(dims);
  std::vector<uint8_t> values(static_cast<size_t>(mask_shape.numel()));
  std::vector<int64_t> index(static_cast<size_t>(shape.rank()));
  for (int64_t flat = 0, end = mask_shape.numel(); flat < end; ++flat) {
    int64_t rest = flat;
    bool inside = true;
    for (int d = shape.rank() - 1; d >= 0; --d) {
      int64_t at = rest % mask_shape[d];
      rest /= mask_shape[d];
      auto a = static_cast<size_t>(d);
      if (mask_shape[d] > 1 || box.shape[d] != shape[d])
        inside = inside && at >= box.offsets[a] && at < box.offsets[a] + box.shape[d];
    }
    values[static_cast<size_t>(flat)] = inside ? 1 : 0;
  }
  return Tensor::boolean(mask_shape, std::move(values));
}

// The patch padded with zeros to the base's shape, then selected inside its box.
void write_by_where(OnnxExportNode& out, const std::string& hint, const std::string& base, const Shape& shape,
                    const ExportedPatch& patch, const std::string& result) {
  std::vector<int64_t> pads(static_cast<size_t>(2 * shape.rank()));
  for (int d = 0; d < shape.rank(); ++d) {
    auto a = static_cast<size_t>(d);
    pads[a] = patch.box.offsets[a];
    pads[a + static_cast<size_t>(shape.rank())] = shape[d] - patch.box.offsets[a] - patch.box.shape[d];
  }
  std::string padded = out.fresh_name(hint + "_padded");
  out.add_node("Pad", {patch.value, constant_ints(out, pads)}, {padded}, {});
  out.add_node("Where", {out.add_constant(box_mask(shape, patch.box)), padded, base}, {result}, {});
}

}  // namespace

std::span<const PatchLowering> patch_lowerings() { return kLowerings; }

const char* to_string(PatchLowering lowering) {
  switch (lowering) {
    case PatchLowering::slices: return "slices";
    case PatchLowering::scatter: return "scatter";
    case PatchLowering::where: return "where";
  }
  PET_CHECK(false, "unknown patch lowering");
  return "";
}

std::optional<PatchLowering> parse_patch_lowering(const std::string& text) {
  for (PatchLowering lowering : kLowerings)
    if (text == to_string(lowering)) return lowering;
  return std::nullopt;
}

std::vector<PatchBox> patch_boxes(const Graph& graph, const Node& node) {
  const auto& offsets = node.attrs.get_ints("offsets");
  auto rank = static_cast<std::ptrdiff_t>(graph.value(node.outputs[0]).type.shape.rank());
  std::vector<PatchBox> boxes;
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    auto begin = offsets.begin() + static_cast<std::ptrdiff_t>(i - 1) * rank;
    boxes.push_back({std::vector<int64_t>(begin, begin + rank), graph.value(node.inputs[i]).type.shape});
  }
  return boxes;
}

std::string patch_lowering_refusal(PatchLowering lowering, const Shape& base, const std::vector<PatchBox>& boxes) {
  if (lowering != PatchLowering::scatter) return "";
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j)
      if (overlap(boxes[i], boxes[j]))
        return fmt::format("patches {} and {} overlap, and ScatterND leaves the order of repeated indices open", i, j);
  int depth = scatter_depth(base, boxes);
  int64_t entries = 0;
  for (const PatchBox& box : boxes) entries += leading_count(box.shape, depth) * depth;
  if (entries > kMaxScatterIndexEntries)
    return fmt::format("its index table would hold {} entries, more than {}", entries, kMaxScatterIndexEntries);
  return "";
}

PatchLowering lowering_of(const Attributes& attrs) {
  if (!attrs.has(kLoweringAttr)) return PatchLowering::slices;
  std::optional<PatchLowering> lowering = parse_patch_lowering(attrs.get_string(kLoweringAttr));
  PET_CHECK(lowering, "the shape rule accepts known lowerings only");
  return *lowering;
}

ShapeCheck check_patch_lowering(const ShapeContext& context, const Shape& base, const std::vector<PatchBox>& boxes) {
  if (!context.attrs.has(kLoweringAttr)) return {};
  const std::string& name = context.attrs.get_string(kLoweringAttr);
  std::optional<PatchLowering> lowering = parse_patch_lowering(name);
  PET_REFUSE_UNLESS(context, lowering.has_value(),
                    fmt::format("lowering \"{}\" is not one of \"slices\", \"scatter\", \"where\"", name));
  std::string refusal = patch_lowering_refusal(*lowering, base, boxes);
  PET_REFUSE_UNLESS(context, refusal.empty(),
                    fmt::format("lowering \"{}\" cannot write these patches: {}", name, refusal));
  return {};
}

void export_patches(OnnxExportNode& out, const std::string& node, const std::string& base, const TensorType& base_type,
                    const std::vector<ExportedPatch>& patches, PatchLowering lowering, const std::string& output) {
  if (patches.empty()) {
    out.add_node("Identity", {base}, {output}, {});
    return;
  }
  if (lowering != PatchLowering::slices && out.opset() < kPatchLoweringMinOpset)
    throw UserError(fmt::format("node '{}': lowering \"{}\" needs opset {} or later, and the model has opset {}; "
                                "remove the attribute to write Slices and Concats",
                                node, to_string(lowering), kPatchLoweringMinOpset, out.opset()));
  const Shape& shape = base_type.shape;
  if (lowering == PatchLowering::scatter) {
    write_by_scatter(out, patches.front().hint, base, shape, patches, output);
    return;
  }
  std::string current = base;
  for (size_t i = 0; i < patches.size(); ++i) {
    std::string next = i + 1 == patches.size() ? output : out.fresh_name("overwrite");
    if (lowering == PatchLowering::slices)
      write_by_slices(out, patches[i].hint, current, shape, patches[i], next);
    else
      write_by_where(out, patches[i].hint, current, shape, patches[i], next);
    current = next;
  }
}

}  // namespace pet::ops
