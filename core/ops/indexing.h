// Shared pieces of the index-driven data-movement ops (GatherElements, GatherND, ScatterND,
// ScatterElements, ReverseSequence, TopK): index checks, row-major odometers, and the scatter
// reductions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/onnx_mapping.h"
#include "core/op_def.h"
#include "core/tensor.h"

namespace pet::ops {

// `index` (negative counts from the end) as a position in [0, length), or a UserError from the
// kernel naming the op, the index and the axis length.
int64_t checked_index(int64_t index, int64_t length, const std::string& op);

// Offset, within a row-major tensor of shape `dims`, of every element of a tensor of shape
// `walk`, when coordinate d of the walk is taken unchanged (walk[d] <= dims[d]).
std::vector<int64_t> embedded_offsets(const std::vector<int64_t>& walk, const std::vector<int64_t>& dims);

// For GatherElements/ScatterElements: the data offset of every element of `indices`, which is
// the element's own coordinate with the axis coordinate replaced by the index.
std::vector<int64_t> offsets_along_axis(const Shape& data, const Tensor& indices, int axis, const std::string& op);
// The shape-rule checks of those two: i32 or i64 indices of data's rank that fit inside data off the axis.
ShapeCheck check_indices_along_axis(const ShapeContext& context, const TensorType& data, const TensorType& indices,
                                    int axis);

// ONNX's index element types (Gather, GatherElements, ScatterElements indices): int32 or int64.
inline bool is_index_dtype(DType type) { return type == DType::i32 || type == DType::i64; }
// A refusal unless `indices` (named `what` in the message) is i32 or i64.
ShapeCheck check_index_dtype(const ShapeContext& context, const TensorType& indices, const std::string& what);
// The index tensor as i64 (the same storage when it already is), so kernels read one type.
Tensor indices_as_i64(const Tensor& indices);

// Product of dims[first, last).
int64_t dims_product(const std::vector<int64_t>& dims, size_t first, size_t last);

// The scatter reductions pet implements ("none", "add", "mul"), and a shape-rule check of them.
bool is_scatter_reduction(const std::string& reduction);
ShapeCheck check_scatter_reduction(const ShapeContext& context);
// The reduction read from ONNX (opset 16 on), or unsupported() for max/min and unknown ones.
std::string import_scatter_reduction(const OnnxImportNode& node);
// Scatter ops are jointly linear in data and updates when they replace or add.
bool scatter_is_linear(const Attributes& attrs);

// out[offsets[i] + j] (op)= updates[i * block + j] for j < block, in order of i. `out` starts as
// a copy of the data; the reduction is "none" (assign), or "add", "mul", "max", "min" on a numeric
// type (computed in its arithmetic type: bf16 in float, then rounded).
void scatter_blocks(Tensor& out, const Tensor& updates, const std::vector<int64_t>& offsets, int64_t block,
                    const std::string& reduction);

// A UserError "node 'NAME' (OP): WHAT needs opset MINIMUM or later, ..." when exporting below it.
void require_export_opset(const Node& node, const OnnxExportNode& out, int minimum, const std::string& what);

// The ONNX-side reduction attribute for export: none below opset 16 (else a UserError naming
// the node), the attribute from 16 on.
void export_scatter_reduction(const Node& node, const OnnxExportNode& out, Attributes& onnx_attrs);

}  // namespace pet::ops
