// Shared building blocks for op files: broadcasting, element loops, costs and attribute helpers
// (the elementwise OpDef builders are in elementwise_builders.h).
#pragma once

#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/graph.h"
#include "core/onnx_mapping.h"
#include "core/op_def.h"

namespace pet::ops {

// Numpy-style broadcast of two shapes; nullopt when incompatible.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);
// Broadcast of all present input shapes, or a refusal naming the shapes.
Refusable<Shape> broadcast_inputs(const ShapeContext& context, int first = 0, int count = -1);

// Where each output element reads an input broadcast to the output's shape. When the input's
// non-unit axes are one block of the output's axes (equal shapes, a scalar, a bias over the last
// axes, a per-channel vector, a row statistic: almost every broadcast a model makes), an offset is
// (i / inner) % span and a Cursor walks it with two counters; any other pattern lists its offsets.
class BroadcastIndex {
 public:
  BroadcastIndex(const Shape& input, const Shape& out);
  bool identity() const { return identity_; }
  // The input offset of output element `i` (random access).
  int64_t offset(int64_t i) const {
    return listed_.empty() ? (i / inner_) % span_ : listed_[static_cast<size_t>(i)];
  }

  // Reads the offsets in output order: next() gives element 0's, then element 1's, ...
  class Cursor {
   public:
    explicit Cursor(const BroadcastIndex& index)
        : listed_(index.listed_.empty() ? nullptr : index.listed_.data()), inner_(index.inner_), span_(index.span_) {}
    size_t next() {
      if (listed_) return static_cast<size_t>(*listed_++);
      int64_t at = block_;
      if (++within_ == inner_) {
        within_ = 0;
        if (++block_ == span_) block_ = 0;
      }
      return static_cast<size_t>(at);
    }

   private:
    const int64_t* listed_;
    int64_t inner_;
    int64_t span_;
    int64_t within_ = 0;  // position inside the current run of `inner_` equal offsets
    int64_t block_ = 0;   // the current offset, cycling through `span_`
  };
  // A cursor reads the index's list: it must not outlive the index (hence no cursor of a temporary).
  Cursor cursor() const& { return Cursor(*this); }
  Cursor cursor() && = delete;

 private:
  bool identity_ = false;
  int64_t inner_ = 1;            // output elements per input element, in a block pattern
  int64_t span_ = 1;             // input elements in a block pattern
  std::vector<int64_t> listed_;  // every offset, for other patterns
};

// An input broadcast to the output read row by row, a row being the output's last axis: the input
// reads a row at step 1 (it has that axis) or 0 (broadcast along it), from the start a
// BroadcastIndex over the leading axes gives, so the loop over a row is a plain strided loop.
class BroadcastRows {
 public:
  BroadcastRows(const Shape& input, const Shape& out);  // out of rank 1 or more
  int64_t step() const { return step_; }

  // Reads the rows' starts in output order: next() gives row 0's input offset, then row 1's, ...
  class Cursor {
   public:
    Cursor(const BroadcastIndex& rows, int64_t row_size) : rows_(rows.cursor()), row_size_(row_size) {}
    size_t next() { return rows_.next() * static_cast<size_t>(row_size_); }

   private:
    BroadcastIndex::Cursor rows_;
    int64_t row_size_;
  };
  Cursor cursor() const& { return Cursor(rows_, row_size_); }
  Cursor cursor() && = delete;

 private:
  int64_t step_ = 0;
  int64_t row_size_ = 1;  // input elements per input row: the row's length at step 1, else 1
  BroadcastIndex rows_;
};

// Copy of `src` elements selected by `offsets` into `dst` (any dtype).
void gather_elements(const Tensor& src, const std::vector<int64_t>& offsets, Tensor& dst);
// Copy of `src` broadcast to `dst`'s shape (any dtype).
void broadcast_elements(const Tensor& src, Tensor& dst);

// Cost of an op that touches every element once: flops = output elements x flops_per_element.
Cost elementwise_cost(const CostContext& context, double flops_per_element = 1.0);
// Cost of an op that only moves data: no flops, every byte in and out.
Cost data_movement_cost(const CostContext& context);

// import_same_name for a two-input broadcasting op (no attributes), also accepting opset < 7's
// `broadcast` / `axis` attributes when their alignment is numpy's (B matches A's trailing axes);
// any other legacy alignment is unsupported.
OnnxImported import_broadcasting_binary(const OpDef& def, const OnnxImportNode& node);

// The op also computes bfloat16 as ONNX Runtime does: its bf16 inputs widened to f32 (exact),
// its f32 shape rule and kernel, and each output the rule gives as f32 rounded to bf16 (nearest
// even). For float ops whose ONNX definition allows bfloat16 and whose kernel is f32's. A node
// mixing bf16 and f32 inputs is refused unless `mixed_float_inputs` (BatchNormalization's
// statistics may be float).
OpDef with_bfloat16_through_float(OpDef def, bool mixed_float_inputs = false);

// Most inputs a variadic op (Sum, Min, Max) accepts; bounds `linear_inputs` lists too.
inline constexpr int kMaxVariadicInputs = 64;

// Attribute-spec shorthands.
AttrSpec attr_int(const std::string& name, std::optional<int64_t> fallback = {});
AttrSpec attr_float(const std::string& name, std::optional<double> fallback = {});
AttrSpec attr_string(const std::string& name, std::optional<std::string> fallback = {});
AttrSpec attr_ints(const std::string& name, std::optional<std::vector<int64_t>> fallback = {});
AttrSpec attr_floats(const std::string& name, std::optional<std::vector<double>> fallback = {});

// Normalizes axis attributes against a rank, or refuses naming the attribute.
Refusable<int> axis_or_refuse(const ShapeContext& context, int64_t axis, int rank, const std::string& what);

// Reads the ints of a constant input tensor (e.g. Reshape's shape) during import.
std::vector<int64_t> constant_ints(const OnnxImportNode& node, int index, const std::string& what);

}  // namespace pet::ops
