// A cudnn_conv step on cuDNN's legacy convolution API: Nd descriptors built from its ConvConfig,
// the fastest algorithm found once per distinct configuration (cudnnFindConvolutionForwardAlgorithmEx
// on the step's own buffers), and the call conv_call picks: plain, fused bias + residual + ReLU, or
// the convolution followed by pet's generated epilogue. Where a plan of cuDNN's graph API
// (cudnn_engine_conv.h) times faster, the step runs that plan and the epilogue instead.
#pragma once

#include <cudnn.h>

#include <memory>
#include <optional>
#include <string>

#include "kernels/gpu/executor/conv_config.h"
#include "kernels/gpu/executor/cudnn_engine_conv.h"
#include "kernels/gpu/executor/device_memory.h"
#include "kernels/gpu/executor/math_mode.h"
#include "kernels/gpu/executor/step_runner.h"

namespace pet::gpu {

struct ConvChoice {
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  int64_t workspace_bytes = 0;
  float ms = 0;  // cuDNN's own timing during the search
};

// Device addresses of a conv step's operands (bias: channels() floats, zeros when the step has none;
// residual: nullptr when none; zeros: at least output_elements() zero floats, the fused call's z
// without a residual, as cuDNN's documentation leaves open whether it reads z when alpha2 is 0
// and a poisoned y must not leak into the result).
struct ConvPointers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  void* bias = nullptr;
  void* residual = nullptr;
  void* zeros = nullptr;
};

class ConvStep : public StepRunner {
 public:
  ConvStep(cudnnHandle_t handle, const ConvConfig& config, MathMode math, const ConvPointers& pointers,
           const DeviceBuffer& workspace);
  ConvStep(const ConvStep&) = delete;
  ConvStep& operator=(const ConvStep&) = delete;
  ~ConvStep() override;

  // cuDNN's search on this step's buffers within `bytes` of workspace at `workspace`: the fastest
  // algorithm of the math mode (strict: FMA kernels only). CudaFailure when none runs.
  ConvChoice find_algorithm(void* workspace, int64_t bytes);
  // Runs the step with `choice` from now on and returns the call it makes: conv_call's, except that
  // a fused call cuDNN refuses for this configuration (tried once here, on `stream` with
  // `trial_workspace` of at least the choice's bytes) becomes the convolution and the epilogue,
  // which describe() then says. A forward_then_epilogue call needs set_epilogue before it runs.
  ConvCall use(const ConvChoice& choice, cudaStream_t stream, void* trial_workspace);
  void set_epilogue(std::unique_ptr<StepRunner> epilogue) { epilogue_ = std::move(epilogue); }
  ConvCall call() const { return call_; }

  // The mean milliseconds of the step as it runs now (its call and epilogue), with `workspace`.
  float time(cudaStream_t stream, void* workspace);
  // The same with `plan` (the convolution through cuDNN's graph API, then the epilogue where the
  // step has one); infinity when cuDNN refuses to run the plan.
  float time_engine(const EnginePlan& plan, cudaStream_t stream, void* workspace);
  // Runs the step with `plan` from now on, `ms` against the legacy choice's `legacy_ms` (both as
  // timed at load), which describe() then says.
  void use_engine(const EnginePlan& plan, float ms, float legacy_ms);
  // Why the graph API's plans did not replace the legacy choice, which describe() then says.
  void note_engine_search(std::string note) { engine_note_ = std::move(note); }
  // Why the column path (conv_columns.h) did not replace this step, which describe() then says.
  void note_columns(std::string note) { columns_note_ = std::move(note); }

  void enqueue(cudaStream_t stream) override;
  std::string describe() const override;
  int64_t workspace_bytes() const override { return engine_ ? engine_->workspace_bytes : choice_.workspace_bytes; }

 private:
  struct Descriptors;
  cudnnHandle_t handle_;
  ConvConfig config_;
  MathMode math_;
  ConvPointers pointers_;
  const DeviceBuffer& workspace_;
  std::unique_ptr<Descriptors> descriptors_;
  ConvChoice choice_;
  ConvCall call_ = ConvCall::forward;
  std::string fused_refusal_;  // cuDNN's status when it refused the fused call
  std::unique_ptr<StepRunner> epilogue_;
  std::optional<EnginePlan> engine_;  // set when the graph API's plan beat the legacy choice
  float engine_ms_ = 0, legacy_ms_ = 0;
  std::string legacy_description_;  // the legacy call the plan replaced
  std::string engine_note_;         // why no plan replaced the legacy choice
  std::string columns_note_;        // why the column path did not replace the step
  cudnnStatus_t fused(cudaStream_t stream, void* workspace);
  void run(cudaStream_t stream, void* workspace);
  // The convolution through `plan`, then the epilogue where the step has one.
  void run_plan(const EnginePlan& plan, cudaStream_t stream, void* workspace);
  bool has_epilogue_work() const;
};

// "IMPLICIT_PRECOMP_GEMM", ...
std::string algorithm_name(cudnnConvolutionFwdAlgo_t algo);

}  // namespace pet::gpu
