// TensorProto <-> Tensor: raw_data, typed fields and external data files.
#include "core/onnx_tensor.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "core/error.h"
#include "core/float16.h"

namespace pet {

// The type's name, or its number for types newer than the linked ONNX library (float8, int4...).
static std::string onnx_type_label(int elem_type) {
  std::string name = onnx::TensorProto_DataType_Name(elem_type);
  return name.empty() ? fmt::format("number {}", elem_type) : name;
}

DType dtype_from_onnx(int elem_type, const std::string& what) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT: return DType::f32;
    case onnx::TensorProto::INT64: return DType::i64;
    case onnx::TensorProto::BOOL: return DType::boolean;
    default:
      throw UserError(fmt::format("{} has element type {}; pet supports float32, float16, int64 and bool", what,
                                  onnx_type_label(elem_type)));
  }
}

static std::string read_external_data(const onnx::TensorProto& proto, const std::string& base_dir,
                                      const std::string& what, size_t expected) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == "location") location = entry.value();
    if (entry.key() == "offset") offset = std::stoll(entry.value());
    if (entry.key() == "length") length = std::stoll(entry.value());
  }
  std::filesystem::path path = std::filesystem::path(base_dir) / location;
  std::ifstream file(path, std::ios::binary);
  if (location.empty() || !file)
    throw UserError(fmt::format("{} keeps its data in external file '{}', which cannot be read; keep the data "
                                "file next to the model",
                                what, path.string()));
  size_t size = length >= 0 ? static_cast<size_t>(length) : expected;
  std::string bytes(size, '\0');
  file.seekg(offset);
  file.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<size_t>(file.gcount()) != size)
    throw UserError(fmt::format("{}: external file '{}' ends before offset {} + {} bytes; the file is truncated",
                                what, path.string(), offset, size));
  return bytes;
}

template <typename Field>
static void copy_field(const Field& field, Tensor& tensor, const std::string& what) {
  if (static_cast<int64_t>(field.size()) != tensor.numel())
    throw UserError(fmt::format("{} holds {} values but its shape {} needs {}", what, field.size(),
                                tensor.shape().to_string(), tensor.numel()));
  switch (tensor.dtype()) {
    case DType::f32:
      for (int i = 0; i < field.size(); ++i) tensor.mutable_f32()[static_cast<size_t>(i)] = static_cast<float>(field[i]);
      break;
    case DType::i64:
      for (int i = 0; i < field.size(); ++i) tensor.mutable_i64()[static_cast<size_t>(i)] = static_cast<int64_t>(field[i]);
      break;
    case DType::boolean:
      for (int i = 0; i < field.size(); ++i) tensor.mutable_b8()[static_cast<size_t>(i)] = field[i] != 0;
      break;
  }
}

// A float16 tensor as the f32 tensor pet computes with. Its 2-byte payload (raw or external) is
// read through the byte-typed path below, so every data and external-data rule applies unchanged;
// int32_data holds one value per entry.
static Tensor float16_tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir,
                                        const std::string& what) {
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  for (int64_t d : dims)
    if (d < 0) throw UserError(fmt::format("{} has a negative dimension", what));
  Tensor tensor(DType::f32, Shape(dims));
  auto values = tensor.mutable_f32();
  bool in_bytes = proto.data_location() == onnx::TensorProto::EXTERNAL || proto.has_raw_data();
  if (!in_bytes) {
    if (static_cast<int64_t>(proto.int32_data_size()) != tensor.numel())
      throw UserError(fmt::format("{} holds {} values but its shape {} needs {}", what, proto.int32_data_size(),
                                  tensor.shape().to_string(), tensor.numel()));
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = half_bits_to_float(static_cast<uint16_t>(proto.int32_data(static_cast<int>(i))));
    return tensor;
  }
  onnx::TensorProto bytes_view = proto;
  bytes_view.set_data_type(onnx::TensorProto::BOOL);
  bytes_view.clear_dims();
  bytes_view.add_dims(2 * tensor.numel());
  Tensor bytes = tensor_from_proto(bytes_view, base_dir, what);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t half;
    std::memcpy(&half, bytes.raw() + 2 * i, sizeof half);
    values[i] = half_bits_to_float(half);
  }
  return tensor;
}

Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir, const std::string& what) {
  if (proto.data_type() == onnx::TensorProto::FLOAT16) return float16_tensor_from_proto(proto, base_dir, what);
  DType dtype = dtype_from_onnx(proto.data_type(), what);
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  for (int64_t d : dims)
    if (d < 0) throw UserError(fmt::format("{} has a negative dimension", what));
  Tensor tensor(dtype, Shape(dims));
  bool external = proto.data_location() == onnx::TensorProto::EXTERNAL;
  if (external || proto.has_raw_data()) {
    std::string bytes = external ? read_external_data(proto, base_dir, what, tensor.nbytes()) : proto.raw_data();
    if (bytes.size() != tensor.nbytes())
      throw UserError(fmt::format("{} has {} bytes of data but shape {} needs {}; the file may be truncated", what,
                                  bytes.size(), tensor.shape().to_string(), tensor.nbytes()));
    if (!bytes.empty()) std::memcpy(tensor.mutable_raw(), bytes.data(), bytes.size());
    return tensor;
  }
  if (tensor.numel() == 0) return tensor;
  switch (dtype) {
    case DType::f32: copy_field(proto.float_data(), tensor, what); break;
    case DType::i64: copy_field(proto.int64_data(), tensor, what); break;
    case DType::boolean: copy_field(proto.int32_data(), tensor, what); break;
  }
  return tensor;
}

void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto& proto) {
  proto.Clear();
  proto.set_name(name);
  for (int64_t d : tensor.shape().dims()) proto.add_dims(d);
  switch (tensor.dtype()) {
    case DType::f32: proto.set_data_type(onnx::TensorProto::FLOAT); break;
    case DType::i64: proto.set_data_type(onnx::TensorProto::INT64); break;
    case DType::boolean: proto.set_data_type(onnx::TensorProto::BOOL); break;
  }
  proto.set_raw_data(reinterpret_cast<const char*>(tensor.raw()), tensor.nbytes());
}

Tensor read_tensor_file(const std::string& path, std::string* name) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw UserError(fmt::format("cannot open tensor file '{}'", path));
  onnx::TensorProto proto;
  if (!proto.ParseFromIstream(&file))
    throw UserError(fmt::format("'{}' is not a serialized ONNX TensorProto", path));
  if (name) *name = proto.name();
  return tensor_from_proto(proto, std::filesystem::path(path).parent_path().string(), "tensor file '" + path + "'");
}

void write_tensor_file(const std::string& path, const Tensor& tensor, const std::string& name) {
  onnx::TensorProto proto;
  tensor_to_proto(tensor, name, proto);
  std::ofstream file(path, std::ios::binary);
  if (!file || !proto.SerializeToOstream(&file)) throw UserError(fmt::format("cannot write tensor file '{}'", path));
}

}  // namespace pet
