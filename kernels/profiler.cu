// Timing single nodes on the GPU for the profile DB: library calls where pet's runtime uses a
// library, streaming kernels with the node's exact traffic elsewhere.
#include "kernels/profiler.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "core/error.h"
#include "kernels/event_timing.h"

namespace pet {
namespace {

void check_cuda(cudaError_t error, const char* call) {
  if (error != cudaSuccess)
    throw UserError(std::string(call) + " failed: " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) +
                    "); check the GPU with pet-gpu devices");
}

void check_cudnn(cudnnStatus_t status, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw UserError(std::string(call) + " failed: " + cudnnGetErrorString(status) + "; check the GPU with pet-gpu devices");
}

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw UserError(std::string(call) + " failed: " + cublasGetStatusString(status) + "; check the GPU with pet-gpu devices");
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) {
    check_cuda(cudaMalloc(&data_, std::max<size_t>(bytes, 16)), "cudaMalloc");
    check_cuda(cudaMemset(data_, 0, std::max<size_t>(bytes, 16)), "cudaMemset");
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* f32() const { return static_cast<float*>(data_); }

 private:
  void* data_ = nullptr;
};

size_t bytes_of(const TensorType& type) { return static_cast<size_t>(type.shape.numel()) * dtype_size(type.dtype); }

// One device buffer per present input and per output, sized from the node's types.
struct NodeBuffers {
  std::vector<std::unique_ptr<DeviceBuffer>> inputs;  // null for absent inputs
  std::vector<std::unique_ptr<DeviceBuffer>> outputs;
  std::vector<size_t> input_bytes, output_bytes;
  NodeBuffers(const Graph& graph, const Node& node) {
    for (ValueId id : node.inputs) {
      input_bytes.push_back(id == kNoValue ? 0 : bytes_of(graph.value(id).type));
      inputs.push_back(id == kNoValue ? nullptr : std::make_unique<DeviceBuffer>(input_bytes.back()));
    }
    for (ValueId id : node.outputs) {
      output_bytes.push_back(bytes_of(graph.value(id).type));
      outputs.push_back(std::make_unique<DeviceBuffer>(output_bytes.back()));
    }
  }
  float* in(size_t i) const { return inputs.at(i) ? inputs[i]->f32() : nullptr; }
  float* out(size_t i) const { return outputs.at(i)->f32(); }
};

double median_microseconds(const std::function<void()>& launch, const ProfileSettings& settings) {
  std::vector<double> ms;
  CudaStatus timed = time_with_events(launch, settings.warmup, std::max(1, settings.runs), ms);
  if (!timed.ok()) throw UserError(timed.message + "; check the GPU with pet-gpu devices");
  return summarize_runs(std::move(ms)).median * 1000.0;
}

constexpr int kMaxStreams = 4;
constexpr int kMaxRank = 12;

struct Streams {
  const float* in[kMaxStreams];
  int64_t in_words[kMaxStreams];
  float* out[kMaxStreams];
  int64_t out_words[kMaxStreams];
};

// Reads every input word once and writes every output word once: the traffic of an elementwise
// op or a non-permuting copy (concat, split, slice, pad, reshape...).
__global__ void stream_kernel(Streams s, int64_t words) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float acc = 0;
    for (int k = 0; k < kMaxStreams; ++k)
      if (i < s.in_words[k]) acc += s.in[k][i];
    acc = acc > 0 ? acc : 0.01f * acc;
    for (int k = 0; k < kMaxStreams; ++k)
      if (i < s.out_words[k]) s.out[k][i] = acc;
  }
}

struct Dims {
  int64_t v[kMaxRank];
};

// out (flat over out_dims) = in read through the permuted strides.
__global__ void permute_kernel(const float* in, float* out, int64_t count, int rank, Dims out_dims, Dims in_strides) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = i, source = 0;
    for (int d = rank - 1; d >= 0; --d) {
      source += rest % out_dims.v[d] * in_strides.v[d];
      rest /= out_dims.v[d];
    }
    out[i] = in[source];
  }
}

int grid_for(int64_t count) { return static_cast<int>(std::clamp<int64_t>((count + 255) / 256, 1, 65535)); }

std::optional<OpMeasurement> profile_stream(const NodeBuffers& b, const ProfileSettings& settings, std::string& why) {
  if (b.inputs.size() > kMaxStreams || b.outputs.size() > kMaxStreams) {
    why = "more than 4 inputs or outputs";
    return std::nullopt;
  }
  Streams s{};
  int64_t words = 0;
  for (size_t k = 0; k < b.inputs.size(); ++k) {
    s.in[k] = b.in(k);
    s.in_words[k] = s.in[k] ? static_cast<int64_t>(b.input_bytes[k] / 4) : 0;
    words = std::max(words, s.in_words[k]);
  }
  for (size_t k = 0; k < b.outputs.size(); ++k) {
    s.out[k] = b.out(k);
    s.out_words[k] = static_cast<int64_t>((b.output_bytes[k] + 3) / 4);
    words = std::max(words, s.out_words[k]);
  }
  double us = median_microseconds([&] { stream_kernel<<<grid_for(words), 256>>>(s, words); }, settings);
  check_cuda(cudaGetLastError(), "stream_kernel");
  return OpMeasurement{us, "own streaming kernel (the node's bytes, read and written once)"};
}

// Transpose and Layout: `perm` over the input's dims (Transpose) or its `expanded` factors (Layout).
std::optional<OpMeasurement> profile_permute(const Graph& graph, const Node& node, const NodeBuffers& b,
                                             const ProfileSettings& settings, std::string& why) {
  const TensorType& input = graph.value(node.inputs[0]).type;
  std::vector<int64_t> dims = node.attrs.has("expanded") ? node.attrs.get_ints("expanded") : input.shape.dims();
  const std::vector<int64_t>& perm = node.attrs.get_ints("perm");
  int rank = static_cast<int>(perm.size());
  if (input.dtype != DType::f32 || rank > kMaxRank || rank != static_cast<int>(dims.size())) {
    why = "not an f32 permutation of at most 12 axes";
    return std::nullopt;
  }
  std::vector<int64_t> strides(dims.size(), 1);
  for (int d = rank - 2; d >= 0; --d) strides[static_cast<size_t>(d)] = strides[static_cast<size_t>(d) + 1] * dims[static_cast<size_t>(d) + 1];
  Dims out_dims{}, in_strides{};
  for (int d = 0; d < rank; ++d) {
    auto source = static_cast<size_t>(perm[static_cast<size_t>(d)]);
    out_dims.v[d] = dims[source];
    in_strides.v[d] = strides[source];
  }
  int64_t count = input.shape.numel();
  float* in = b.in(0);
  float* out = b.out(0);
  double us = median_microseconds(
      [&] { permute_kernel<<<grid_for(count), 256>>>(in, out, count, rank, out_dims, in_strides); }, settings);
  check_cuda(cudaGetLastError(), "permute_kernel");
  return OpMeasurement{us, "own permute kernel"};
}

struct CudnnConv {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  CudnnConv() {
    check_cudnn(cudnnCreate(&handle), "cudnnCreate");
    check_cudnn(cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&bias), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor");
    check_cudnn(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
  }
  ~CudnnConv() {
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(bias);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroy(handle);
  }
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;
};

const char* algorithm_name(cudnnConvolutionFwdAlgo_t algo) {
  static const char* const names[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                      "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  auto index = static_cast<size_t>(algo);
  return index < std::size(names) ? names[index] : "UNKNOWN";
}

void set_4d(cudnnTensorDescriptor_t descriptor, const Shape& s) {
  check_cudnn(cudnnSetTensor4dDescriptor(descriptor, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, static_cast<int>(s[0]),
                                         static_cast<int>(s[1]), static_cast<int>(s[2]), static_cast<int>(s[3])),
              "cudnnSetTensor4dDescriptor");
}

// cuDNN picks the fastest algorithm by trying them (TF32 allowed: CUDNN_DEFAULT_MATH).
std::optional<OpMeasurement> profile_conv(const Graph& graph, const Node& node, const NodeBuffers& b,
                                          const ProfileSettings& settings, std::string& why) {
  const Shape& xs = graph.value(node.inputs[0]).type.shape;
  const Shape& ws = graph.value(node.inputs[1]).type.shape;
  const Shape& ys = graph.value(node.outputs[0]).type.shape;
  const auto& pads = node.attrs.get_ints("pads");
  const auto& strides = node.attrs.get_ints("strides");
  const auto& dilations = node.attrs.get_ints("dilations");
  if (xs.rank() != 4 || pads.size() != 4 || pads[0] != pads[2] || pads[1] != pads[3]) {
    why = "cuDNN profiling covers 2-D convs with symmetric pads";
    return std::nullopt;
  }
  CudnnConv c;
  set_4d(c.x, xs);
  set_4d(c.y, ys);
  check_cudnn(cudnnSetFilter4dDescriptor(c.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, static_cast<int>(ws[0]),
                                         static_cast<int>(ws[1]), static_cast<int>(ws[2]), static_cast<int>(ws[3])),
              "cudnnSetFilter4dDescriptor");
  check_cudnn(cudnnSetConvolution2dDescriptor(c.conv, static_cast<int>(pads[0]), static_cast<int>(pads[1]),
                                              static_cast<int>(strides[0]), static_cast<int>(strides[1]),
                                              static_cast<int>(dilations[0]), static_cast<int>(dilations[1]),
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "cudnnSetConvolution2dDescriptor");
  check_cudnn(cudnnSetConvolutionGroupCount(c.conv, static_cast<int>(node.attrs.get_int("group"))),
              "cudnnSetConvolutionGroupCount");
  check_cudnn(cudnnSetConvolutionMathType(c.conv, CUDNN_DEFAULT_MATH), "cudnnSetConvolutionMathType");
  constexpr size_t kWorkspace = size_t{256} << 20;
  DeviceBuffer workspace(kWorkspace);
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(c.handle, c.x, b.in(0), c.w, b.in(1), c.conv, c.y, b.out(0),
                                                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf,
                                                     workspace.f32(), kWorkspace),
              "cudnnFindConvolutionForwardAlgorithmEx");
  if (returned == 0 || perf[0].status != CUDNN_STATUS_SUCCESS) {
    why = "cuDNN found no algorithm";
    return std::nullopt;
  }
  bool has_bias = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
  if (has_bias) set_4d(c.bias, Shape{1, ys[1], 1, 1});
  float one = 1, zero = 0;
  cudnnConvolutionFwdAlgoPerf_t best = perf[0];
  double us = median_microseconds(
      [&] {
        cudnnConvolutionForward(c.handle, &one, c.x, b.in(0), c.w, b.in(1), c.conv, best.algo, workspace.f32(),
                                best.memory, &zero, c.y, b.out(0));
        if (has_bias) cudnnAddTensor(c.handle, &one, c.bias, b.in(2), &one, c.y, b.out(0));
      },
      settings);
  std::string method = std::string("cudnn ") + algorithm_name(best.algo) + (has_bias ? " + cudnnAddTensor bias" : "");
  return OpMeasurement{us, method};
}

struct GemmCall {
  cublasOperation_t op_first = CUBLAS_OP_N, op_second = CUBLAS_OP_N;
  int n = 0, m = 0, k = 0, ld_first = 0, ld_second = 0;
  long long stride_first = 0, stride_second = 0, stride_out = 0;
  int batch = 1;
};

// Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B first.
std::optional<OpMeasurement> run_gemm(const GemmCall& g, const float* a, const float* bm, float* out,
                                      const ProfileSettings& settings, const float* bias, size_t bias_words) {
  cublasHandle_t handle = nullptr;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  std::unique_ptr<cublasContext, decltype(&cublasDestroy)> owner(handle, cublasDestroy);
  float one = 1, zero = 0;
  Streams s{};
  int64_t out_words = static_cast<int64_t>(g.batch) * g.m * g.n;
  s.in[0] = bias;
  s.in_words[0] = bias ? static_cast<int64_t>(bias_words) : 0;
  s.out[0] = out;
  s.out_words[0] = out_words;
  auto launch = [&] {
    cublasGemmStridedBatchedEx(handle, g.op_first, g.op_second, g.n, g.m, g.k, &one, bm, CUDA_R_32F, g.ld_first,
                               g.stride_first, a, CUDA_R_32F, g.ld_second, g.stride_second, &zero, out, CUDA_R_32F,
                               g.n, g.stride_out, g.batch, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
    if (bias) stream_kernel<<<grid_for(out_words), 256>>>(s, out_words);
  };
  double us = median_microseconds(launch, settings);
  return OpMeasurement{us, bias ? "cublas GemmStridedBatchedEx TF32 + own bias kernel" : "cublas GemmStridedBatchedEx TF32"};
}

std::optional<OpMeasurement> profile_matmul(const Graph& graph, const Node& node, const NodeBuffers& b,
                                            const ProfileSettings& settings, std::string& why) {
  const Shape& as = graph.value(node.inputs[0]).type.shape;
  const Shape& bs = graph.value(node.inputs[1]).type.shape;
  const Shape& ys = graph.value(node.outputs[0]).type.shape;
  if (as.rank() < 2 || bs.rank() < 2) {
    why = "MatMul of a vector";
    return std::nullopt;
  }
  int64_t m = as[as.rank() - 2], k = as[as.rank() - 1], n = bs[bs.rank() - 1];
  int64_t batch = ys.numel() / std::max<int64_t>(1, m * n);
  int64_t batch_a = as.numel() / std::max<int64_t>(1, m * k), batch_b = bs.numel() / std::max<int64_t>(1, k * n);
  if ((batch_a != 1 && batch_a != batch) || (batch_b != 1 && batch_b != batch)) {
    why = "MatMul with a partly broadcast batch";
    return std::nullopt;
  }
  GemmCall g;
  g.n = static_cast<int>(n);
  g.m = static_cast<int>(m);
  g.k = static_cast<int>(k);
  g.ld_first = g.n;
  g.ld_second = g.k;
  g.stride_first = batch_b == 1 ? 0 : k * n;
  g.stride_second = batch_a == 1 ? 0 : m * k;
  g.stride_out = m * n;
  g.batch = static_cast<int>(batch);
  return run_gemm(g, b.in(0), b.in(1), b.out(0), settings, nullptr, 0);
}

std::optional<OpMeasurement> profile_gemm(const Graph& graph, const Node& node, const NodeBuffers& b,
                                          const ProfileSettings& settings, std::string&) {
  const Shape& ys = graph.value(node.outputs[0]).type.shape;
  const Shape& as = graph.value(node.inputs[0]).type.shape;
  bool trans_a = node.attrs.get_int("transA") != 0, trans_b = node.attrs.get_int("transB") != 0;
  GemmCall g;
  g.m = static_cast<int>(ys[0]);
  g.n = static_cast<int>(ys[1]);
  g.k = static_cast<int>(trans_a ? as[0] : as[1]);
  g.op_first = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  g.ld_first = trans_b ? g.k : g.n;
  g.op_second = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  g.ld_second = trans_a ? g.m : g.k;
  g.stride_out = static_cast<long long>(g.m) * g.n;
  bool has_bias = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
  return run_gemm(g, b.in(0), b.in(1), b.out(0), settings, has_bias ? b.in(2) : nullptr,
                  has_bias ? b.input_bytes[2] / 4 : 0);
}

using Profiler = std::optional<OpMeasurement> (*)(const Graph&, const Node&, const NodeBuffers&,
                                                  const ProfileSettings&, std::string&);

// The library each compute-heavy op maps to in pet's GPU runtime.
Profiler library_profiler(const std::string& op) {
  if (op == "Conv") return profile_conv;
  if (op == "MatMul") return profile_matmul;
  if (op == "Gemm") return profile_gemm;
  return nullptr;
}

bool permutes(const Node& node) { return node.def->traits.layout_only && node.attrs.has("perm"); }

}  // namespace

bool profilable(const Node& node) {
  return library_profiler(node.op()) != nullptr || node.def->traits.layout_only || node.def->traits.elementwise;
}

std::optional<OpMeasurement> profile_node(const Graph& graph, const Node& node, const ProfileSettings& settings,
                                          std::string& why) {
  if (!profilable(node)) {
    why = node.op() + " has no GPU mapping in the profiler yet";
    return std::nullopt;
  }
  NodeBuffers buffers(graph, node);
  if (Profiler profiler = library_profiler(node.op())) return profiler(graph, node, buffers, settings, why);
  if (permutes(node)) return profile_permute(graph, node, buffers, settings, why);
  return profile_stream(buffers, settings, why);
}

std::string library_versions(const CudaVersions& versions) {
  return "CUDA " + std::to_string(versions.runtime.major) + "." + std::to_string(versions.runtime.minor) + ", cuDNN " +
         format_version(versions.cudnn) + ", cuBLAS " + format_version(versions.cublas);
}

std::string no_gpu_message(const CudaStatus& status) {
  return "no CUDA device is visible (" + status.message +
         "); profiling needs a GPU. The cost model's analytic estimates work without one (pet-opt --target h100).";
}

}  // namespace pet
