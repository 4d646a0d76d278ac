// ConvStep: descriptors owned in one struct, the search filtered by math mode, and one enqueue per
// ConvCall. cuDNN's fused call computes relu(alpha1 * conv(x) + alpha2 * z + bias): alpha2 is 1 with
// a residual z and 0 without (z is then a zero tensor).
#include "kernels/gpu/executor/cudnn_conv.h"

#include <fmt/format.h>

#include <limits>
#include <vector>

#include "core/error.h"
#include "kernels/gpu/executor/cuda_check.h"
#include "kernels/gpu/executor/device_timing.h"

namespace pet::gpu {
namespace {

std::vector<int> packed_strides(const std::vector<int>& dims) {
  std::vector<int> strides(dims.size(), 1);
  for (size_t d = dims.size() - 1; d > 0; --d) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

void set_tensor(cudnnTensorDescriptor_t descriptor, const std::vector<int>& dims) {
  std::vector<int> strides = packed_strides(dims);
  check_cudnn(cudnnSetTensorNdDescriptor(descriptor, CUDNN_DATA_FLOAT, static_cast<int>(dims.size()), dims.data(),
                                         strides.data()),
              "cudnnSetTensorNdDescriptor");
}

// The bias as cuDNN reads it: 1 x C x 1 x ... x 1, of the output's rank.
std::vector<int> bias_dims(const ConvConfig& config) {
  std::vector<int> dims(config.output.size(), 1);
  dims[1] = config.channels();
  return dims;
}

// Strict mode takes no tensor-op result; neither mode takes FP16 down-conversion.
bool allowed(MathMode mode, cudnnMathType_t math) {
  if (math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return false;
  return mode == MathMode::tf32 || math != CUDNN_TENSOR_OP_MATH;
}

}  // namespace

struct ConvStep::Descriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t activation = nullptr;

  Descriptors() = default;
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
  ~Descriptors() {
    if (activation != nullptr) cudnnDestroyActivationDescriptor(activation);
    if (conv != nullptr) cudnnDestroyConvolutionDescriptor(conv);
    if (w != nullptr) cudnnDestroyFilterDescriptor(w);
    for (cudnnTensorDescriptor_t tensor : {x, y, bias})
      if (tensor != nullptr) cudnnDestroyTensorDescriptor(tensor);
  }

  void create() {
    for (cudnnTensorDescriptor_t* tensor : {&x, &y, &bias})
      check_cudnn(cudnnCreateTensorDescriptor(tensor), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor");
    check_cudnn(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
    check_cudnn(cudnnCreateActivationDescriptor(&activation), "cudnnCreateActivationDescriptor");
  }

  void set(const ConvConfig& config, MathMode mode) {
    set_tensor(x, config.input);
    set_tensor(y, config.output);
    set_tensor(bias, bias_dims(config));
    check_cudnn(cudnnSetFilterNdDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                           static_cast<int>(config.filter.size()), config.filter.data()),
                "cudnnSetFilterNdDescriptor");
    check_cudnn(cudnnSetConvolutionNdDescriptor(conv, static_cast<int>(config.pads.size()), config.pads.data(),
                                                config.strides.data(), config.dilations.data(), CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT),
                "cudnnSetConvolutionNdDescriptor");
    check_cudnn(cudnnSetConvolutionGroupCount(conv, config.groups), "cudnnSetConvolutionGroupCount");
    check_cudnn(cudnnSetConvolutionMathType(conv, mode == MathMode::strict ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH),
                "cudnnSetConvolutionMathType");
    check_cudnn(
        cudnnSetActivationDescriptor(activation, config.relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                                     CUDNN_NOT_PROPAGATE_NAN, 0.0),
        "cudnnSetActivationDescriptor");
  }
};

ConvStep::ConvStep(cudnnHandle_t handle, const ConvConfig& config, MathMode math, const ConvPointers& pointers,
                   const DeviceBuffer& workspace)
    : handle_(handle),
      config_(config),
      math_(math),
      pointers_(pointers),
      workspace_(workspace),
      descriptors_(std::make_unique<Descriptors>()) {
  descriptors_->create();
  descriptors_->set(config_, math_);
}

ConvStep::~ConvStep() = default;

ConvChoice ConvStep::find_algorithm(void* workspace, int64_t bytes) {
  cudnnConvolutionFwdAlgoPerf_t results[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  const Descriptors& d = *descriptors_;
  check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(handle_, d.x, pointers_.x, d.w, pointers_.w, d.conv, d.y,
                                                     pointers_.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, results,
                                                     workspace, static_cast<size_t>(bytes)),
              "cudnnFindConvolutionForwardAlgorithmEx");
  for (int i = 0; i < returned; ++i) {  // cuDNN sorts the results by time
    const cudnnConvolutionFwdAlgoPerf_t& result = results[i];
    if (result.status != CUDNN_STATUS_SUCCESS || static_cast<int64_t>(result.memory) > bytes) continue;
    if (!allowed(math_, result.mathType)) continue;
    return {result.algo, result.mathType, static_cast<int64_t>(result.memory), result.time};
  }
  throw CudaFailure({CudaOutcome::failed,
                     fmt::format("cudnnFindConvolutionForwardAlgorithmEx: no {} algorithm runs {} within {} bytes of "
                                 "workspace",
                                 to_string(math_), config_.key(), bytes)});
}

ConvCall ConvStep::use(const ConvChoice& choice, cudaStream_t stream, void* trial_workspace) {
  choice_ = choice;
  // cuDNN wants the search's math type set again; strict mode keeps FMA, whatever a result reports.
  if (math_ == MathMode::strict) choice_.math = CUDNN_FMA_MATH;
  check_cudnn(cudnnSetConvolutionMathType(descriptors_->conv, choice_.math), "cudnnSetConvolutionMathType");
  call_ = conv_call(config_, choice.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  if (call_ != ConvCall::fused) return call_;
  cudnnStatus_t status = fused(stream, trial_workspace);
  if (status == CUDNN_STATUS_NOT_SUPPORTED || status == CUDNN_STATUS_BAD_PARAM) {
    fused_refusal_ = cudnnGetErrorString(status);
    call_ = ConvCall::forward_then_epilogue;
    return call_;
  }
  check_cudnn(status, "cudnnConvolutionBiasActivationForward");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize (after trying cuDNN's fused call)");
  return call_;
}

cudnnStatus_t ConvStep::fused(cudaStream_t stream, void* workspace) {
  check_cudnn(cudnnSetStream(handle_, stream), "cudnnSetStream");
  const Descriptors& d = *descriptors_;
  const float one = 1.0f;
  bool residual = pointers_.residual != nullptr;
  const float alpha2 = residual ? 1.0f : 0.0f;
  return cudnnConvolutionBiasActivationForward(handle_, &one, d.x, pointers_.x, d.w, pointers_.w, d.conv, choice_.algo,
                                               workspace, static_cast<size_t>(choice_.workspace_bytes), &alpha2, d.y,
                                               residual ? pointers_.residual : pointers_.zeros, d.bias, pointers_.bias,
                                               d.activation, d.y, pointers_.y);
}

bool ConvStep::has_epilogue_work() const {
  return config_.bias != kNoValue || config_.residual != kNoValue || config_.relu;
}

void ConvStep::run_plan(const EnginePlan& plan, cudaStream_t stream, void* workspace) {
  check_cudnn(run_engine_plan(handle_, stream, plan, pointers_.x, pointers_.w, pointers_.y, workspace),
              fmt::format("cudnnBackendExecute ({})", plan.describe()));
  if (!has_epilogue_work()) return;
  PET_CHECK(epilogue_ != nullptr, "a graph-API convolution needs its epilogue kernel and has none");
  epilogue_->enqueue(stream);
}

void ConvStep::run(cudaStream_t stream, void* workspace) {
  if (engine_) {
    run_plan(*engine_, stream, workspace);
    return;
  }
  if (call_ == ConvCall::fused) {
    check_cudnn(fused(stream, workspace), "cudnnConvolutionBiasActivationForward");
    return;
  }
  check_cudnn(cudnnSetStream(handle_, stream), "cudnnSetStream");
  const Descriptors& d = *descriptors_;
  const float one = 1.0f, zero = 0.0f;
  check_cudnn(cudnnConvolutionForward(handle_, &one, d.x, pointers_.x, d.w, pointers_.w, d.conv, choice_.algo,
                                      workspace, static_cast<size_t>(choice_.workspace_bytes), &zero, d.y, pointers_.y),
              "cudnnConvolutionForward");
  if (call_ == ConvCall::forward_then_epilogue) {
    PET_CHECK(epilogue_ != nullptr, "a convolution needs its epilogue kernel and has none");
    epilogue_->enqueue(stream);
  }
}

void ConvStep::enqueue(cudaStream_t stream) {
  PET_CHECK(workspace_bytes() <= workspace_.bytes(), "a convolution's workspace outgrew the shared one");
  run(stream, workspace_.data());
}

float ConvStep::time(cudaStream_t stream, void* workspace) {
  return mean_enqueued_ms(stream, 2, 5, [&] { run(stream, workspace); });
}

float ConvStep::time_engine(const EnginePlan& plan, cudaStream_t stream, void* workspace) {
  if (run_engine_plan(handle_, stream, plan, pointers_.x, pointers_.w, pointers_.y, workspace) != CUDNN_STATUS_SUCCESS)
    return std::numeric_limits<float>::infinity();
  return mean_enqueued_ms(stream, 1, 5, [&] { run_plan(plan, stream, workspace); });
}

void ConvStep::use_engine(const EnginePlan& plan, float ms, float legacy_ms) {
  PET_CHECK(!has_epilogue_work() || epilogue_ != nullptr, "a graph-API convolution needs its epilogue and has none");
  legacy_description_ = fmt::format("{} {}", to_string(call_), algorithm_name(choice_.algo));
  engine_ = plan;
  engine_ms_ = ms;
  legacy_ms_ = legacy_ms;
  call_ = has_epilogue_work() ? ConvCall::forward_then_epilogue : ConvCall::forward;
}

std::string ConvStep::describe() const {
  std::string text;
  if (engine_) {
    text = fmt::format("cuDNN graph API {}{}, workspace {} B, {:.3f} ms timed at load (legacy {}: {:.3f} ms)",
                       engine_->describe(), call_ == ConvCall::forward_then_epilogue ? " + generated epilogue" : "",
                       engine_->workspace_bytes, engine_ms_, legacy_description_, legacy_ms_);
  } else {
    text = fmt::format("cuDNN {} {}, {} math, workspace {} B, {:.3f} ms in the search", to_string(call_),
                       algorithm_name(choice_.algo), choice_.math == CUDNN_FMA_MATH ? "FMA" : "tensor-op",
                       choice_.workspace_bytes, choice_.ms);
  }
  if (!fused_refusal_.empty()) text += fmt::format(" (cuDNN refused the fused call: {})", fused_refusal_);
  if (!engine_note_.empty()) text += fmt::format(" ({})", engine_note_);
  if (!columns_note_.empty()) text += fmt::format(" ({})", columns_note_);
  if (epilogue_ && call_ == ConvCall::forward_then_epilogue) text += "; then " + epilogue_->describe();
  return text;
}

std::string algorithm_name(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
      return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
      return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    case CUDNN_CONVOLUTION_FWD_ALGO_COUNT:
      break;
  }
  return fmt::format("algorithm {}", static_cast<int>(algo));
}

}  // namespace pet::gpu
