// Sliding-window output lengths, auto_pad resolution and window attribute checks.
#include "core/ops/window_geometry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.h"

namespace pet::ops {

static int64_t product(const std::vector<int64_t>& values) {
  int64_t result = 1;
  for (int64_t v : values) result *= v;
  return result;
}

int64_t WindowGeometry::input_size() const { return product(input); }
int64_t WindowGeometry::output_size() const { return product(output); }
int64_t WindowGeometry::kernel_size() const { return product(kernel); }

int64_t window_output_length(int64_t input, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                             int64_t pad_end, bool ceil_mode) {
  int64_t room = input + pad_begin + pad_end - dilated_extent(kernel, dilation);
  if (room < 0) return 0;
  int64_t steps = ceil_mode ? (room + stride - 1) / stride : room / stride;
  if (ceil_mode && steps * stride >= input + pad_begin) --steps;  // last window would start in the end padding
  return steps + 1;
}

WindowGeometry make_window_geometry(const std::vector<int64_t>& input_shape, std::vector<int64_t> kernel,
                                    const Attributes& attrs, bool ceil_mode) {
  WindowGeometry geometry;
  geometry.input.assign(input_shape.begin() + 2, input_shape.end());
  int rank = geometry.rank();
  geometry.kernel = std::move(kernel);
  geometry.strides = attrs.get_ints("strides");
  geometry.dilations = attrs.has("dilations") ? attrs.get_ints("dilations") : std::vector<int64_t>(rank, 1);
  const std::vector<int64_t>& pads = attrs.get_ints("pads");
  PET_CHECK(static_cast<int>(pads.size()) == 2 * rank && static_cast<int>(geometry.kernel.size()) == rank,
            "window attributes were not checked");
  geometry.pads_begin.assign(pads.begin(), pads.begin() + rank);
  for (int d = 0; d < rank; ++d) {
    auto i = static_cast<size_t>(d);
    geometry.output.push_back(window_output_length(geometry.input[i], geometry.kernel[i], geometry.strides[i],
                                                   geometry.dilations[i], pads[i], pads[i + static_cast<size_t>(rank)],
                                                   ceil_mode));
  }
  return geometry;
}

static ShapeCheck check_ints(const ShapeContext& context, const std::string& name, size_t count, int64_t minimum) {
  const std::vector<int64_t>& values = context.attrs.get_ints(name);
  PET_REFUSE_UNLESS(context, values.size() == count,
                    fmt::format("{} has {} entries, expected {} for {} spatial dims", name, values.size(), count,
                                name == "pads" ? count / 2 : count));
  for (int64_t v : values)
    PET_REFUSE_UNLESS(context, v >= minimum,
                      fmt::format("{} [{}] must be >= {}", name, fmt::join(values, ","), minimum));
  return {};
}

ShapeCheck check_window_attrs(const ShapeContext& context, int spatial_rank, bool has_dilations) {
  PET_REFUSE_UNLESS(context, spatial_rank <= kMaxSpatialRank,
                    fmt::format("{} spatial dimensions; pet takes at most {}", spatial_rank, kMaxSpatialRank));
  auto rank = static_cast<size_t>(spatial_rank);
  PET_TRY(check_ints(context, "strides", rank, 1));
  PET_TRY(check_ints(context, "pads", 2 * rank, 0));
  if (has_dilations) return check_ints(context, "dilations", rank, 1);
  return {};
}

ShapeCheck check_conv_inputs(const ShapeContext& context,
                             const std::function<Refusable<int64_t>(int64_t group)>& check_channels) {
  const TensorType& x = context.input(0);
  const TensorType& w = context.input(1);
  PET_REFUSE_UNLESS(context, x.dtype == DType::f32 && w.dtype == DType::f32,
                    fmt::format("expects float32 input and weight, got {} and {}", x.to_string(), w.to_string()));
  PET_REFUSE_UNLESS(context, x.shape.rank() >= 3,
                    fmt::format("input shape {} needs [N, C, spatial...] with at least one "
                                "spatial dim",
                                x.shape.to_string()));
  PET_REFUSE_UNLESS(
      context, w.shape.rank() == x.shape.rank(),
      fmt::format("weight shape {} must have the rank of input shape {}", w.shape.to_string(), x.shape.to_string()));
  int64_t group = context.attrs.get_int("group");
  PET_REFUSE_UNLESS(context, group >= 1, fmt::format("group {} must be >= 1", group));
  PET_TRY_ASSIGN(int64_t filters, check_channels(group));
  if (context.has_input(2)) {
    const TensorType& b = context.input(2);
    PET_REFUSE_UNLESS(context, b.dtype == DType::f32 && b.shape == Shape{filters},
                      fmt::format("bias must be f32[{}], got {}", filters, b.to_string()));
  }
  return {};
}

std::vector<int64_t> import_spatial_ints(const OnnxImportNode& node, const std::string& name, int count,
                                         int64_t fallback) {
  if (!node.has_attr(name)) return std::vector<int64_t>(static_cast<size_t>(count), fallback);
  std::vector<int64_t> values = node.attr_ints(name);
  if (static_cast<int>(values.size()) != count)
    node.fail(fmt::format("{} has {} entries but the input has {} spatial dims", name, values.size(), count),
              "give one entry per spatial dim");
  return values;
}

std::vector<int64_t> import_window_pads(const OnnxImportNode& node, const std::vector<int64_t>& input_spatial,
                                        const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                                        const std::vector<int64_t>& dilations) {
  int rank = static_cast<int>(input_spatial.size());
  std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") return import_spatial_ints(node, "pads", 2 * rank, 0);
  if (auto_pad == "VALID") return std::vector<int64_t>(static_cast<size_t>(2 * rank), 0);
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") node.unsupported("auto_pad '" + auto_pad + "'");
  std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
  for (size_t d = 0; d < static_cast<size_t>(rank); ++d) {
    if (strides[d] < 1) node.fail(fmt::format("stride {} must be >= 1", strides[d]), "fix the strides attribute");
    int64_t output = (input_spatial[d] + strides[d] - 1) / strides[d];
    int64_t total =
        std::max<int64_t>(0, (output - 1) * strides[d] + dilated_extent(kernel[d], dilations[d]) - input_spatial[d]);
    int64_t smaller = total / 2;
    pads[d] = auto_pad == "SAME_UPPER" ? smaller : total - smaller;
    pads[d + static_cast<size_t>(rank)] = total - pads[d];
  }
  return pads;
}

std::vector<int64_t> import_spatial_extents(const OnnxImportNode& node, int index) {
  const Shape& shape = node.input_type(index).shape;
  if (shape.rank() < 3)
    node.fail(fmt::format("input {} has shape {}, expected [N, C, spatial...] with at least one spatial dim", index,
                          shape.to_string()),
              "give the input batch and channel dims");
  return {shape.dims().begin() + 2, shape.dims().end()};
}

}  // namespace pet::ops
