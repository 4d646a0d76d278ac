// Shape arithmetic shared by every operator.
#include "core/shape.h"

namespace pet {

int64_t Shape::numel() const {
  int64_t count = 1;
  for (int64_t d : dims_) count *= d;
  return count;
}

std::vector<int64_t> Shape::strides() const {
  std::vector<int64_t> result(dims_.size(), 1);
  for (int i = rank() - 2; i >= 0; --i) result[static_cast<size_t>(i)] = result[static_cast<size_t>(i) + 1] * dims_[static_cast<size_t>(i) + 1];
  return result;
}

std::string Shape::to_string() const {
  if (dims_.empty()) return "scalar";
  std::string text;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) text += 'x';
    text += std::to_string(dims_[i]);
  }
  return text;
}

int normalize_axis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) return -1;
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace pet
