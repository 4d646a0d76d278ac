// Tensors on the ONNX Runtime worker's JSON lines: numpy dtype name, shape, base64 of raw little-endian bytes.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/tensor.h"

namespace pet::runtime {

std::string base64_encode(std::string_view bytes);
// The decoded bytes; InternalError on characters outside the base64 alphabet or a bad length.
std::string base64_decode(std::string_view text);

// {"dtype": numpy's name ("float32", "uint8", ...; "bfloat16" for bf16's raw bits), "shape": [...],
// "data": base64}, for every element type pet holds.
nlohmann::json tensor_to_wire(const Tensor& tensor);
// The tensor a reply describes; InternalError for another dtype or a byte count that does not fit the shape.
Tensor tensor_from_wire(const nlohmann::json& wire);

}  // namespace pet::runtime
