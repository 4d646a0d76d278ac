// The GPU's operator set: a table for the ops whose kernel no trait names, the elementwise and
// identity-like traits for the rest, and the refusals, whose capability list is read from the table.
#include "kernels/gpu/plan/op_support.h"

#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"
#include "core/registry.h"

namespace pet::gpu {
namespace {

// What a kernel does with element values: computes with them (f32, bool predicates and masks), or
// only moves them or uses them as indices (any dtype).
enum class DataPath : uint8_t { arithmetic, movement };

struct OpEntry {
  const char* op;
  StepKind kind;
  DataPath path;
};

// One line per op whose kernel no trait names (elementwise ops beyond these come from the trait).
constexpr OpEntry kOpTable[] = {
    {"Conv", StepKind::cudnn_conv, DataPath::arithmetic},
    {"MatMul", StepKind::cublaslt_gemm, DataPath::arithmetic},
    {"Gemm", StepKind::cublaslt_gemm, DataPath::arithmetic},
    {"BatchNormalization", StepKind::elementwise, DataPath::arithmetic},  // a per-channel affine map
    {"Cast", StepKind::elementwise, DataPath::movement},
    {"Transpose", StepKind::transpose, DataPath::movement},
    {"Layout", StepKind::layout, DataPath::movement},
    {"Pad", StepKind::pad, DataPath::movement},
    {"Slice", StepKind::slice, DataPath::movement},
    {"Concat", StepKind::concat, DataPath::movement},
    {"Split", StepKind::split, DataPath::movement},
    {"Gather", StepKind::gather, DataPath::movement},
    {"Expand", StepKind::expand, DataPath::movement},
    {"Softmax", StepKind::softmax, DataPath::arithmetic},
    {"LogSoftmax", StepKind::softmax, DataPath::arithmetic},
    {"LayerNormalization", StepKind::layer_norm, DataPath::arithmetic},
    {"MaxPool", StepKind::pool, DataPath::arithmetic},
    {"AveragePool", StepKind::pool, DataPath::arithmetic},
    {"GlobalAveragePool", StepKind::pool, DataPath::arithmetic},
    {"GlobalMaxPool", StepKind::pool, DataPath::arithmetic},
    {"ReduceMean", StepKind::reduce, DataPath::arithmetic},
    {"ReduceSum", StepKind::reduce, DataPath::arithmetic},
    {"ReduceMax", StepKind::reduce, DataPath::arithmetic},
    {"ReduceMin", StepKind::reduce, DataPath::arithmetic},
    {"Overwrite", StepKind::correction, DataPath::arithmetic},
    {"LayoutOverwrite", StepKind::correction, DataPath::arithmetic},
};

constexpr std::string_view kRunOnCpu = "run this model on a CPU target (--target ort-cpu)";
constexpr int kMaxConvSpatialDims = 3;

struct Planned {
  NodeSupport support;
  DataPath path = DataPath::arithmetic;
};

std::optional<Planned> lookup(const OpDef& def) {
  for (const OpEntry& entry : kOpTable)
    if (def.name == entry.op) return Planned{{NodeRole::step, entry.kind}, entry.path};
  if (def.traits.view || def.traits.identity_like) return Planned{{NodeRole::view, StepKind::copy}, DataPath::movement};
  if (def.traits.elementwise) return Planned{{NodeRole::step, StepKind::elementwise}, DataPath::arithmetic};
  return std::nullopt;
}

// "elementwise and identity-like ops, Conv, MatMul, ...": the table and view list in order.
std::string capabilities() {
  std::string ops = "elementwise and identity-like ops";
  for (const OpEntry& entry : kOpTable) ops += fmt::format(", {}", entry.op);
  for (const OpDef* def : OpRegistry::global().all())
    if (def->traits.view) ops += fmt::format(", {}", def->name);
  return ops;
}

[[noreturn]] void refuse(const Node& node, const std::string& how, const std::string& what_runs) {
  throw UserError(fmt::format("pet-gpu cannot run op '{}' (node '{}'){}; the GPU executor runs {}; {}", node.op(),
                              node.name, how, what_runs, kRunOnCpu));
}

bool touches_i64(const Graph& graph, const Node& node) {
  for (ValueId id : node.inputs)
    if (id != kNoValue && graph.value(id).type.dtype == DType::i64) return true;
  for (ValueId id : node.outputs)
    if (graph.value(id).type.dtype == DType::i64) return true;
  return false;
}

// A value of a type beyond f32, i64 and bool, which the GPU executor's kernels are not written for.
std::optional<DType> other_element_type(const Graph& graph, const Node& node) {
  for (ValueId id : node.inputs)
    if (id != kNoValue && !is_core_dtype(graph.value(id).type.dtype)) return graph.value(id).type.dtype;
  for (ValueId id : node.outputs)
    if (!is_core_dtype(graph.value(id).type.dtype)) return graph.value(id).type.dtype;
  return std::nullopt;
}

// Why pet-gpu cannot run a node its op table knows: the refusal's " on ... values" part and what it runs instead.
struct Limit {
  std::string how;
  std::string what_runs;
};

std::optional<Limit> shape_limit(const Graph& graph, const Node& node, const Planned& planned) {
  if (std::optional<DType> type = other_element_type(graph, node))
    return Limit{fmt::format(" on {} values", dtype_name(*type)),
                 "f32 arithmetic and moves i64 and bool data; other element types run in the CPU runtimes"};
  if (planned.path == DataPath::arithmetic && touches_i64(graph, node))
    return Limit{" on i64 values",
                 "arithmetic in f32 and moves i64 and bool data only through data-movement and index ops (shape "
                 "arithmetic is folded at import when shapes are static)"};
  if (planned.support.kind == StepKind::cudnn_conv && planned.support.role == NodeRole::step) {
    int spatial = graph.value(node.inputs.at(0)).type.shape.rank() - 2;
    if (spatial > kMaxConvSpatialDims)
      return Limit{fmt::format(" with {} spatial dimensions", spatial),
                   "convolutions of 1 to 3 spatial dimensions (1-D as 2-D with a unit height)"};
  }
  if (planned.support.role == NodeRole::view && node.outputs.size() > 1)
    return Limit{fmt::format(" with {} outputs", node.outputs.size()),
                 "identity-like ops as a view of their input, which gives one output"};
  return std::nullopt;
}

}  // namespace

NodeSupport support_for(const Graph& graph, const Node& node) {
  std::optional<Planned> planned = lookup(*node.def);
  if (!planned) refuse(node, "", capabilities());
  if (std::optional<Limit> limit = shape_limit(graph, node, *planned)) refuse(node, limit->how, limit->what_runs);
  return planned->support;
}

std::optional<NodeSupport> runnable_support(const Graph& graph, const Node& node) {
  std::optional<Planned> planned = lookup(*node.def);
  if (!planned || shape_limit(graph, node, *planned)) return std::nullopt;
  return planned->support;
}

}  // namespace pet::gpu
