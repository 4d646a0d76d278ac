// MaxPool: N-D max over sliding windows with pads, strides, dilations and ceil_mode; with
// with_indices = 1 also the i64 position of each maximum in the flattened input (the batch and
// channel offset plus the spatial offset, row-major, or column-major when storage_order = 1).
#include <fmt/format.h>

#include <limits>

#include "core/element_cast.h"
#include "core/error.h"
#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"
#include "core/ops/pooling.h"

namespace pet::ops {
namespace {

// A row-major plane offset as the column-major one (spatial axes reversed in significance).
int64_t column_major_offset(int64_t offset, const std::vector<int64_t>& input) {
  int64_t result = 0, stride = 1;
  for (int64_t extent : input) stride *= extent;
  for (size_t d = input.size(); d-- > 0;) {
    stride /= input[d];  // column-major stride of axis d: product of the axes before it
    result += (offset % input[d]) * stride;
    offset /= input[d];
  }
  return result;
}

// The element types MaxPool computes: ONNX's floats and 8-bit integers.
constexpr DTypeSet kMaxPoolDTypes = {DType::f32, DType::f64, DType::bf16, DType::i8, DType::u8};

// What a window wholly in the padding gives: -inf for floats, the type's lowest for integers.
template <DType D>
compute_t<D> padding_value() {
  if constexpr (is_float_dtype(D)) return -std::numeric_limits<compute_t<D>>::infinity();
  else return std::numeric_limits<compute_t<D>>::lowest();
}

template <DType D>
void max_pool_planes(KernelContext& context) {
  const Tensor& x = context.input(0);
  WindowGeometry geometry = pool_geometry(x.shape(), context.attrs);
  PoolWindows windows(geometry, context.attrs.get_ints("pads"));
  int64_t planes = x.shape()[0] * x.shape()[1];
  int64_t in_size = geometry.input_size(), out_size = geometry.output_size();
  const storage_t<D>* in = x.view<D>().data();
  storage_t<D>* out = context.outputs[0].mutable_view<D>().data();
  int64_t* indices = context.outputs.size() > 1 ? context.outputs[1].mutable_i64().data() : nullptr;
  bool column_major = context.attrs.get_int("storage_order") != 0;
  for (int64_t p = 0; p < planes; ++p) {
    const storage_t<D>* plane = in + p * in_size;
    storage_t<D>* result = out + p * out_size;
    windows.for_each([&](int64_t index, std::span<const int64_t> taps, int64_t) {
      compute_t<D> best = padding_value<D>();
      int64_t best_tap = taps.empty() ? 0 : taps[0];
      for (int64_t tap : taps)
        if (widen<D>(plane[tap]) > best) best = widen<D>(plane[tap]), best_tap = tap;
      result[index] = narrow<D>(best);
      if (indices)
        indices[p * out_size + index] =
            p * in_size + (column_major ? column_major_offset(best_tap, geometry.input) : best_tap);
    });
  }
}

void compute_max_pool(KernelContext& context) {
  visit_dtype(context.input(0).dtype(), [&]<DType D>() {
    if constexpr (kMaxPoolDTypes.contains(D)) max_pool_planes<D>(context);
  });
}

ShapeResult infer_max_pool(const ShapeContext& context) {
  PET_TRY_ASSIGN(std::vector<TensorType> outputs, infer_pool(context, true, kMaxPoolDTypes));
  int64_t with_indices = context.attrs.get_int("with_indices"), storage_order = context.attrs.get_int("storage_order");
  PET_REFUSE_UNLESS(context, with_indices == 0 || with_indices == 1,
                    fmt::format("with_indices {} must be 0 or 1", with_indices));
  PET_REFUSE_UNLESS(context, storage_order == 0 || storage_order == 1,
                    fmt::format("storage_order {} must be 0 or 1", storage_order));
  if (with_indices != 0) outputs.push_back({DType::i64, outputs[0].shape});
  return outputs;
}

OnnxImported import_max_pool(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node,
                       {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  Attributes attrs = import_pool_window(node, true);
  bool with_indices = node.num_outputs() > 1;
  attrs.set("with_indices", int64_t{with_indices ? 1 : 0});
  attrs.set("storage_order", with_indices ? node.attr_int("storage_order", 0) : int64_t{0});  // else no effect
  return {def.name, attrs, {0}};
}

// ceil_mode and dilations exist from opset 10 on, Indices and storage_order from 8.
void export_max_pool(const Node& node, OnnxExportNode& out) {
  Attributes attrs = node.attrs;
  bool with_indices = attrs.get_int("with_indices") != 0;
  if (with_indices) require_export_opset(node, out, 8, "the Indices output");
  attrs.erase("with_indices");
  if (!with_indices) attrs.erase("storage_order");
  std::vector<std::string> outputs{out.output(0)};
  if (with_indices) outputs.push_back(out.output(1));
  bool plain = attrs.get_int("ceil_mode") == 0 &&
               attrs.get_ints("dilations") == std::vector<int64_t>(attrs.get_ints("strides").size(), 1);
  if (out.opset() < 10) {
    if (!plain)
      throw UserError(
          fmt::format("node '{}' (MaxPool): ceil_mode or dilations need opset 10 or later, exporting at "
                      "opset {}; export at a newer opset",
                      node.name, out.opset()));
    attrs.erase("ceil_mode");
    attrs.erase("dilations");
  }
  out.add_node("MaxPool", {out.input(0)}, outputs, attrs);
}

}  // namespace

OpDef make_MaxPool() {
  OpDef def;
  def.name = "MaxPool";
  def.extra_types = kMaxPoolDTypes;
  def.onnx_ops = {"MaxPool"};
  def.attrs = {attr_ints("kernel_shape"), attr_ints("strides"), attr_ints("pads"), attr_ints("dilations"),
               attr_int("ceil_mode", 0), attr_int("with_indices", 0), attr_int("storage_order", 0)};
  def.num_outputs = -1;  // 1, or 2 with the indices
  def.infer = infer_max_pool;
  def.compute = compute_max_pool;
  def.cost = pool_cost;
  def.from_onnx = import_max_pool;
  def.to_onnx = export_max_pool;
  return def;
}

}  // namespace pet::ops
