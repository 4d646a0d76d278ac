// Shape arithmetic shared by every operator.
#include "core/shape.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace pet {

ShapeCheck check_supported_rank(const Shape& shape, const std::string& what) {
  if (shape.rank() <= kMaxRank) return {};
  return Refusal{
      fmt::format("{} has rank {} ([{}]); pet handles tensors of rank up to {}: reshape it to fewer "
                  "dimensions",
                  what, shape.rank(), fmt::join(shape.dims(), ","), kMaxRank)};
}

void require_supported_rank(const Shape& shape, const std::string& what) {
  check_supported_rank(shape, what).or_throw();
}

std::optional<int64_t> Shape::checked_numel() const {
  // An empty dimension makes the product 0 whatever the order (1e10 x 1e10 x 0 is empty, not too large).
  if (std::find(dims_.begin(), dims_.end(), 0) != dims_.end()) return 0;
  int64_t count = 1;
  for (int64_t d : dims_)
    if (__builtin_mul_overflow(count, d, &count)) return std::nullopt;
  return count;
}

int64_t Shape::numel() const {
  std::optional<int64_t> count = checked_numel();
  PET_CHECK(count.has_value(), "the shape " + to_string() + " has more elements than int64 counts");
  return *count;
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
