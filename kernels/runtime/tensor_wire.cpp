// Base64 and the dtype names numpy and pet share, for tensors crossing the worker's pipe.
#include "kernels/runtime/tensor_wire.h"

#include <array>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"

namespace pet::runtime {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::array<int, 256> decoding_table() {
  std::array<int, 256> table;
  table.fill(-1);
  for (int i = 0; i < 64; ++i) table[static_cast<unsigned char>(kAlphabet[i])] = i;
  return table;
}

// pet's element types and numpy's dtype names; numpy has no bfloat16, so "bfloat16" travels as the
// raw 16 bits of each element and the worker hands them to ONNX Runtime with that element type.
constexpr std::pair<DType, std::string_view> kNumpyNames[] = {
    {DType::f32, "float32"}, {DType::i64, "int64"},   {DType::boolean, "bool"}, {DType::f64, "float64"},
    {DType::bf16, "bfloat16"}, {DType::i8, "int8"},   {DType::u8, "uint8"},     {DType::i16, "int16"},
    {DType::u16, "uint16"},  {DType::i32, "int32"},   {DType::u32, "uint32"},   {DType::u64, "uint64"}};

std::string wire_dtype(DType dtype) {
  for (const auto& [type, numpy_name] : kNumpyNames)
    if (type == dtype) return std::string(numpy_name);
  throw InternalError(fmt::format("tensors of type {} cannot be sent to a runtime", dtype_name(dtype)));
}

DType dtype_from_wire(const std::string& name) {
  for (const auto& [type, numpy_name] : kNumpyNames)
    if (numpy_name == name) return type;
  throw InternalError(fmt::format("the runtime answered a tensor of dtype '{}', which pet cannot hold", name));
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t group = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) group |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) group |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
    text += kAlphabet[(group >> 18) & 63];
    text += kAlphabet[(group >> 12) & 63];
    text += i + 1 < bytes.size() ? kAlphabet[(group >> 6) & 63] : '=';
    text += i + 2 < bytes.size() ? kAlphabet[group & 63] : '=';
  }
  return text;
}

std::string base64_decode(std::string_view text) {
  static const std::array<int, 256> table = decoding_table();
  if (text.size() % 4 != 0) throw InternalError(fmt::format("base64 text of length {} is not whole groups", text.size()));
  std::string bytes;
  bytes.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    int padding = (text[i + 3] == '=') + (text[i + 2] == '=');
    bool last = i + 4 == text.size();
    uint32_t group = 0;
    for (size_t j = 0; j < 4; ++j) {
      int value = j >= 4 - static_cast<size_t>(padding) ? 0 : table[static_cast<unsigned char>(text[i + j])];
      if (value < 0 || (padding > 0 && !last)) throw InternalError("base64 text holds a character outside its alphabet");
      group = (group << 6) | static_cast<uint32_t>(value);
    }
    bytes += static_cast<char>((group >> 16) & 255);
    if (padding < 2) bytes += static_cast<char>((group >> 8) & 255);
    if (padding < 1) bytes += static_cast<char>(group & 255);
  }
  return bytes;
}

nlohmann::json tensor_to_wire(const Tensor& tensor) {
  std::string_view bytes(reinterpret_cast<const char*>(tensor.raw()), tensor.nbytes());
  return {{"dtype", wire_dtype(tensor.dtype())}, {"shape", tensor.shape().dims()}, {"data", base64_encode(bytes)}};
}

Tensor tensor_from_wire(const nlohmann::json& wire) {
  DType dtype = dtype_from_wire(wire.at("dtype").get<std::string>());
  Tensor tensor(dtype, Shape(wire.at("shape").get<std::vector<int64_t>>()));
  std::string bytes = base64_decode(wire.at("data").get<std::string>());
  if (bytes.size() != tensor.nbytes())
    throw InternalError(fmt::format("the runtime answered {} bytes for a {} tensor of {} bytes", bytes.size(),
                                    tensor.type().to_string(), tensor.nbytes()));
  if (!bytes.empty()) std::memcpy(tensor.mutable_raw(), bytes.data(), bytes.size());
  return tensor;
}

}  // namespace pet::runtime
