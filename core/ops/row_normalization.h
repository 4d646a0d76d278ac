// Normalization of contiguous rows to mean 0 and variance 1, shared by LayerNormalization and
// InstanceNormalization.
#pragma once

#include <cstdint>

namespace pet::ops {

// Where normalize_rows stores each row's mean and 1/sqrt(variance + epsilon) (nullptr: not wanted).
struct RowStatistics {
  float* mean = nullptr;
  float* inverse_stddev = nullptr;
};

// dst = (src - mean) / sqrt(variance + epsilon) for each of `rows` rows of `width` elements.
void normalize_rows(const float* src, float* dst, int64_t rows, int64_t width, double epsilon,
                    RowStatistics statistics = {});

}  // namespace pet::ops
