// GemmStep: descriptors owned in one struct; the search asks the heuristic with the operands'
// real alignments, adds its first algorithms with K split, times each candidate with events (a
// candidate cuBLASLt refuses is skipped) and keeps the fastest.
#include "kernels/gpu/executor/cublaslt_gemm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "core/error.h"
#include "kernels/gpu/executor/cuda_check.h"
#include "kernels/gpu/executor/device_timing.h"

namespace pet::gpu {
namespace {

template <typename T>
void set_layout_attribute(cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attribute, T value) {
  check_cublas(cublasLtMatrixLayoutSetAttribute(layout, attribute, &value, sizeof value),
               "cublasLtMatrixLayoutSetAttribute");
}

template <typename T>
void set_matmul_attribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, T value) {
  check_cublas(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof value), "cublasLtMatmulDescSetAttribute");
}

template <typename T>
void set_preference(cublasLtMatmulPreference_t preference, cublasLtMatmulPreferenceAttributes_t attribute, T value) {
  check_cublas(cublasLtMatmulPreferenceSetAttribute(preference, attribute, &value, sizeof value),
               "cublasLtMatmulPreferenceSetAttribute");
}

cublasLtEpilogue_t epilogue_of(const GemmConfig& config) {
  if (config.bias != kNoValue) return config.relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
  return config.relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_DEFAULT;
}

const char* epilogue_name(cublasLtEpilogue_t epilogue) {
  switch (epilogue) {
    case CUBLASLT_EPILOGUE_RELU_BIAS:
      return "RELU_BIAS";
    case CUBLASLT_EPILOGUE_BIAS:
      return "BIAS";
    case CUBLASLT_EPILOGUE_RELU:
      return "RELU";
    default:
      return "DEFAULT";
  }
}

cublasOperation_t operation(bool transpose) { return transpose ? CUBLAS_OP_T : CUBLAS_OP_N; }

// The ways K is split beside the heuristic's algorithms, each slice at least kLeastSplitDepth deep:
// a product of few output tiles and a long K (a batch-1 convolution's 196 x 512 x 4608 on the column
// path: 8 tiles of 128 x 128 for 132 SMs) leaves most of the card idle unsplit, and the heuristic's
// first few algorithms need not split it.
constexpr int32_t kSplits[] = {2, 4, 8, 16};
constexpr int64_t kLeastSplitDepth = 256;

// One of an algorithm's capabilities or settings (T{} where cuBLASLt reads none), through the
// getter of its kind: cublasLtMatmulAlgoCapGetAttribute or cublasLtMatmulAlgoConfigGetAttribute.
template <typename T, typename Attribute>
T algo_attribute(cublasStatus_t (*get)(const cublasLtMatmulAlgo_t*, Attribute, void*, size_t, size_t*),
                 const cublasLtMatmulAlgo_t& algo, Attribute attribute) {
  T value{};
  size_t written = 0;
  return get(&algo, attribute, &value, sizeof value, &written) == CUBLAS_STATUS_SUCCESS ? value : T{};
}

// The reduction a split algorithm takes: partial sums in the workspace in FP32 where it can, else
// in the output's type, else in the output itself; none when it reduces in no way.
uint32_t reduction_scheme(const cublasLtMatmulAlgo_t& algo) {
  auto mask =
      algo_attribute<uint32_t>(cublasLtMatmulAlgoCapGetAttribute, algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
  for (uint32_t scheme : {CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE, CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE,
                          CUBLASLT_REDUCTION_SCHEME_INPLACE})
    if ((mask & scheme) != 0) return scheme;
  return CUBLASLT_REDUCTION_SCHEME_NONE;
}

// `base` moved on by `elements` floats.
void* at(void* base, int64_t elements) { return static_cast<float*>(base) + elements; }

// The alignment every call's address of one operand keeps: `base` moved by each call's offset.
uint32_t alignment_over_calls(void* base, const std::vector<GemmCallOffsets>& calls,
                              int64_t GemmCallOffsets::*offset) {
  uint32_t alignment = alignment_of(base);
  for (const GemmCallOffsets& call : calls) alignment = std::min(alignment, alignment_of(at(base, call.*offset)));
  return alignment;
}

}  // namespace

struct GemmStep::Descriptors {
  cublasLtMatmulDesc_t matmul = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;  // C shares d

  Descriptors() = default;
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
  ~Descriptors() {
    for (cublasLtMatrixLayout_t layout : {a, b, d})
      if (layout != nullptr) cublasLtMatrixLayoutDestroy(layout);
    if (matmul != nullptr) cublasLtMatmulDescDestroy(matmul);
  }

  static void create_layout(cublasLtMatrixLayout_t& layout, const LtLayout& shape, int batch) {
    check_cublas(cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, shape.rows, shape.cols, shape.ld),
                 "cublasLtMatrixLayoutCreate");
    if (batch == 1) return;
    set_layout_attribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, int32_t{batch});
    set_layout_attribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, shape.batch_stride);
  }

  void create(const GemmConfig& config, MathMode math, void* bias) {
    cublasComputeType_t compute = math == MathMode::strict ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32;
    check_cublas(cublasLtMatmulDescCreate(&matmul, compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
    set_matmul_attribute(matmul, CUBLASLT_MATMUL_DESC_TRANSA, int32_t{operation(config.transpose_a)});
    set_matmul_attribute(matmul, CUBLASLT_MATMUL_DESC_TRANSB, int32_t{operation(config.transpose_b)});
    set_matmul_attribute(matmul, CUBLASLT_MATMUL_DESC_EPILOGUE, uint32_t{epilogue_of(config)});
    if (bias != nullptr) {
      set_matmul_attribute(matmul, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias);
      set_matmul_attribute(matmul, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, int64_t{0});  // one bias for every batch
    }
    create_layout(a, config.layout_a, config.batch);
    create_layout(b, config.layout_b, config.batch);
    create_layout(d, config.layout_d, config.batch);
  }
};

GemmStep::GemmStep(cublasLtHandle_t handle, const GemmConfig& config, MathMode math, const GemmPointers& pointers,
                   const DeviceBuffer& workspace)
    : handle_(handle),
      config_(config),
      math_(math),
      pointers_(pointers),
      workspace_(workspace),
      descriptors_(std::make_unique<Descriptors>()) {
  descriptors_->create(config_, math_, pointers_.bias);
}

GemmStep::~GemmStep() = default;

uint32_t GemmStep::alignment(char operand) const {
  const std::vector<GemmCallOffsets>& calls = config_.calls;
  switch (operand) {
    case 'a':
      return alignment_over_calls(pointers_.a, calls, &GemmCallOffsets::a);
    case 'b':
      return alignment_over_calls(pointers_.b, calls, &GemmCallOffsets::b);
    case 'c':
      return alignment_over_calls(pointers_.c, calls, &GemmCallOffsets::d);
    default:
      return alignment_over_calls(pointers_.d, calls, &GemmCallOffsets::d);
  }
}

std::string GemmStep::search_key() const {
  return fmt::format("{} {} align {} {} {} {}", config_.key(), to_string(math_), alignment('a'), alignment('b'),
                     alignment('c'), alignment('d'));
}

// One cuBLASLt call per entry of config_.calls (one call at the operands' starts when it is empty).
cublasStatus_t GemmStep::matmul(const cublasLtMatmulAlgo_t& algo, void* workspace, int64_t bytes, cudaStream_t stream) {
  const Descriptors& d = *descriptors_;
  static const std::vector<GemmCallOffsets> kOneCall{GemmCallOffsets{}};
  for (const GemmCallOffsets& call : config_.calls.empty() ? kOneCall : config_.calls) {
    cublasStatus_t status =
        cublasLtMatmul(handle_, d.matmul, &config_.alpha, at(pointers_.a, call.a), d.a, at(pointers_.b, call.b), d.b,
                       &config_.beta, at(pointers_.c, call.d), d.d, at(pointers_.d, call.d), d.d, &algo, workspace,
                       static_cast<size_t>(bytes), stream);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
  }
  return CUBLAS_STATUS_SUCCESS;
}

// The candidate's mean milliseconds over `runs`, or infinity when cuBLASLt refuses to run it.
float GemmStep::time_candidate(const cublasLtMatmulHeuristicResult_t& candidate, cudaStream_t stream, void* workspace,
                               int64_t bytes, int runs) {
  if (matmul(candidate.algo, workspace, bytes, stream) != CUBLAS_STATUS_SUCCESS)
    return std::numeric_limits<float>::infinity();
  return mean_enqueued_ms(stream, 0, runs, [&] {
    check_cublas(matmul(candidate.algo, workspace, bytes, stream), "cublasLtMatmul (timing a candidate)");
  });
}

std::optional<cublasLtMatmulHeuristicResult_t> GemmStep::split_k(const cublasLtMatmulAlgo_t& base, int32_t splits,
                                                                 int64_t bytes) const {
  if (algo_attribute<int32_t>(cublasLtMatmulAlgoCapGetAttribute, base, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) == 0)
    return std::nullopt;
  if (algo_attribute<int32_t>(cublasLtMatmulAlgoConfigGetAttribute, base, CUBLASLT_ALGO_CONFIG_SPLITK_NUM) > 1)
    return std::nullopt;  // split already
  uint32_t scheme = reduction_scheme(base);
  if (scheme == CUBLASLT_REDUCTION_SCHEME_NONE) return std::nullopt;
  cublasLtMatmulHeuristicResult_t result{};
  result.algo = base;
  if (cublasLtMatmulAlgoConfigSetAttribute(&result.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof splits) !=
          CUBLAS_STATUS_SUCCESS ||
      cublasLtMatmulAlgoConfigSetAttribute(&result.algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme,
                                           sizeof scheme) != CUBLAS_STATUS_SUCCESS)
    return std::nullopt;
  const Descriptors& d = *descriptors_;
  cublasLtMatmulHeuristicResult_t checked{};
  if (cublasLtMatmulAlgoCheck(handle_, d.matmul, d.a, d.b, d.d, d.d, &result.algo, &checked) != CUBLAS_STATUS_SUCCESS ||
      static_cast<int64_t>(checked.workspaceSize) > bytes)
    return std::nullopt;
  result.workspaceSize = checked.workspaceSize;
  result.state = CUBLAS_STATUS_SUCCESS;
  return result;
}

GemmChoice GemmStep::find_algorithm(cudaStream_t stream, void* workspace, int64_t bytes, const GemmSearch& search) {
  cublasLtMatmulPreference_t preference = nullptr;
  check_cublas(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, decltype(&cublasLtMatmulPreferenceDestroy)> owner(
      preference, cublasLtMatmulPreferenceDestroy);
  set_preference(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, static_cast<uint64_t>(bytes));
  set_preference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment('a'));
  set_preference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment('b'));
  set_preference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment('c'));
  set_preference(preference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment('d'));
  int asked = std::max(search.candidates, search.split_bases);
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<size_t>(asked));
  int returned = 0;
  const Descriptors& d = *descriptors_;
  check_cublas(cublasLtMatmulAlgoGetHeuristic(handle_, d.matmul, d.a, d.b, d.d, d.d, preference, asked,
                                              results.data(), &returned),
               fmt::format("cublasLtMatmulAlgoGetHeuristic ({})", config_.key()));
  GemmChoice best;
  best.ms = std::numeric_limits<float>::infinity();
  int tried = 0;
  auto time = [&](const cublasLtMatmulHeuristicResult_t& candidate, int32_t splits) {
    float ms = time_candidate(candidate, stream, workspace, bytes, search.runs);
    if (ms < best.ms) best = {candidate.algo, static_cast<int64_t>(candidate.workspaceSize), ms, tried, 0, splits};
    ++tried;
  };
  for (int i = 0; i < std::min(returned, search.candidates); ++i)
    if (results[static_cast<size_t>(i)].state == CUBLAS_STATUS_SUCCESS) time(results[static_cast<size_t>(i)], 1);
  for (int i = 0; i < std::min(returned, search.split_bases); ++i) {
    const cublasLtMatmulHeuristicResult_t& base = results[static_cast<size_t>(i)];
    if (base.state != CUBLAS_STATUS_SUCCESS) continue;
    for (int32_t splits : kSplits) {
      if (config_.k / splits < kLeastSplitDepth) break;
      if (std::optional<cublasLtMatmulHeuristicResult_t> split = split_k(base.algo, splits, bytes)) time(*split, splits);
    }
  }
  best.candidates = tried;
  if (best.ms == std::numeric_limits<float>::infinity())
    throw CudaFailure({CudaOutcome::failed, fmt::format("cublasLtMatmul: none of the heuristic's {} algorithms runs {}",
                                                        returned, config_.key())});
  return best;
}

void GemmStep::run(cudaStream_t stream, void* workspace) {
  check_cublas(matmul(choice_.algo, workspace, choice_.workspace_bytes, stream), "cublasLtMatmul");
}

void GemmStep::enqueue(cudaStream_t stream) {
  PET_CHECK(choice_.workspace_bytes <= workspace_.bytes(), "a GEMM's workspace outgrew the shared one");
  run(stream, workspace_.data());
}

std::string GemmStep::describe() const {
  std::string calls = config_.calls.empty() ? "" : fmt::format(" x {} calls", config_.calls.size());
  std::string split = choice_.splits > 1 ? fmt::format(", K split {} ways", choice_.splits) : "";
  return fmt::format(
      "cuBLASLt m {} n {} k {} batch {}{}, epilogue {}, {}, candidate {} of {}{} ({:.3f} ms), workspace {} B",
      config_.m, config_.n, config_.k, config_.batch, calls, epilogue_name(epilogue_of(config_)),
      math_ == MathMode::strict ? "CUBLAS_COMPUTE_32F" : "CUBLAS_COMPUTE_32F_FAST_TF32", choice_.rank + 1,
      choice_.candidates, split, choice_.ms, choice_.workspace_bytes);
}

}  // namespace pet::gpu
