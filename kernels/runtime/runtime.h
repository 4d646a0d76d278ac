// A target runtime pet measures in: serialized ONNX models in, end-to-end and per-node times out.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/default_seed.h"
#include "core/error.h"
#include "core/graph.h"
#include "core/onnx_export.h"
#include "core/tensor.h"
#include "kernels/runtime/shared_device.h"

namespace pet::runtime {

// A model for a runtime to time: serialized ONNX with every weight inside (no external data), either
// held as its bytes or written from its graph when the runtime reads it, so a caller timing whole
// models (hundreds of MB each) holds none of their bytes: a runtime whose worker reads files streams
// each straight into its file (write), one that reads memory serializes one at a time (with_bytes).
// Copies share what they hold.
class ModelBytes {
 public:
  ModelBytes(std::string bytes);  // NOLINT(google-explicit-constructor): bytes are a model's usual form
  // `graph` written with `options` whenever its bytes are asked for; the caller keeps the graph alive
  // as long as this (or a copy) is used.
  static ModelBytes written_from(const Graph& graph, const ExportOptions& options);

  // use(bytes), without a copy of held bytes; what it returns is returned by value (bytes serialized
  // for the call are freed when it returns).
  template <typename Use>
  auto with_bytes(const Use& use) const {
    if (held_) return use(*held_);
    const std::string serialized = serialize_onnx(*graph_, options_);
    return use(serialized);
  }
  // Streams the bytes to `fd`: 0, or the errno that stopped the writing.
  int write(int fd) const;
  // True for bytes held, false for a model written from its graph when read.
  bool holds_bytes() const { return held_ != nullptr; }

 private:
  ModelBytes() = default;
  std::shared_ptr<const std::string> held_;
  const Graph* graph_ = nullptr;
  ExportOptions options_;
};

// A model the runtime refuses to load, compile or run: the model's problem (or the runtime's
// bug), never pet's. A UserError that names the model's index among those given, so a caller
// timing several candidates can drop that one and time the others; a runtime that found more
// refusals in the same pass names them too (`others`, each an index and its message), so the
// caller drops them all at once rather than one retry each.
class ModelRejected : public UserError {
 public:
  struct Refusal {
    size_t index;
    std::string message;
  };
  ModelRejected(size_t index, const std::string& message, std::vector<Refusal> others = {})
      : UserError(message), index_(index), others_(std::move(others)) {}
  // The refusals of one pass (at least one) as one exception: the first, the rest its others.
  static ModelRejected of(std::vector<Refusal> refusals) {
    Refusal first = std::move(refusals.at(0));
    refusals.erase(refusals.begin());
    return ModelRejected(first.index, first.message, std::move(refusals));
  }
  size_t index() const { return index_; }
  const std::vector<Refusal>& others() const { return others_; }

 private:
  size_t index_;
  std::vector<Refusal> others_;
};

// make(i) for every i in [0, count), or one ModelRejected naming every i whose make refused: how a
// runtime prepares or loads the models of one request.
template <typename Made, typename Make>
std::vector<Made> each_or_refusals(size_t count, const Make& make) {
  std::vector<Made> made;
  std::vector<ModelRejected::Refusal> refusals;
  for (size_t i = 0; i < count; ++i) {
    try {
      made.push_back(make(i));
    } catch (const ModelRejected& refused) {
      refusals.push_back({refused.index(), refused.what()});
    }
  }
  if (!refusals.empty()) throw ModelRejected::of(std::move(refusals));
  return made;
}

// Whether the first model of a timing is the reference the others are timed beside.
enum class FirstModel {
  reference,        // its refusal is the caller's error (the input, the cleaned input): rethrown
  like_the_others,  // refused like any other (kernel groups, one graph to calibrate on)
};

// What a timing's results are for, named by the code that asks: its kind ("kernel-groups",
// "in-context", "ranked", "selection"), the profile DB keys they fill (one per model, or one for the
// whole request), and how a refusal of the first model is treated. Runtimes that time ignore it; a
// runtime that records requests instead (RecordingRuntime) writes it down, so whoever times them
// elsewhere can turn the results into the same DB entries.
struct TimingPurpose {
  std::string kind;
  std::vector<std::string> keys;
  FirstModel first = FirstModel::like_the_others;
};

struct TimingOptions {
  int threads = 1;        // the runtime's intra-op threads (what the model is optimized for)
  int warmup = 3;         // untimed runs of each model before the timed rounds
  int runs = 10;          // timed rounds; round r runs every model once, in order (interleaved)
  bool per_node = false;  // also collect the runtime's own profiler's per-node times
  uint64_t seed = kDefaultSeed;   // random inputs: floats uniform in [-1, 1), integers 0, booleans true
  TimingPurpose purpose;          // what the results fill (for a recording runtime)
};

// One node as the runtime ran it (after its own graph rewrites and fusions).
struct NodeTime {
  std::string name;         // the runtime's node name
  std::string op;           // ONNX op type, or the runtime's own ("ReorderInput", "Reorder", ...)
  std::string kernel;       // what ran: ORT's provider, OpenVINO's exec_type
  double microseconds = 0;  // median over the timed runs; 0 for a node fused into another
};

// A Timing without runs was not measured: the runtime records requests instead of timing them
// (Runtime::times() is false), and the caller prices the model by its estimate.
struct Timing {
  std::vector<double> runs_us;  // wall clock of each timed run, in microseconds, in run order
  std::vector<NodeTime> nodes;  // in execution order; empty unless TimingOptions::per_node
  bool measured() const { return !runs_us.empty(); }
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual std::string target() const = 0;   // "ort-cpu", "openvino-cpu"
  virtual std::string version() const = 0;  // "onnxruntime 1.32.0", "openvino 2026.4.1-..."
  // Times several models interleaved: each is compiled once, warmed up, then round r runs model
  // 0, 1, ... once each (each model's bytes asked for once, and not kept beyond its load). A model
  // the runtime rejects is a ModelRejected naming its index and the runtime's message; a dead worker
  // or runtime failure is an InternalError.
  virtual std::vector<Timing> time_models(const std::vector<ModelBytes>& models, const TimingOptions& options) = 0;
  // Runs one serialized model (every weight inside) once on `inputs`, given in the model's input
  // order, with `threads` intra-op threads, and returns its outputs in the model's output order
  // (tensors of any element type pet holds). A model or input the runtime rejects is a UserError naming the
  // runtime's message; a dead worker or an output pet cannot hold is an InternalError.
  virtual std::vector<Tensor> run_model(const std::string& model, const std::vector<Tensor>& inputs, int threads) = 0;
  // How models are best written for this runtime: with pet's extension ops where it has loaded
  // pet's extension (its own kernel for the fused correction), else standard ops only.
  virtual ExportOptions export_options() const { return {}; }
  // The precision the runtime computes float32 models in when timing them: "f32", or "bf16" where
  // it lowers to the CPU's bf16 units (OpenVINO's default on such CPUs).
  virtual std::string compute_precision() const { return "f32"; }
  // The element type the runtime computes values of `type` in, where it narrows them (OpenVINO's
  // CPU plugin computes f64 in f32 and i64 in i32): a check of its outputs allows that type's error.
  virtual DType computes_in(DType type) const { return type; }
  // False for a runtime that records what it is asked to time instead (RecordingRuntime: a GPU
  // target priced here, timed on a GPU machine later); its Timings have no runs.
  virtual bool times() const { return true; }
  // What the runtime's loads did so far, for a log ("L loads, mean M ms; ..."), where it says.
  virtual std::string activity() const { return {}; }
  // Several processes share this runtime's device (`device`): true where the runtime holds it
  // itself around the device work of each call alone (its loads, runs and timings; reading and
  // preparing the models outside it), false (the default) where the caller must hold it around
  // each whole call.
  virtual bool share_device(const SharedDevice&) { return false; }
};

// The one refusal policy of timing: times `models` interleaved, leaving out each one the runtime
// refuses (ModelRejected) and timing the rest again; refused[i] gets the runtime's message for a
// model left out, whose Timing stays empty. Only a refusal is caught: a dead worker or a runtime
// failure propagates.
std::vector<Timing> time_accepted(Runtime& runtime, const std::vector<ModelBytes>& models,
                                  const TimingOptions& options, std::vector<std::string>& refused,
                                  FirstModel first = FirstModel::reference);

// pet's OpenVINO extension library (kernels/openvino_extension/): $PET_OPENVINO_EXTENSION when set
// (empty: none), else the one built with pet when it exists, else empty.
std::string default_openvino_extension();
// This machine's CPU model ("AMD EPYC 9V74 80-Core Processor"), from /proc/cpuinfo.
std::string cpu_model();
// All cores this process may use (sched_getaffinity), at least 1.
int available_cores();

}  // namespace pet::runtime
