// Shared Z_p point evaluation and box rules for broadcasting and reshaping linear ops.
#include "core/ops/linear_facets.h"

#include <algorithm>

#include "core/error.h"

namespace pet::ops {

void unravel_index(int64_t flat, const Shape& shape, int64_t* index) {
  for (int d = shape.rank() - 1; d >= 0; --d) {
    index[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
}

int64_t ravel_index(const int64_t* index, const Shape& shape) {
  int64_t flat = 0;
  for (int d = 0; d < shape.rank(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

PointEval elementwise_point(std::function<uint64_t(const uint64_t* values, int count)> combine) {
  return [combine](const PointContext& context) {
    constexpr int kMaxInputs = 16;
    uint64_t values[kMaxInputs];
    int count = 0;
    int out_rank = context.output.shape.rank();
    int64_t index[kMaxRank];
    for (int i = 0; i < static_cast<int>(context.inputs.size()); ++i) {
      if (!context.has_input(i)) continue;
      const Shape& shape = context.input(i).shape;
      int offset = out_rank - shape.rank();
      for (int d = 0; d < shape.rank(); ++d) index[d] = shape[d] == 1 ? 0 : context.index[d + offset];
      PET_CHECK(count < kMaxInputs, "too many inputs for elementwise point evaluation");
      values[count++] = context.pull(i, index);
    }
    return combine(values, count);
  };
}

BoxRule elementwise_boxes() {
  return [](const BoxContext& context) {
    const Shape& out = context.output.shape;
    std::vector<std::vector<int64_t>> points(static_cast<size_t>(out.rank()));
    for (int i = 0; i < static_cast<int>(context.inputs.size()); ++i) {
      if (!context.has_input(i)) continue;
      const Shape& shape = context.input(i).shape;
      int offset = out.rank() - shape.rank();
      for (int d = 0; d < shape.rank(); ++d)
        if (shape[d] == out[d + offset]) {
          const auto& cuts = context.grid(i).cuts(d);
          points[static_cast<size_t>(d + offset)].insert(points[static_cast<size_t>(d + offset)].end(), cuts.begin(), cuts.end());
        }
    }
    std::vector<std::vector<int64_t>> cuts;
    for (int d = 0; d < out.rank(); ++d) cuts.push_back(normalize_cuts(points[static_cast<size_t>(d)], out[d]));
    return BoxGrid(std::move(cuts));
  };
}

PointEval row_major_point() {
  return [](const PointContext& context) {
    const Shape& in = context.input(0).shape;
    int64_t index[kMaxRank];
    PET_CHECK(in.rank() <= kMaxRank, "a value of rank above kMaxRank (require_supported_rank)");
    unravel_index(ravel_index(context.index, context.output.shape), in, index);
    return context.pull(0, index);
  };
}

BoxGrid reshape_grid(const BoxGrid& input, const Shape& output) {
  std::vector<int64_t> flat = {0, 1};
  int64_t flat_size = 1;
  for (int d = 0; d < input.rank(); ++d) {
    int64_t size = input.cuts(d).back();
    flat = merge_cuts(flat, input.cuts(d), size);
    flat_size *= size;
  }
  std::vector<std::vector<int64_t>> cuts;
  int64_t rest = flat_size;
  for (int d = 0; d < output.rank(); ++d) {
    if (output[d] == 0 || rest == 0) {
      cuts.push_back(normalize_cuts({}, output[d]));
      continue;
    }
    rest /= output[d];
    auto [outer, inner] = split_cuts(flat, output[d], rest);
    cuts.push_back(outer);
    flat = inner;
  }
  return BoxGrid(std::move(cuts));
}

BoxRule row_major_boxes() {
  return [](const BoxContext& context) { return reshape_grid(context.grid(0), context.output.shape); };
}

BoxRule same_boxes_as_input(int index) {
  return [index](const BoxContext& context) { return context.grid(index); };
}

}  // namespace pet::ops
