// pet-gpu's plan: a graph's nodes as kernel steps in execution order, each value's storage
// (weights prepared once, views, one activation arena planned from lifetimes) and one workspace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "kernels/gpu/plan/layer_norm_pattern.h"

namespace pet::gpu {

// Which backend runs a step. Spelled in kebab-case by to_string (plan dumps, tests, logs).
enum class StepKind : uint8_t {
  cudnn_conv,     // Conv (1-3 spatial dims, grouped, dilated) with fused bias, residual Add and Relu
  cublaslt_gemm,  // MatMul or Gemm (batched, strided) with a fused bias and Relu epilogue
  elementwise,    // elementwise ops (Cast, Where, comparisons, BatchNormalization) as one generated kernel
  transpose,      // Transpose: a generated permutation kernel
  layout,         // pet's Layout: a generated kernel
  pad,            // Pad: a generated kernel
  slice,          // Slice: a generated kernel
  concat,         // Concat that cannot be written in place: a generated copy kernel
  split,          // Split that cannot be views: a generated copy kernel
  gather,         // Gather: a generated kernel
  expand,         // Expand: a generated broadcast kernel
  copy,           // a view that must own its bytes (it is a graph output): one device copy
  softmax,        // Softmax, LogSoftmax: hand-written
  layer_norm,     // LayerNormalization, or its nine standard ops (Step::layer_norm_ops): hand-written
  pool,           // MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool: hand-written
  reduce,         // ReduceMean, ReduceSum, ReduceMax, ReduceMin: hand-written
  correction,     // pet's LayoutOverwrite or Overwrite: a generated kernel (its patches: the steps before)
};

// Why a node has no step.
enum class AliasKind : uint8_t {
  view,             // Reshape, Flatten, Squeeze, Unsqueeze, Identity: the input's bytes
  concat_in_place,  // Concat whose inputs' producers write straight into its output
  split_views,      // Split along the outermost non-unit axis: each output is a piece of the input
};

enum class StorageKind : uint8_t {
  weight,  // a constant of the graph, prepared once at load
  input,   // a graph input: the caller's buffer
  output,  // a graph output: the caller's buffer
  arena,   // an intermediate at an offset of the activation arena
  view,    // bytes of another value at a byte offset (which is never itself fused)
  fused,   // produced and consumed inside one step: never in memory
};

// How a weight is prepared at load, once per distinct use.
enum class WeightPreparation : uint8_t {
  upload,        // copied as stored
  conv_filter,   // a Conv filter, arranged in the filter format the chosen cuDNN algorithm wants
  conv_bias,     // a per-channel bias of a cudnn_conv step, as a 1xCx1..1 tensor
  gemm_operand,  // a matrix operand of a cublaslt_gemm step, laid out for its matmul descriptor
  gemm_bias,     // the per-column bias of a cublaslt_gemm epilogue, as a vector of N
};

std::string to_string(StepKind kind);
std::string to_string(AliasKind kind);
std::string to_string(StorageKind kind);
std::string to_string(WeightPreparation preparation);

// Steps from the first to the last that touch an arena value's bytes (views included).
struct Lifetime {
  int first_step = -1;
  int last_step = -1;
  bool overlaps(const Lifetime& other) const { return first_step <= other.last_step && other.first_step <= last_step; }
};

struct ValueStorage {
  StorageKind kind = StorageKind::fused;
  ValueId base = kNoValue;                      // view: the value whose bytes it uses
  int64_t offset = 0;                           // arena: offset in the arena; view: byte offset into `base`
  int64_t bytes = 0;                            // the value's own size
  std::vector<WeightPreparation> preparations;  // weight: each distinct use, in enum order
  Lifetime lifetime;                            // arena only
};

// The spelling of "no activation" in core/ops/fused_activation.h.
inline constexpr const char* kNoActivation = "none";

// What a cudnn_conv or cublaslt_gemm step applies after its main node, wherever it came from:
// Conv's own bias input or a fused Add of a weight; an activation attribute or a fused Relu.
// A Gemm's own C input stays its input (cuBLASLt's beta * C).
struct Epilogue {
  float scale = 1;                         // MatMul only: times a one-value weight first (cuBLASLt's alpha)
  ValueId bias = kNoValue;                 // conv: per output channel; gemm: per output column
  ValueId residual = kNoValue;             // conv, MatMul: a value of the output's type, added before the activation
  std::string activation = kNoActivation;  // the fused-activation attribute's spelling ("relu")
};

struct Step {
  StepKind kind = StepKind::elementwise;
  std::vector<NodeId> nodes;     // ascending; the last node writes the step's outputs
  std::vector<ValueId> inputs;   // values read from outside the step, in first-use order
  std::vector<ValueId> outputs;  // the last node's outputs
  Epilogue epilogue;             // cudnn_conv and cublaslt_gemm
  // Bytes of the shared workspace this step may use: the plan's estimate, which the executor
  // raises to what cuDNN's algorithm search or cuBLASLt's heuristic finally asks for.
  int64_t workspace_bytes = 0;
  // Computes nothing but patches of corrections (what a corrected mutant adds besides its base):
  // its time counts as the corrections'.
  bool computes_patch = false;
  // A layer_norm step written out in standard ops: what the grouping matched (its operands).
  std::optional<LayerNormPattern> layer_norm_ops;
};

struct Alias {
  NodeId node = -1;
  AliasKind kind = AliasKind::view;
  std::vector<ValueId> inputs;   // the node's
  std::vector<ValueId> outputs;  // the node's, each a view
};

struct PlannedValue {
  std::string name;
  TensorType type;
  ValueStorage storage;
};

// The value that owns a value's bytes (following views) and the value's byte offset in it.
struct StorageRoot {
  ValueId value = kNoValue;
  int64_t offset = 0;
};
StorageRoot storage_root(const std::vector<PlannedValue>& values, ValueId id);

struct PlannedNode {
  std::string name;
  std::string op;
};

struct GpuPlan {
  std::vector<Step> steps;           // in execution order
  std::vector<Alias> aliases;        // nodes without a step, ascending
  std::vector<PlannedValue> values;  // by ValueId
  std::vector<PlannedNode> nodes;    // by NodeId
  int64_t alignment = 256;           // of every arena offset
  int64_t arena_bytes = 0;           // the activation arena's size
  int64_t no_reuse_bytes = 0;        // the arena values' aligned sizes added up
  // The one workspace: the largest step's (recomputed whenever the executor raises a step's).
  int64_t workspace_bytes() const;
};

struct PlanOptions {
  int64_t alignment = 256;
  // cuBLASLt's recommended workspace on Hopper; every cublaslt_gemm step starts with it.
  int64_t gemm_workspace_bytes = int64_t{32} << 20;
  // A cudnn_conv step starts with its explicit-GEMM (im2col) buffer, at most this.
  int64_t conv_workspace_limit_bytes = int64_t{256} << 20;
};

// Plans `graph` (validated, after the pipeline's cleanup) for pet-gpu. UserError naming the op,
// the node and what to do when a node is one pet-gpu cannot run (an op outside its set, i64
// arithmetic, a Conv of more than 3 spatial dims): the model is refused, never partly run elsewhere.
GpuPlan plan_for_gpu(const Graph& graph, const PlanOptions& options = {});

// One line per step ("index kind nodes: inputs -> outputs", each value with its storage), then
// one per alias; a header with the arena and workspace sizes. Deterministic.
std::string format_plan(const GpuPlan& plan);

}  // namespace pet::gpu
