// OpDef: every facet of one operator (attributes, shape rule, reference kernel, traits, cost,
// ONNX mapping) in one value, so an operator is defined by one file under core/ops/.
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/attributes.h"
#include "core/box_grid.h"
#include "core/refusal.h"
#include "core/tensor.h"

namespace pet {

struct Node;
class OnnxImportNode;
class OnnxExportNode;

// How an op's output depends on its inputs, as the verifier and mutant generator need it.
enum class Linearity : uint8_t {
  None,         // not linear (relu, softmax, ...)
  Joint,        // linear in the listed inputs taken together (add, sub, concat, layout ops)
  Multilinear,  // linear in each listed input separately (conv, matmul, elementwise mul)
};

struct OpTraits {
  Linearity linearity = Linearity::None;
  std::vector<int> linear_inputs;  // inputs the linearity refers to
  // When set, the linearity holds only for nodes whose attributes satisfy it (Pad: fill value 0).
  std::function<bool(const Attributes&)> linear_when;
  bool elementwise = false;        // out[i] depends only on in[i] (after broadcasting)
  bool layout_only = false;        // moves elements without arithmetic
  bool commutative = false;        // inputs 0 and 1 may swap
  bool identity_like = false;      // output 0 equals input 0 (Identity, inference Dropout)
  bool view = false;               // output 0 is input 0's bytes read row-major under another shape (Reshape)
  bool compute_heavy = false;      // conv/matmul-class op the search groups and profiles
  bool type_only = false;          // output depends only on input types (Shape): always folded

  // Whether a node of this op with these canonical attributes is linear (in linear_inputs). The
  // other traits describe the op's own computation; a fused activation (linear_when false) adds
  // its own after it.
  bool is_linear(const Attributes& attrs) const {
    return linearity != Linearity::None && (!linear_when || linear_when(attrs));
  }
};

// Inputs of the shape rule: canonical attributes plus the types of present inputs.
struct ShapeContext {
  const Attributes& attrs;
  std::span<const TensorType* const> inputs;  // nullptr for an absent optional input
  std::string_view op;
  std::string_view node_name;

  const TensorType& input(int index) const;  // internal check when absent
  bool has_input(int index) const;
  int num_inputs() const { return static_cast<int>(inputs.size()); }
  // The rule's refusal of these inputs: "node 'NAME' (OP): WHAT".
  Refusal refuse(const std::string& what) const;
};

// Returns context.refuse(message) from the shape rule (or helper check) unless condition holds.
// A macro so that the message is built only when the check fails: shape rules run for every
// candidate the mutant generator builds.
#define PET_REFUSE_UNLESS(context, condition, ...)          \
  do {                                                      \
    if (!(condition)) return (context).refuse(__VA_ARGS__); \
  } while (false)

// Inputs and preallocated (zero-filled) outputs of the reference kernel.
struct KernelContext {
  const Attributes& attrs;
  std::span<const Tensor* const> inputs;  // nullptr for an absent optional input
  std::span<Tensor> outputs;

  const Tensor& input(int index) const;
  bool has_input(int index) const;
};

struct Cost {
  double flops = 0;  // floating-point operations (a multiply-add counts as 2)
  double bytes = 0;  // bytes read and written at least once
};

struct CostContext {
  const Attributes& attrs;
  std::span<const TensorType* const> inputs;
  std::span<const TensorType> outputs;
  const TensorType& input(int index) const;
  double input_bytes() const;
  double output_bytes() const;
};

// Gives the value over Z_p of one element of one of the node's inputs, pulled through whatever
// computes that input (the verifier never materializes whole tensors).
class FieldPuller {
 public:
  virtual ~FieldPuller() = default;
  virtual uint64_t pull(int input, const int64_t* index) const = 0;
  // The `count` elements of a rank-`rank` input from `index` on along `axis` (index[axis],
  // index[axis] + 1, ...) into out[0, count): what as many pull()s give. The verifier's puller
  // reads a run faster than element by element; this default pulls them one by one.
  virtual void pull_run(int input, const int64_t* index, int rank, int axis, int64_t count, uint64_t* out) const;
};

// Inputs of point evaluation: the output position whose value over Z_p is wanted.
struct PointContext {
  const Attributes& attrs;
  std::span<const TensorType* const> inputs;
  const TensorType& output;
  int output_index;
  const int64_t* index;  // output.shape.rank() coordinates
  const FieldPuller& puller;

  uint64_t pull(int input, const int64_t* input_index) const { return puller.pull(input, input_index); }
  void pull_run(int input, const int64_t* input_index, int axis, int64_t count, uint64_t* out) const {
    puller.pull_run(input, input_index, this->input(input).shape.rank(), axis, count, out);
  }
  const TensorType& input(int i) const { return *inputs[static_cast<size_t>(i)]; }
  bool has_input(int i) const { return i < static_cast<int>(inputs.size()) && inputs[static_cast<size_t>(i)]; }
};

// Inputs of box propagation: the box grids of the node's inputs.
struct BoxContext {
  const Attributes& attrs;
  std::span<const TensorType* const> inputs;
  std::span<const BoxGrid* const> input_grids;  // nullptr for absent inputs
  const TensorType& output;
  int output_index;

  const TensorType& input(int i) const { return *inputs[static_cast<size_t>(i)]; }
  const BoxGrid& grid(int i) const { return *input_grids[static_cast<size_t>(i)]; }
  bool has_input(int i) const { return i < static_cast<int>(inputs.size()) && inputs[static_cast<size_t>(i)]; }
};

// The canonical form of an imported ONNX node: our op name, its attributes, and which ONNX
// inputs stay graph inputs (constant inputs such as Reshape's shape usually become attributes).
struct OnnxImported {
  std::string op;
  Attributes attrs;
  std::vector<int> inputs;  // ONNX input indices, -1 for an absent optional input
};

// The output types of a node, or its shape rule's refusal of the inputs. Built from a braced list
// of types as the vector is (`return {{DType::f32, shape}};`).
class [[nodiscard]] ShapeResult : public Refusable<std::vector<TensorType>> {
 public:
  using Refusable::Refusable;
  ShapeResult(std::initializer_list<TensorType> types) : Refusable(std::vector<TensorType>(types)) {}
};

using ShapeRule = std::function<ShapeResult(const ShapeContext&)>;
using ReferenceKernel = std::function<void(KernelContext&)>;
using CostRule = std::function<Cost(const CostContext&)>;
// The importer receives its own OpDef so shared importers can read the declared attributes.
// The value of one output element over Z_p (linear ops only).
using PointEval = std::function<uint64_t(const PointContext&)>;
// The output's summation boxes from the inputs' boxes, padding, windows, seams (linear ops only).
using BoxRule = std::function<BoxGrid(const BoxContext&)>;
using OnnxImporter = std::function<OnnxImported(const struct OpDef&, const OnnxImportNode&)>;
using OnnxExporter = std::function<void(const Node&, OnnxExportNode&)>;

struct OpDef {
  std::string name;                  // our op name, e.g. "Conv", "Layout"
  std::vector<std::string> onnx_ops;  // ONNX op types this def imports (often {name})
  // A custom ONNX domain ("ai.pet") in which the op is written as itself (its name, its canonical
  // attributes) for a runtime that loads pet's extension (ExportOptions::extension_ops), and read
  // back; empty for standard ops. to_onnx stays the standard-op lowering every runtime can run.
  std::string extension_domain;
  std::vector<AttrSpec> attrs;       // canonical attributes
  int min_inputs = 1;
  int max_inputs = 1;
  int num_outputs = 1;
  OpTraits traits;
  // Element types beyond f32, i64 and bool (which every shape rule checks itself) the op's kernel
  // computes; a node given or producing another type is refused before its shape rule runs.
  DTypeSet extra_types;
  ShapeRule infer;
  ReferenceKernel compute;
  CostRule cost;
  OnnxImporter from_onnx;
  OnnxExporter to_onnx;
  // Multi-linear analysis (PET Theorems 1 and 2): both present exactly for the ops the verifier
  // can examine.
  PointEval eval_point;
  BoxRule propagate_boxes;
};

}  // namespace pet
