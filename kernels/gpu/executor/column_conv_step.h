// A cudnn_conv step run on the column path (conv_columns.h): the im2col kernel (none for a 1x1
// kernel at stride 1 without pads, whose input is its columns), the cuBLASLt GEMM of the filter and
// the columns, then the conv epilogue where the step has one. The loader builds
// it beside cuDNN's runner, times both and keeps the faster; a convolution whose pads differ at the
// two ends has only this one.
#pragma once

#include <memory>
#include <string>

#include "kernels/gpu/executor/cublaslt_gemm.h"
#include "kernels/gpu/executor/step_runner.h"

namespace pet::gpu {

class ColumnConvStep : public StepRunner {
 public:
  ColumnConvStep(std::unique_ptr<StepRunner> im2col, std::unique_ptr<GemmStep> gemm,
                 std::unique_ptr<StepRunner> epilogue);

  // The three parts on `stream`, the GEMM with `workspace` (the load times before the shared
  // workspace is sized).
  void run(cudaStream_t stream, void* workspace);
  // The mean milliseconds of run() after two warm-ups, over five runs.
  float time(cudaStream_t stream, void* workspace);
  // What describe() says besides the parts: the time at load and what it was weighed against.
  void set_note(std::string note) { note_ = std::move(note); }

  void enqueue(cudaStream_t stream) override;
  std::string describe() const override;
  int64_t workspace_bytes() const override { return gemm_->workspace_bytes(); }

 private:
  std::unique_ptr<StepRunner> im2col_;    // null when the GEMM reads x itself
  std::unique_ptr<GemmStep> gemm_;
  std::unique_ptr<StepRunner> epilogue_;  // null when the step adds and applies nothing
  std::string note_;
};

}  // namespace pet::gpu
