// Shared pieces of MaxPool and AveragePool: import, shape rule, cost, and the N-D window walk.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/ops/window_geometry.h"

namespace pet::ops {

// Canonical attributes of a pool read from ONNX: kernel_shape, strides, pads (auto_pad resolved),
// ceil_mode, and dilations when `with_dilations`. Other known attributes are the caller's.
Attributes import_pool_window(const OnnxImportNode& node, bool with_dilations);

// Output type of a pool over an [N, C, spatial...] input of one of `types`, after checking the
// attributes.
ShapeResult infer_pool(const ShapeContext& context, bool with_dilations, DTypeSet types = {DType::f32});

// flops = output elements x kernel taps.
Cost pool_cost(const CostContext& context);

// The geometry of a pool node's input and canonical attributes.
WindowGeometry pool_geometry(const Shape& input, const Attributes& attrs);

// Per output position of one plane, the plane offsets of the window taps inside the input and
// the number of taps inside the padded input (what count_include_pad divides by).
class PoolWindows {
 public:
  PoolWindows(const WindowGeometry& geometry, const std::vector<int64_t>& pads);
  // Calls visit(output_index, taps, padded_count) for every output position, in order.
  template <typename Visit>
  void for_each(Visit visit) const {
    std::vector<int64_t> taps;
    std::vector<int64_t> coordinate(output_.size(), 0);
    for (int64_t index = 0; index < output_size_; ++index) {
      gather_taps(coordinate, taps);
      visit(index, std::span<const int64_t>(taps), padded_count(coordinate));
      advance(coordinate);
    }
  }

 private:
  struct AxisWindow {
    int64_t first = 0;   // input index of the first tap inside the input
    int64_t count = 0;   // taps inside the input
    int64_t padded = 0;  // taps inside the padded input
  };
  void gather_taps(const std::vector<int64_t>& coordinate, std::vector<int64_t>& taps) const;
  int64_t padded_count(const std::vector<int64_t>& coordinate) const;
  void advance(std::vector<int64_t>& coordinate) const;

  std::vector<int64_t> output_;
  std::vector<int64_t> steps_;  // dilation x input stride per axis
  std::vector<int64_t> input_strides_;
  std::vector<std::vector<AxisWindow>> axes_;  // per axis, per output coordinate
  int64_t output_size_ = 0;
};

}  // namespace pet::ops
