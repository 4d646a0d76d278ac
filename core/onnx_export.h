// Graph -> ONNX: standard ops (or pet's extension ops when asked), the graph's opset kept, checked by the ONNX checker.
#pragma once

#include <cstdint>
#include <string>

#include "core/graph.h"

namespace onnx {
class ModelProto;
}

namespace pet {

// protobuf's limit on one serialized message, so on an ONNX model written as one file with every
// weight inside it: 2 GiB less a byte.
inline constexpr uint64_t kMaxOnnxFileBytes = 2147483647;

struct ExportOptions {
  // Ops with an extension domain (OpDef::extension_domain: pet's fused correction) are written as
  // nodes of that domain, which a runtime with pet's extension runs as one kernel (OpenVINO with
  // libpet_openvino_extension.so); otherwise as their standard-op lowering (portable).
  bool extension_ops = false;
  // ONNX Runtime's contrib ops (OpDef::extension_domain kOnnxRuntimeDomain: the fused Attention)
  // written as themselves, for ONNX Runtime, which runs each as one kernel; otherwise as their
  // standard-op lowering.
  bool onnx_runtime_ops = false;
  // Weights (is_weight: f32 constants of more than kInlineElements elements) written as their shape
  // alone, each with the seed and scale of the noise that stands in for it (those of weight-free
  // text, random(content hash, RMS-keeping scale)) in the model's metadata (kRandomWeightsKey), for a
  // runtime that times models and fills them (import_onnx_bytes with fill_random_weights: pet-gpu
  // worker). Kilobytes where the weights are megabytes; for no other reader, so not checked here.
  bool weight_free = false;
  uint64_t max_bytes = kMaxOnnxFileBytes;  // the largest model written (lower in tests)
};

// The metadata key of a weight-free model's weights: one line each, "<name>\t<seed>\t<scale>".
inline constexpr const char* kRandomWeightsKey = "pet.random_weights";

// The bytes a model written with `options` holds for the graph's constants (a float16 one two bytes
// an element; a weight-free model's weights none): all but a few KB of its nodes.
uint64_t written_constant_bytes(const Graph& graph, const ExportOptions& options = {});
// UserError when a model of `bytes` cannot be written as one ONNX file (pet writes no external data),
// saying so and what to do instead.
void check_writable_size(uint64_t bytes, uint64_t limit = kMaxOnnxFileBytes);

// Builds the model; an exported model that fails the ONNX checker is an InternalError, one over
// options.max_bytes a UserError (check_writable_size).
void export_onnx_proto(const Graph& graph, onnx::ModelProto& model, const ExportOptions& options = {});
// The model as serialized ONNX bytes (every weight inside), as runtimes read it from memory:
// export_onnx_proto's model serialized, with each large constant's values copied once, from the
// graph's tensor into the bytes (never into a proto first).
std::string serialize_onnx(const Graph& graph, const ExportOptions& options = {});
// serialize_onnx's bytes streamed to `fd` through protobuf's FileOutputStream (a 1 MiB buffer), each
// large constant's values from the graph's tensor (no copy of the weights is made); 0 or the errno
// that stopped the writing.
int write_onnx(const Graph& graph, int fd, const ExportOptions& options = {});
// Writes the model to `path` atomically (file_safety.h); UserError when the file cannot be written.
void export_onnx(const Graph& graph, const std::string& path, const ExportOptions& options = {});

}  // namespace pet
