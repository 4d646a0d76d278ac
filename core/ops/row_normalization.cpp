// Row normalization in double precision, with optional per-row statistics.
#include "core/ops/row_normalization.h"

#include <cmath>

namespace pet::ops {

// Normalizes each of `rows` rows of `width` elements to mean 0 and variance 1.
void normalize_rows(const float* src, float* dst, int64_t rows, int64_t width, double epsilon,
                    RowStatistics statistics) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = src + r * width;
    double sum = 0, squares = 0;
    for (int64_t k = 0; k < width; ++k) sum += row[k];
    double mean = width == 0 ? 0.0 : sum / static_cast<double>(width);
    for (int64_t k = 0; k < width; ++k) squares += (row[k] - mean) * (row[k] - mean);
    double variance = width == 0 ? 0.0 : squares / static_cast<double>(width);
    double inverse = 1.0 / std::sqrt(variance + epsilon);
    for (int64_t k = 0; k < width; ++k) dst[r * width + k] = static_cast<float>((row[k] - mean) * inverse);
    if (statistics.mean) statistics.mean[r] = static_cast<float>(mean);
    if (statistics.inverse_stddev) statistics.inverse_stddev[r] = static_cast<float>(inverse);
  }
}

}  // namespace pet::ops
