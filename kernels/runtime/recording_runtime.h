// A runtime that times nothing: it records each request the live code makes (the models, weight-
// free, and what the results fill) and answers "not measured", so the caller estimates; the
// requests are written as a misses file for a GPU machine to time (pet-gpu measure).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kernels/runtime/runtime.h"
#include "kernels/runtime/timing_request.h"

namespace pet::runtime {

class RecordingRuntime : public Runtime {
 public:
  // Records requests for `target` ("h100").
  explicit RecordingRuntime(std::string target);
  std::string target() const override { return target_; }
  std::string version() const override { return "not measured here (requests recorded for a GPU machine)"; }
  bool times() const override { return false; }
  // Records the request (once: an identical request again is not recorded twice) and returns one
  // Timing without runs per model.
  std::vector<Timing> time_models(const std::vector<ModelBytes>& models, const TimingOptions& options) override;
  // Nothing runs here: an internal check (callers run models only in runtimes that time).
  std::vector<Tensor> run_model(const std::string& model, const std::vector<Tensor>& inputs, int threads) override;

  const std::vector<TimingRequest>& requests() const { return requests_; }
  // Writes the requests to `path`, one line each, and their models into models_folder(path), one
  // file per distinct model named by its content hash. Replaces what was there.
  void write(const std::string& path) const;

 private:
  // The weight-free model's file name, recorded once per distinct serialized model.
  std::string record_model(const std::string& bytes);

  std::string target_;
  std::vector<TimingRequest> requests_;
  std::map<uint64_t, std::string> file_of_bytes_;    // serialized model's hash -> file name
  std::map<std::string, std::string> text_of_file_;  // file name -> weight-free textual IR
};

}  // namespace pet::runtime
