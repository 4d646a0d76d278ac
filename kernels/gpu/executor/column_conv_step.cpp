// ColumnConvStep: three launches in order on one stream; the GEMM reads the columns the im2col
// kernel wrote and the epilogue updates the GEMM's output in place.
#include "kernels/gpu/executor/column_conv_step.h"

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/gpu/executor/device_timing.h"

namespace pet::gpu {

ColumnConvStep::ColumnConvStep(std::unique_ptr<StepRunner> im2col, std::unique_ptr<GemmStep> gemm,
                               std::unique_ptr<StepRunner> epilogue)
    : im2col_(std::move(im2col)), gemm_(std::move(gemm)), epilogue_(std::move(epilogue)) {
  PET_CHECK(gemm_ != nullptr, "a column convolution without its GEMM");
}

void ColumnConvStep::run(cudaStream_t stream, void* workspace) {
  if (im2col_) im2col_->enqueue(stream);
  gemm_->run(stream, workspace);
  if (epilogue_) epilogue_->enqueue(stream);
}

float ColumnConvStep::time(cudaStream_t stream, void* workspace) {
  return mean_enqueued_ms(stream, 2, 5, [&] { run(stream, workspace); });
}

void ColumnConvStep::enqueue(cudaStream_t stream) {
  if (im2col_) im2col_->enqueue(stream);
  gemm_->enqueue(stream);
  if (epilogue_) epilogue_->enqueue(stream);
}

std::string ColumnConvStep::describe() const {
  std::string text = fmt::format("{} + {}", im2col_ ? "im2col" : "x as the columns", gemm_->describe());
  if (epilogue_) text += "; then " + epilogue_->describe();
  if (!note_.empty()) text += fmt::format(" ({})", note_);
  return text;
}

}  // namespace pet::gpu
