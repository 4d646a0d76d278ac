// ColumnPlan and the im2col kernel: every extent, stride, dilation and pad a literal, one thread
// per column element, reads of x coalesced along the output's width.
#include "kernels/gpu/executor/conv_columns.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "core/error.h"

namespace pet::gpu {
namespace {

bool fits_int(int64_t value) { return value >= 0 && value <= std::numeric_limits<int>::max(); }

// Inside the GEMM where C can carry the one thing added (a weight bias or the residual), else the
// kernel.
ColumnEpilogue column_epilogue(const ConvConfig& config) {
  bool bias = config.bias != kNoValue, residual = config.residual != kNoValue;
  if (bias && residual) return ColumnEpilogue::kernel;
  if (bias) return config.bias_is_weight ? ColumnEpilogue::bias_as_c : ColumnEpilogue::kernel;
  if (residual) return ColumnEpilogue::residual_as_c;
  return config.relu ? ColumnEpilogue::in_gemm_relu : ColumnEpilogue::none;
}

}  // namespace

std::optional<ColumnPlan> column_plan(const ConvConfig& config) {
  if (config.groups != 1 || config.input.size() != 4) return std::nullopt;
  ColumnPlan plan;
  plan.images = config.input[0];
  plan.rows = int64_t{config.filter[1]} * config.filter[2] * config.filter[3];
  plan.pixels = int64_t{config.output[2]} * config.output[3];
  plan.reads_input = config.filter[2] == 1 && config.filter[3] == 1 && config.strides == std::vector<int>{1, 1} &&
                     config.pads == std::vector<int>{0, 0} && config.pads_end == std::vector<int>{0, 0};
  plan.bytes = plan.reads_input ? 0 : plan.images * plan.rows * plan.pixels * int64_t{sizeof(float)};
  int64_t filters = config.channels();
  if (plan.bytes > kMaxColumnBytes || !fits_int(plan.rows * plan.pixels) || !fits_int(filters * plan.pixels))
    return std::nullopt;
  GemmConfig& gemm = plan.gemm;
  plan.epilogue = column_epilogue(config);
  gemm.relu = config.relu && plan.epilogue != ColumnEpilogue::kernel;
  if (plan.epilogue == ColumnEpilogue::bias_as_c || plan.epilogue == ColumnEpilogue::residual_as_c) gemm.beta = 1;
  if (plan.epilogue == ColumnEpilogue::residual_as_c) gemm.c = config.residual;
  if (plan.epilogue == ColumnEpilogue::bias_as_c) {
    gemm.c = config.bias;
    gemm.c_expanded = true;  // column_bias_matrix, prepared at load
  }
  gemm.b = config.w;
  gemm.d = config.y;
  gemm.m = plan.pixels;
  gemm.n = filters;
  gemm.k = plan.rows;
  gemm.batch = static_cast<int>(plan.images);
  auto rows = static_cast<uint64_t>(plan.pixels);
  gemm.layout_a = {rows, static_cast<uint64_t>(plan.rows), plan.pixels, plan.rows * plan.pixels};
  gemm.layout_b = {static_cast<uint64_t>(plan.rows), static_cast<uint64_t>(filters), plan.rows, 0};
  gemm.layout_d = {rows, static_cast<uint64_t>(filters), plan.pixels, filters * plan.pixels};
  return plan;
}

std::vector<float> column_bias_matrix(const std::vector<float>& bias, int64_t images, int64_t pixels) {
  std::vector<float> matrix;
  matrix.reserve(static_cast<size_t>(images * pixels) * bias.size());
  for (int64_t n = 0; n < images; ++n)
    for (float value : bias) matrix.insert(matrix.end(), static_cast<size_t>(pixels), value);
  return matrix;
}

bool column_path_offered(const ConvConfig& config) {
  std::optional<ColumnPlan> plan = column_plan(config);
  return plan && (!config.symmetric_pads() || plan->images * plan->pixels <= kColumnPathRows);
}

codegen::GeneratedKernel column_kernel(const ConvConfig& config) {
  std::optional<ColumnPlan> plan = column_plan(config);
  PET_CHECK(plan.has_value() && !plan->reads_input,
            "an im2col kernel for a convolution the column path cannot run or that reads its input itself");
  const std::vector<int>& x = config.input;
  int kh = config.filter[2], kw = config.filter[3], ow = config.output[3];
  int64_t elements = plan->images * plan->rows * plan->pixels;
  int64_t input_elements = int64_t{x[0]} * x[1] * x[2] * x[3];
  codegen::GridStrideKernel kernel{"im2col", "", "", {}, {}, elements, std::max(elements, input_elements), ""};
  kernel.parameters.push_back(codegen::pointer_parameter(DType::f32, "in0", codegen::ArgumentAccess::read));
  kernel.arguments.push_back({config.x, codegen::ArgumentAccess::read});
  kernel.parameters.push_back(codegen::pointer_parameter(DType::f32, "out0", codegen::ArgumentAccess::write));
  kernel.arguments.push_back({kNoValue, codegen::ArgumentAccess::write});
  kernel.body = fmt::format(
      "    index p = i % {pixels};\n"
      "    index k = (i / {pixels}) % {rows};\n"
      "    index n = i / ({pixels} * {rows});\n"
      "    index oh = p / {ow}, ow = p % {ow};\n"
      "    index kx = k % {kw}, ky = (k / {kw}) % {kh}, c = k / ({kw} * {kh});\n"
      "    index ih = oh * {sh} - {ph} + ky * {dh};\n"
      "    index iw = ow * {sw} - {pw} + kx * {dw};\n"
      "    bool inside = ih >= 0 && ih < {h} && iw >= 0 && iw < {w};\n"
      "    out0[i] = inside ? in0[((n * {c} + c) * {h} + ih) * {w} + iw] : 0.0f;\n",
      fmt::arg("pixels", plan->pixels), fmt::arg("rows", plan->rows), fmt::arg("ow", ow), fmt::arg("kw", kw),
      fmt::arg("kh", kh), fmt::arg("sh", config.strides[0]), fmt::arg("sw", config.strides[1]),
      fmt::arg("ph", config.pads[0]), fmt::arg("pw", config.pads[1]), fmt::arg("dh", config.dilations[0]),
      fmt::arg("dw", config.dilations[1]), fmt::arg("h", x[2]), fmt::arg("w", x[3]), fmt::arg("c", x[1]));
  kernel.summary = fmt::format("columns f32[{},{},{}] of x[{}] kernel {}x{} pads[{}] pads_end[{}] strides[{}] "
                               "dilations[{}]",
                               plan->images, plan->rows, plan->pixels, fmt::join(x, ","), kh, kw,
                               fmt::join(config.pads, ","), fmt::join(config.pads_end, ","),
                               fmt::join(config.strides, ","), fmt::join(config.dilations, ","));
  return codegen::grid_stride_kernel(kernel);
}

}  // namespace pet::gpu
