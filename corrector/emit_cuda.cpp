// The CUDA lowering of a correction: finds the original's compute op and activations for the
// corrected output, and prints one kernel with every shape, stride and box bound a constant.
#include "corrector/emit_cuda.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/hash.h"
#include "core/ops/fused_activation.h"
#include "core/registry.h"

namespace pet::corrector {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& fix) {
  throw UserError(fmt::format("emit_cuda_kernel(): {}; {}", what, fix));
}

// Printed so that the value round-trips through float and reads as a float literal.
std::string float_literal(double value) { return fmt::format("({:.9e}f)", value); }

// The activation applied to `v`, as a CUDA expression; nullopt for ops the kernel cannot fuse.
std::optional<std::string> activation_expression(const std::string& op, const Attributes& attrs) {
  auto attr = [&](const char* name) { return float_literal(attrs.get_float(name)); };
  if (op == "Relu") return "fmaxf(v, 0.0f)";
  if (op == "LeakyRelu") return fmt::format("v >= 0.0f ? v : {} * v", attr("alpha"));
  if (op == "Sigmoid") return "1.0f / (1.0f + expf(-v))";
  if (op == "Tanh") return "tanhf(v)";
  if (op == "Elu") return fmt::format("v >= 0.0f ? v : {} * (expf(v) - 1.0f)", attr("alpha"));
  if (op == "HardSigmoid") return fmt::format("fmaxf(0.0f, fminf(1.0f, {} * v + {}))", attr("alpha"), attr("beta"));
  if (op == "HardSwish") return "v * fmaxf(0.0f, fminf(1.0f, v * (1.0f / 6.0f) + 0.5f))";
  if (op == "Softplus") return "v > 0.0f ? v + log1pf(expf(-v)) : log1pf(expf(v))";
  if (op == "Abs") return "fabsf(v)";
  if (op == "Neg") return "-v";
  if (op == "Identity") return "v";
  return std::nullopt;
}

const char* kFusable = "Relu, LeakyRelu, Sigmoid, Tanh, Elu, HardSigmoid, HardSwish, Softplus, Abs, Neg or Identity";

// `var * scale + offset`, leaving out factors of one and terms of zero.
std::string affine(const std::string& var, int64_t scale, int64_t offset) {
  std::string text = scale == 1 ? var : fmt::format("{} * {}", var, scale);
  if (offset > 0) text += fmt::format(" + {}", offset);
  if (offset < 0) text += fmt::format(" - {}", -offset);
  return text;
}

// Row-major offset of `coords` in a tensor of shape `dims`, in Horner form.
std::string flat_index(const std::vector<int64_t>& dims, const std::vector<std::string>& coords) {
  PET_CHECK(dims.size() == coords.size(), "index rank differs from tensor rank");
  std::string text = "0";
  for (size_t d = 0; d < dims.size(); ++d) {
    if (text == "0") {
      text = coords[d];
      continue;
    }
    bool simple = text.find(' ') == std::string::npos;
    std::string scaled = fmt::format("{} * {}", simple ? text : "(" + text + ")", dims[d]);
    text = coords[d] == "0" ? scaled : scaled + " + " + coords[d];
  }
  return text;
}

// What the original computes the corrected output with: one compute op, then activations.
struct Recomputation {
  const Node* compute = nullptr;
  std::vector<const Node*> activations;  // in program order
};

Recomputation find_recomputation(const Graph& original, int output) {
  Recomputation found;
  ValueId value = original.outputs().at(static_cast<size_t>(output));
  while (original.value(value).producer >= 0) {
    const Node& node = original.node(original.value(value).producer);
    if (node.inputs.size() == 1 && activation_expression(node.op(), node.attrs)) {
      found.activations.insert(found.activations.begin(), &node);
      value = node.inputs[0];
      continue;
    }
    if (node.op() != "Conv" && node.op() != "MatMul" && node.op() != "Gemm")
      fail(fmt::format("node '{}' ({}) computes the corrected output", node.name, node.op()),
           std::string("only Conv, MatMul or Gemm followed by ") + kFusable + " lower to one kernel");
    for (ValueId input : node.inputs)
      if (input != kNoValue && original.value(input).producer >= 0)
        fail(fmt::format("node '{}' ({}) reads '{}', which node '{}' computes", node.name, node.op(),
                         original.value(input).name, original.node(original.value(input).producer).name),
             "a fused correction kernel reads graph inputs and constants only");
    found.compute = &node;
    return found;
  }
  fail(fmt::format("output {} is a graph input or constant", output), "there is nothing to recompute");
}

// What the body emitters need: the compute node's operands as kernel parameter names.
struct BodyContext {
  const Graph& graph;
  const Node& node;
  std::vector<std::string> operands;  // "in0".. per node input; empty for an absent one
  std::vector<std::string> coords;    // "o0".. per output dimension
  const Shape& shape(size_t input) const { return graph.value(node.inputs[input]).type.shape; }
  bool has(size_t input) const { return input < operands.size() && !operands[input].empty(); }
};

// Conv: the group's input channels times the kernel window; padding taps are skipped, and the
// bounds test is left out on spatial dims where no tap of the box can fall outside.
std::string emit_conv(const BodyContext& c, const Box& box) {
  const Shape& x = c.shape(0);
  const Shape& w = c.shape(1);
  const auto& strides = c.node.attrs.get_ints("strides");
  const auto& pads = c.node.attrs.get_ints("pads");
  const auto& dilations = c.node.attrs.get_ints("dilations");
  int64_t group = c.node.attrs.get_int("group"), spatial = x.rank() - 2;
  std::string text = fmt::format("    float acc = {};\n", c.has(2) ? c.operands[2] + "[o1]" : "0.0f");
  std::string channel = "c";
  if (group > 1) {
    text += fmt::format("    const index channel0 = o1 / {} * {};\n", w[0] / group, w[1]);
    channel = "channel0 + c";
  }
  std::string indent = "    ";
  text += fmt::format("{}for (index c = 0; c < {}; ++c) {{\n", indent, w[1]);
  std::vector<std::string> x_coords = {"o0", channel}, w_coords = {"o1", "c"};
  for (int64_t s = 0; s < spatial; ++s) {
    auto u = static_cast<size_t>(s);
    auto d = static_cast<size_t>(s + 2);
    std::string k = fmt::format("k{}", s), p = fmt::format("p{}", s);
    indent += "  ";
    text += fmt::format("{}for (index {} = 0; {} < {}; ++{}) {{\n", indent, k, k, w[s + 2], k);
    text += fmt::format("{}  const index {} = {} + {};\n", indent, p, affine(c.coords[d], strides[u], -pads[u]),
                        affine(k, dilations[u], 0));
    int64_t lowest = box.lo[d] * strides[u] - pads[u];
    int64_t highest = (box.hi[d] - 1) * strides[u] - pads[u] + (w[s + 2] - 1) * dilations[u];
    std::vector<std::string> outside;
    if (lowest < 0) outside.push_back(fmt::format("{} < 0", p));
    if (highest >= x[s + 2]) outside.push_back(fmt::format("{} >= {}", p, x[s + 2]));
    if (!outside.empty()) text += fmt::format("{}  if ({}) continue;\n", indent, fmt::join(outside, " || "));
    x_coords.push_back(p);
    w_coords.push_back(k);
  }
  text += fmt::format("{}  acc += {}[{}] * {}[{}];\n", indent, c.operands[0], flat_index(x.dims(), x_coords),
                      c.operands[1], flat_index(w.dims(), w_coords));
  for (; indent.size() >= 4; indent.resize(indent.size() - 2)) text += indent + "}\n";
  return text + "    float v = acc;\n";
}

// Coordinates of a broadcast operand's leading dims, right-aligned to the output's `batch` dims.
std::vector<std::string> broadcast_coords(const Shape& operand, int64_t operand_batch, const BodyContext& c,
                                          int64_t batch) {
  std::vector<std::string> coords;
  for (int64_t j = 0; j < operand_batch; ++j)
    coords.push_back(operand[static_cast<int>(j)] == 1 ? "0"
                                                       : c.coords[static_cast<size_t>(j + batch - operand_batch)]);
  return coords;
}

// MatMul with numpy semantics: 1-D operands, broadcast batch dims.
std::string emit_matmul(const BodyContext& c) {
  const Shape& a = c.shape(0);
  const Shape& b = c.shape(1);
  auto rank = static_cast<int64_t>(c.coords.size());
  int64_t batch = rank - (a.rank() > 1 ? 1 : 0) - (b.rank() > 1 ? 1 : 0);
  std::string m = a.rank() > 1 ? c.coords[static_cast<size_t>(batch)] : "0";
  std::string n = b.rank() > 1 ? c.coords.back() : "0";
  std::vector<std::string> a_coords = broadcast_coords(a, std::max(0, a.rank() - 2), c, batch);
  std::vector<std::string> b_coords = broadcast_coords(b, std::max(0, b.rank() - 2), c, batch);
  if (a.rank() > 1) a_coords.push_back(m);
  a_coords.push_back("k");
  b_coords.push_back("k");
  if (b.rank() > 1) b_coords.push_back(n);
  return fmt::format(
      "    float acc = 0.0f;\n"
      "    for (index k = 0; k < {}; ++k) acc += {}[{}] * {}[{}];\n"
      "    float v = acc;\n",
      a[a.rank() - 1], c.operands[0], flat_index(a.dims(), a_coords), c.operands[1], flat_index(b.dims(), b_coords));
}

// Gemm: alpha * op(A) op(B) + beta * C, with C broadcast to the output.
std::string emit_gemm(const BodyContext& c) {
  const Shape& a = c.shape(0);
  const Shape& b = c.shape(1);
  bool trans_a = c.node.attrs.get_int("transA") != 0, trans_b = c.node.attrs.get_int("transB") != 0;
  using Coords = std::vector<std::string>;
  Coords a_coords = trans_a ? Coords{"k", "o0"} : Coords{"o0", "k"};
  Coords b_coords = trans_b ? Coords{"o1", "k"} : Coords{"k", "o1"};
  std::string value = float_literal(c.node.attrs.get_float("alpha")) + " * acc";
  if (c.has(2)) {
    const Shape& bias = c.shape(2);
    value += fmt::format(" + {} * {}[{}]", float_literal(c.node.attrs.get_float("beta")), c.operands[2],
                         flat_index(bias.dims(), broadcast_coords(bias, bias.rank(), c, 2)));
  }
  return fmt::format(
      "    float acc = 0.0f;\n"
      "    for (index k = 0; k < {}; ++k) acc += {}[{}] * {}[{}];\n"
      "    float v = {};\n",
      trans_a ? a[0] : a[1], c.operands[0], flat_index(a.dims(), a_coords), c.operands[1],
      flat_index(b.dims(), b_coords), value);
}

// The loop header: thread index to global output coordinates o0.., last dimension first.
std::string emit_coordinates(const Box& box) {
  std::string text;
  bool rest_used = false;
  for (size_t d = box.lo.size(); d-- > 0;) {
    int64_t extent = box.hi[d] - box.lo[d];
    if (extent == 1) {
      text += fmt::format("    const index o{} = {};\n", d, box.lo[d]);
    } else if (d == 0) {
      text += fmt::format("    const index o{} = {};\n", d, affine("rest", 1, box.lo[d]));
      rest_used = true;
    } else {
      text += fmt::format("    const index o{} = {};\n    rest /= {};\n", d,
                          affine("rest % " + std::to_string(extent), 1, box.lo[d]), extent);
      rest_used = true;
    }
  }
  return (rest_used ? "    index rest = i;\n" : "") + text;
}

int64_t largest_tensor(const Graph& graph, const Node& node) {
  int64_t largest = graph.value(node.outputs[0]).type.shape.numel();
  for (ValueId input : node.inputs)
    if (input != kNoValue) largest = std::max(largest, graph.value(input).type.shape.numel());
  return largest;
}

std::vector<FusedActivation> activations_of(const Recomputation& recomputation, const CudaEmitOptions& options) {
  std::vector<FusedActivation> list;
  if (auto own = fused_activation_of(*recomputation.compute)) list.push_back(std::move(*own));
  for (const Node* node : recomputation.activations) list.push_back({node->op(), node->attrs});
  if (options.activation) {
    const OpDef* def = OpRegistry::global().find(options.activation->op);
    if (!def || !activation_expression(def->name, complete_attributes(*def, options.activation->attrs)))
      fail(fmt::format("cannot fuse activation '{}'", options.activation->op), std::string("fuse ") + kFusable);
    list.push_back({def->name, complete_attributes(*def, options.activation->attrs)});
  }
  return list;
}

// Kernel parameter names ("in<k>", k the position in the correction's reads) per node input.
std::vector<std::string> operands_of(const Graph& original, const Node& node, const Correction& correction) {
  std::vector<std::string> operands;
  for (ValueId input : node.inputs) {
    std::string operand;
    if (input != kNoValue) {
      const std::string& name = original.value(input).name;
      auto it = std::find_if(correction.input_slices.begin(), correction.input_slices.end(),
                             [&](const InputSlice& slice) { return slice.value == name; });
      PET_CHECK(it != correction.input_slices.end(), "correction does not list a slice of " + name);
      operand = fmt::format("in{}", it - correction.input_slices.begin());
    }
    operands.push_back(operand);
  }
  return operands;
}

std::string parameter_list(const Correction& correction) {
  std::vector<std::string> params;
  for (size_t i = 0; i < correction.input_slices.size(); ++i)
    params.push_back(fmt::format("const float* __restrict__ in{}", i));
  params.push_back("float* __restrict__ out");
  return fmt::format("{}", fmt::join(params, ", "));
}

std::string header_comment(const Correction& correction, const std::string& recomputed) {
  std::vector<std::string> reads;
  for (size_t i = 0; i < correction.input_slices.size(); ++i)
    reads.push_back(fmt::format("in{} = %{}{}", i, correction.input_slices[i].value,
                                correction.input_slices[i].region.to_string()));
  return fmt::format(
      "// pet correction: output {} box {} recomputed as {} and written in place into `out`\n"
      "// reads {}\n",
      correction.output, correction.box.to_string(), recomputed, fmt::join(reads, ", "));
}

}  // namespace

std::optional<FusedActivation> fused_activation_of(const Node& node) {
  std::optional<std::string> op = ops::activation_op(node.attrs);
  if (!op) return std::nullopt;
  return FusedActivation{*op, {}};
}

std::string LaunchConfig::to_string() const { return fmt::format("grid {}, block {}", grid, block); }

LaunchConfig launch_config(int64_t elements, int64_t block, int64_t max_grid) {
  PET_CHECK(block > 0 && max_grid > 0, "launch configuration needs positive block and grid limits");
  return {std::clamp<int64_t>((elements + block - 1) / block, 1, max_grid), block};
}

CudaKernel emit_cuda_kernel(const Graph& original, const Correction& correction, const CudaEmitOptions& options) {
  Recomputation recomputation = find_recomputation(original, correction.output);
  const Node& node = *recomputation.compute;
  const Shape& out = original.value(original.outputs().at(static_cast<size_t>(correction.output))).type.shape;
  PET_CHECK(static_cast<int>(correction.box.lo.size()) == out.rank(), "correction box rank differs from its output");
  BodyContext context{original, node, operands_of(original, node, correction), {}};
  for (int d = 0; d < out.rank(); ++d) context.coords.push_back(fmt::format("o{}", d));
  std::string body = node.op() == "Conv"   ? emit_conv(context, correction.box)
                     : node.op() == "Gemm" ? emit_gemm(context)
                                           : emit_matmul(context);
  std::vector<std::string> recomputed = {node.op()};
  for (const FusedActivation& activation : activations_of(recomputation, options)) {
    body += fmt::format("    v = {};\n", *activation_expression(activation.op, activation.attrs));
    recomputed.push_back(activation.op);
  }
  body += fmt::format("    out[{}] = v;\n", flat_index(out.dims(), context.coords));

  CudaKernel kernel;
  kernel.elements = correction.box.numel();
  kernel.launch = launch_config(kernel.elements, options.block, options.max_grid);
  for (const InputSlice& slice : correction.input_slices) kernel.params.push_back(slice.value);
  bool narrow = std::max(largest_tensor(original, node), out.numel()) + kernel.launch.grid * kernel.launch.block <
                std::numeric_limits<int32_t>::max();
  std::string head = fmt::format("{}extern \"C\" __global__ void __launch_bounds__({}) ",
                                 header_comment(correction, fmt::format("{}", fmt::join(recomputed, " + "))),
                                 kernel.launch.block);
  std::string tail = fmt::format(
      "({}) {{\n"
      "  using index = {};\n"
      "  for (index i = static_cast<index>(blockIdx.x) * static_cast<index>(blockDim.x) + "
      "static_cast<index>(threadIdx.x);\n"
      "       i < {}; i += static_cast<index>(gridDim.x) * static_cast<index>(blockDim.x)) {{\n"
      "{}{}  }}\n"
      "}}\n",
      parameter_list(correction), narrow ? "int" : "long long", kernel.elements, emit_coordinates(correction.box),
      body);
  Hasher hasher;  // the name hashes everything else, so equal kernels share a name
  hasher.add(head);
  hasher.add(tail);
  kernel.name = fmt::format("pet_correction_{:016x}", hasher.value());
  kernel.source = head + kernel.name + tail;
  return kernel;
}

}  // namespace pet::corrector
