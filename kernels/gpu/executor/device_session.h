// What the loads of one process on one device share, so that a runtime timing thousands of small
// models (pet-gpu measure) pays each piece once: the context (stream and library handles), each own
// kernel's module by its name (equal text, equal name), each algorithm search's result by the
// configuration it searched, and the search buffer. A load given none makes its own, alone.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernels/gpu/codegen/kernel_text.h"
#include "kernels/gpu/executor/cublaslt_gemm.h"
#include "kernels/gpu/executor/cudnn_conv.h"
#include "kernels/gpu/executor/device_context.h"
#include "kernels/gpu/executor/device_memory.h"
#include "kernels/gpu/executor/gpu_model.h"
#include "kernels/gpu/executor/own_kernels.h"

namespace pet::gpu {

// A convolution's graph-API plan, or why the legacy choice stays.
struct EngineChoice {
  std::optional<EnginePlan> plan;  // none when the legacy choice was as fast
  float ms = std::numeric_limits<float>::infinity(), legacy_ms = 0;
  std::string note;  // why the legacy choice stays
};

// Whether a convolution runs on the column path, as timed against cuDNN's choice at load.
struct ColumnChoice {
  bool taken = false;
  float ms = 0, cudnn_ms = 0;
  double disagreement = 0;  // relative L2 between its output and cuDNN's (checked when faster)
  std::string note;         // why it was not taken, when not for its time
};

// The searches' results by key (the loader's keys, which name the settings they depend on).
struct SearchResults {
  std::map<std::string, ConvChoice> conv;
  std::map<std::string, GemmChoice> gemm;
  std::map<std::string, EngineChoice> engine;
  std::map<std::string, ColumnChoice> columns;
};

// What the loads so far did and reused, for the measure stage's log.
struct SessionActivity {
  int64_t loads = 0;
  double load_ms = 0;  // all loads added up
  int64_t kernels_compiled = 0, kernels_reused = 0, kernels_recalled = 0;
  int64_t kernels_ahead = 0;  // of those compiled or recalled, before their load (compile_ahead)
  int64_t searches = 0, searches_reused = 0;  // convolution, engine and GEMM searches together
  // "L loads, mean M ms; own kernels: C compiled, R reused, K from the kernel store (A of these C +
  // K before their loads); algorithm searches: S run, T reused"
  std::string describe() const;
};

// A load's own kernels as the session gave them.
struct SessionKernels {
  std::shared_ptr<LoadedKernels> loaded;
  size_t reused = 0;           // of them, those an earlier load compiled
  size_t recalled = 0;         // of the rest, those another process compiled (the kernel store)
  double compile_wall_ms = 0;  // compiling or reading the rest
};

class DeviceSession {
 public:
  // Nothing touches the device until the first load asks for the context.
  explicit DeviceSession(int device) : device_(device) {}
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;
  ~DeviceSession();

  int device() const { return device_; }
  // The context, created on first use (CudaFailure as DeviceContext's constructor).
  std::shared_ptr<DeviceContext> context();
  // `kernels` loaded into the context: those an earlier load compiled are taken as they are, those
  // compiled ahead loaded, the rest compiled (on `threads` threads) and loaded.
  SessionKernels kernels(const std::vector<codegen::GeneratedKernel>& kernels, unsigned threads);
  // Those of `kernels` that no load and no earlier call compiled, compiled now (or read from the
  // kernel store) for a later load to take: host work, no context, so a worker sharing its GPU does
  // it before it takes the GPU lock. Internal check as compile_kernels for one that does not compile.
  void compile_ahead(const std::vector<codegen::GeneratedKernel>& kernels, unsigned threads);
  size_t compiled_ahead() const { return ahead_.size(); }  // compiled ahead, not yet loaded
  // A buffer of at least `bytes` for the algorithm searches, grown where an earlier one is smaller.
  DeviceBuffer& search_buffer(int64_t bytes);
  SearchResults& searches() { return searches_; }

  // Counts a finished load in the activity.
  void record(const LoadSummary& load);
  const SessionActivity& activity() const { return activity_; }

 private:
  int device_;
  std::shared_ptr<DeviceContext> context_;
  struct AheadKernel {
    std::string cubin;
    bool recalled = false;  // read from the kernel store
  };
  // compile_ahead's work: the names compiled or read by this call, and its wall time.
  struct NewlyCompiled {
    std::set<std::string> names;
    double wall_ms = 0;
  };
  NewlyCompiled compile_missing(const std::vector<codegen::GeneratedKernel>& kernels, unsigned threads);
  std::map<std::string, std::shared_ptr<DriverModule>> modules_;  // by kernel name
  std::map<std::string, AheadKernel> ahead_;                      // by kernel name, compiled, not loaded
  DeviceBuffer search_;
  SearchResults searches_;
  SessionActivity activity_;
};

}  // namespace pet::gpu
