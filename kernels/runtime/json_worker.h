// A runtime behind a worker process that answers one JSON line per request line: the protocol of
// kernels/runtime/ort_worker.py (ONNX Runtime) and of `pet-gpu worker` (kernels/runtime/worker_server.h).
//
//   {"version": true}                                  -> {"ok": true, "version": "...", ...}
//   {"models": [PATH...], "threads": T, "warmup": W, "runs": R, "per_node": B, "seed": S}
//                                                      -> {"ok": true, "timings": [{"runs_us": [...],
//                                                          "nodes": [{"name", "op", "kernel", "us"}]}]}
//   {"run": {"model": PATH, "threads": T, "inputs": [WIRE...]}}
//                                                      -> {"ok": true, "outputs": [WIRE...]}
//   a refusal                                          -> {"ok": false, "index": I, "error": "...",
//                                                          "others": [{"index": J, "error": "..."}]}
//
// A refusal with index >= 0 is that model's (ModelRejected), "others" (optional) the other models
// refused in the same pass; index -1 is a failure of the worker or its runtime (InternalError).
// Tensors travel as kernels/runtime/tensor_wire.h writes them.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/temporary_folder.h"
#include "kernels/runtime/runtime.h"

namespace pet::runtime {

// Which worker to start and how its failures read.
struct WorkerSpec {
  std::string target;                // Runtime::target(): "ort-cpu", "pet-gpu"
  std::vector<std::string> command;  // the program (looked up on PATH without a '/') and its arguments
  std::string name;                  // in messages: "ONNX Runtime", "pet-gpu"
  std::string folder_prefix;         // of the private folder the models are written to: "pet-ort"
  // The UserError for a worker that cannot start or does not answer its version request.
  std::function<UserError(const std::string& reason)> unavailable;
  // Appended to a refused model's message, from the worker's error (may be empty).
  std::function<std::string(const std::string& error)> refusal_hint;
  // How models are best written for the worker's runtime (Runtime::export_options).
  ExportOptions form;
};

class WorkerProcess;

class JsonWorkerRuntime : public Runtime {
 public:
  // Starts the worker and asks its version: spec.unavailable(reason) when it cannot.
  explicit JsonWorkerRuntime(WorkerSpec spec);
  ~JsonWorkerRuntime() override;

  std::string target() const override { return spec_.target; }
  std::string version() const override { return version_; }
  std::vector<Timing> time_models(const std::vector<ModelBytes>& models, const TimingOptions& options) override;
  std::vector<Tensor> run_model(const std::string& model, const std::vector<Tensor>& inputs, int threads) override;
  ExportOptions export_options() const override { return spec_.form; }

 protected:
  // The worker's answer to the version request, with whatever it says besides the version.
  const nlohmann::json& version_reply() const { return version_reply_; }

 private:
  std::filesystem::path stderr_path() const;
  std::string unanswered_reason(const nlohmann::json& reply) const;
  [[noreturn]] void fail_worker(const std::string& what) const;
  // The refusal `reply` says: ModelRejected naming every model it refuses, or the worker's failure.
  [[noreturn]] void reject(const nlohmann::json& reply) const;
  nlohmann::json exchange(const nlohmann::json& request);

  WorkerSpec spec_;
  TemporaryFolder dir_;  // declared before the worker: removed after it has stopped
  std::unique_ptr<WorkerProcess> worker_;
  nlohmann::json version_reply_;
  std::string version_;
  std::mutex mutex_;  // one request at a time on the worker's pipes
};

}  // namespace pet::runtime
