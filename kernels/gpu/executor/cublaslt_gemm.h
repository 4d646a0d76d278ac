// A cublaslt_gemm step on cuBLASLt: the matmul and layout descriptors of its GemmConfig (strided
// batches, transposes, the BIAS / RELU / RELU_BIAS epilogues), the heuristic's top candidates timed
// once on the step's own buffers and the fastest kept.
#pragma once

#include <cublasLt.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "kernels/gpu/executor/device_memory.h"
#include "kernels/gpu/executor/gemm_config.h"
#include "kernels/gpu/executor/math_mode.h"
#include "kernels/gpu/executor/step_runner.h"

namespace pet::gpu {

// Device addresses of a GEMM step's operands in cuBLASLt's naming (a: the node's B, b: the node's
// A); c is d when the step reads no C; bias nullptr when none (else the expanded per-column bias).
struct GemmPointers {
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
  void* d = nullptr;
  void* bias = nullptr;
};

struct GemmChoice {
  cublasLtMatmulAlgo_t algo{};
  int64_t workspace_bytes = 0;
  float ms = 0;        // the candidate's mean time in the search
  int rank = 0;        // its place in the order timed (0: the heuristic's first choice; split ones after its own)
  int candidates = 0;  // how many were timed
  int32_t splits = 1;  // the ways its K is split (1: not split)
};

class GemmStep : public StepRunner {
 public:
  GemmStep(cublasLtHandle_t handle, const GemmConfig& config, MathMode math, const GemmPointers& pointers,
           const DeviceBuffer& workspace);
  GemmStep(const GemmStep&) = delete;
  GemmStep& operator=(const GemmStep&) = delete;
  ~GemmStep() override;

  // The cache key of the search: the config's, the math mode and the operands' alignments (which
  // filter the heuristic's algorithms).
  std::string search_key() const;
  // The heuristic's first `search.candidates` algorithms within `bytes` of workspace, and its first
  // `search.split_bases` with K split 2 to 16 ways (each slice at least 256 deep) where cuBLASLt can
  // split them, each run once and then `search.runs` times between events on `stream`; the fastest.
  // CudaFailure when none runs.
  GemmChoice find_algorithm(cudaStream_t stream, void* workspace, int64_t bytes, const GemmSearch& search);
  void use(const GemmChoice& choice) { choice_ = choice; }
  // The chosen algorithm on `stream` with `workspace` (at least workspace_bytes()) in place of the
  // shared one, which the load sizes only after every step has chosen.
  void run(cudaStream_t stream, void* workspace);

  void enqueue(cudaStream_t stream) override;
  std::string describe() const override;
  int64_t workspace_bytes() const override { return choice_.workspace_bytes; }

 private:
  struct Descriptors;
  cublasStatus_t matmul(const cublasLtMatmulAlgo_t& algo, void* workspace, int64_t bytes, cudaStream_t stream);
  // The alignment of operand 'a', 'b', 'c' or 'd' that every call's address keeps.
  uint32_t alignment(char operand) const;
  float time_candidate(const cublasLtMatmulHeuristicResult_t& candidate, cudaStream_t stream, void* workspace,
                       int64_t bytes, int runs);
  // `base` with its K split `splits` ways as cuBLASLt checks it for this product, within `bytes` of
  // workspace; none where the algorithm cannot split, is split already, or fails the check.
  std::optional<cublasLtMatmulHeuristicResult_t> split_k(const cublasLtMatmulAlgo_t& base, int32_t splits,
                                                         int64_t bytes) const;

  cublasLtHandle_t handle_;
  GemmConfig config_;
  MathMode math_;
  GemmPointers pointers_;
  const DeviceBuffer& workspace_;
  std::unique_ptr<Descriptors> descriptors_;
  GemmChoice choice_;
};

}  // namespace pet::gpu
