// TensorProto <-> Tensor: raw_data, typed fields and external data files.
#include "core/onnx_tensor.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "core/error.h"
#include "core/file_safety.h"
#include "core/float16.h"

namespace pet {

// The type's name, or its number for types newer than the linked ONNX library (float8, int4...).
static std::string onnx_type_label(int elem_type) {
  std::string name = onnx::TensorProto_DataType_Name(elem_type);
  return name.empty() ? fmt::format("number {}", elem_type) : name;
}

std::optional<DType> dtype_of_onnx(int elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT: return DType::f32;
    case onnx::TensorProto::INT64: return DType::i64;
    case onnx::TensorProto::BOOL: return DType::boolean;
    case onnx::TensorProto::DOUBLE: return DType::f64;
    case onnx::TensorProto::BFLOAT16: return DType::bf16;
    case onnx::TensorProto::INT8: return DType::i8;
    case onnx::TensorProto::UINT8: return DType::u8;
    case onnx::TensorProto::INT16: return DType::i16;
    case onnx::TensorProto::UINT16: return DType::u16;
    case onnx::TensorProto::INT32: return DType::i32;
    case onnx::TensorProto::UINT32: return DType::u32;
    case onnx::TensorProto::UINT64: return DType::u64;
    default: return std::nullopt;
  }
}

int onnx_elem_type(DType type) {
  switch (type) {
    case DType::f32: return onnx::TensorProto::FLOAT;
    case DType::i64: return onnx::TensorProto::INT64;
    case DType::boolean: return onnx::TensorProto::BOOL;
    case DType::f64: return onnx::TensorProto::DOUBLE;
    case DType::bf16: return onnx::TensorProto::BFLOAT16;
    case DType::i8: return onnx::TensorProto::INT8;
    case DType::u8: return onnx::TensorProto::UINT8;
    case DType::i16: return onnx::TensorProto::INT16;
    case DType::u16: return onnx::TensorProto::UINT16;
    case DType::i32: return onnx::TensorProto::INT32;
    case DType::u32: return onnx::TensorProto::UINT32;
    case DType::u64: return onnx::TensorProto::UINT64;
  }
  __builtin_unreachable();
}

DType dtype_from_onnx(int elem_type, const std::string& what) {
  if (std::optional<DType> type = dtype_of_onnx(elem_type)) return *type;
  std::string why = elem_type == onnx::TensorProto::STRING ? " (no arithmetic is defined on strings)" : "";
  throw UserError(fmt::format("{} has element type {}{}; pet supports float32, float16, bfloat16, double, int8 to "
                              "int64, uint8 to uint64 and bool",
                              what, onnx_type_label(elem_type), why));
}

// The location, offset and length entries of an external tensor; offset 0 and length -1 when absent.
struct ExternalData {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
};

static ExternalData external_data_entries(const onnx::TensorProto& proto, const std::string& what) {
  ExternalData data;
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == "location") data.location = entry.value();
    if (entry.key() == "offset") data.offset = parse_external_size(entry.value(), "offset", what);
    if (entry.key() == "length") data.length = parse_external_size(entry.value(), "length", what);
  }
  return data;
}

// The bytes of an external tensor, read only from inside `base_dir`'s tree (contained_data_file).
static std::string read_external_data(const onnx::TensorProto& proto, const std::string& base_dir,
                                      const std::string& what, int64_t expected) {
  ExternalData data = external_data_entries(proto, what);
  std::filesystem::path file = contained_data_file(base_dir, data.location, what);
  int64_t length = data.length >= 0 ? data.length : expected;
  if (length != expected)
    throw UserError(fmt::format("{} declares {} bytes of external data in '{}' but its shape needs {}; fix the "
                                "'length' entry or re-export the model",
                                what, length, data.location, expected));
  return read_file_range(file.string(), data.offset, length, what);
}

// The tensor's size in bytes, checked for overflow before anything is allocated.
static int64_t checked_nbytes(DType dtype, const std::vector<int64_t>& dims, const std::string& what) {
  int64_t bytes = static_cast<int64_t>(dtype_size(dtype));
  for (int64_t d : dims) {
    if (d < 0) throw UserError(fmt::format("{} has a negative dimension", what));
    if (__builtin_mul_overflow(bytes, d, &bytes))
      throw UserError(fmt::format("{} has the shape [{}], too large to hold in memory; fix the model's dims", what,
                                  fmt::join(dims, ",")));
  }
  return bytes;
}

// Every tensor proto a graph stores (initializers, node attributes, subgraphs), with what names it.
static void collect_tensors(const onnx::GraphProto& graph,
                            std::vector<std::pair<const onnx::TensorProto*, std::string>>& tensors) {
  for (const auto& init : graph.initializer()) tensors.emplace_back(&init, "initializer '" + init.name() + "'");
  for (const auto& sparse : graph.sparse_initializer()) {
    tensors.emplace_back(&sparse.values(), "sparse initializer '" + sparse.values().name() + "'");
    tensors.emplace_back(&sparse.indices(), "indices of sparse initializer '" + sparse.values().name() + "'");
  }
  for (int n = 0; n < graph.node_size(); ++n) {
    const onnx::NodeProto& node = graph.node(n);
    std::string node_name = node.name().empty() ? fmt::format("{}_{}", node.op_type(), n) : node.name();
    for (const auto& attr : node.attribute()) {
      std::string what = fmt::format("attribute '{}' of node '{}'", attr.name(), node_name);
      if (attr.has_t()) tensors.emplace_back(&attr.t(), what);
      for (const auto& tensor : attr.tensors()) tensors.emplace_back(&tensor, what);
      if (attr.has_g()) collect_tensors(attr.g(), tensors);
      for (const auto& subgraph : attr.graphs()) collect_tensors(subgraph, tensors);
    }
  }
}

std::vector<std::string> external_data_files(const onnx::ModelProto& model, const std::string& base_dir) {
  std::vector<std::pair<const onnx::TensorProto*, std::string>> tensors;
  collect_tensors(model.graph(), tensors);
  std::vector<std::string> files;
  for (const auto& [tensor, what] : tensors) {
    if (tensor->data_location() != onnx::TensorProto::EXTERNAL) continue;
    ExternalData data = external_data_entries(*tensor, what);
    std::string file = contained_data_file(base_dir, data.location, what).string();
    if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
  }
  return files;
}

template <typename Field>
static void copy_field(const Field& field, Tensor& tensor, const std::string& what) {
  if (static_cast<int64_t>(field.size()) != tensor.numel())
    throw UserError(fmt::format("{} holds {} values but its shape {} needs {}", what, field.size(),
                                tensor.shape().to_string(), tensor.numel()));
  visit_dtype(tensor.dtype(), [&]<DType D>() {
    auto values = tensor.mutable_view<D>();
    for (int i = 0; i < field.size(); ++i) {
      auto at = static_cast<size_t>(i);
      if constexpr (D == DType::boolean) values[at] = field[i] != 0;
      else if constexpr (D == DType::bf16) values[at] = BFloat16{static_cast<uint16_t>(field[i])};  // the bits
      else values[at] = static_cast<storage_t<D>>(field[i]);
    }
  });
}

// A float16 tensor as the f32 tensor pet computes with. Its 2-byte payload (raw or external) is
// read through the byte-typed path below, so every data and external-data rule applies unchanged;
// int32_data holds one value per entry.
static Tensor float16_tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir,
                                        const std::string& what) {
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  checked_nbytes(DType::f32, dims, what);
  require_allocatable({DType::f32, Shape(dims)}, what, "the model is too large for this machine");
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
  int64_t nbytes = checked_nbytes(dtype, dims, what);
  require_allocatable({dtype, Shape(dims)}, what, "the model is too large for this machine");
  bool external = proto.data_location() == onnx::TensorProto::EXTERNAL;
  if (external || proto.has_raw_data()) {
    std::string external_bytes = external ? read_external_data(proto, base_dir, what, nbytes) : std::string();
    const std::string& bytes = external ? external_bytes : proto.raw_data();  // raw data read in place, not copied
    if (static_cast<int64_t>(bytes.size()) != nbytes)
      throw UserError(fmt::format("{} has {} bytes of data but shape {} needs {}; the file may be truncated", what,
                                  bytes.size(), Shape(dims).to_string(), nbytes));
    Tensor tensor(dtype, Shape(dims));
    if (!bytes.empty()) std::memcpy(tensor.mutable_raw(), bytes.data(), bytes.size());
    return tensor;
  }
  int64_t typed_values = proto.float_data_size() + proto.int32_data_size() + proto.int64_data_size() +
                         proto.double_data_size() + proto.uint64_data_size();
  if (nbytes / static_cast<int64_t>(dtype_size(dtype)) > typed_values)  // checked before the shape is allocated
    throw UserError(fmt::format("{} holds {} values but its shape {} needs {}", what, typed_values,
                                Shape(dims).to_string(), nbytes / static_cast<int64_t>(dtype_size(dtype))));
  Tensor tensor(dtype, Shape(dims));
  if (tensor.numel() == 0) return tensor;
  switch (dtype) {  // where ONNX keeps each type's typed values
    case DType::f32: copy_field(proto.float_data(), tensor, what); break;
    case DType::f64: copy_field(proto.double_data(), tensor, what); break;
    case DType::i64: copy_field(proto.int64_data(), tensor, what); break;
    case DType::u32:
    case DType::u64: copy_field(proto.uint64_data(), tensor, what); break;
    case DType::boolean:
    case DType::bf16:
    case DType::i8:
    case DType::u8:
    case DType::i16:
    case DType::u16:
    case DType::i32: copy_field(proto.int32_data(), tensor, what); break;
  }
  return tensor;
}

void tensor_shape_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto& proto) {
  proto.Clear();
  proto.set_name(name);
  for (int64_t d : tensor.shape().dims()) proto.add_dims(d);
  proto.set_data_type(onnx_elem_type(tensor.dtype()));
}

void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto& proto) {
  tensor_shape_to_proto(tensor, name, proto);
  proto.set_raw_data(reinterpret_cast<const char*>(tensor.raw()), tensor.nbytes());
}

Tensor as_stored_bfloat16(const Tensor& tensor, DType wanted) {
  if (wanted != DType::bf16 || tensor.dtype() != DType::u16) return tensor;
  Tensor bits(DType::bf16, tensor.shape());
  if (tensor.nbytes() > 0) std::memcpy(bits.mutable_raw(), tensor.raw(), tensor.nbytes());
  return bits;
}

Tensor read_tensor_file(const std::string& path, std::string* name) {
  std::string bytes = read_whole_file(path, "tensor file");
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) throw UserError(fmt::format("'{}' is not a serialized ONNX TensorProto", path));
  if (name) *name = proto.name();
  return tensor_from_proto(proto, std::filesystem::path(path).parent_path().string(), "tensor file '" + path + "'");
}

void write_tensor_file(const std::string& path, const Tensor& tensor, const std::string& name) {
  onnx::TensorProto proto;
  tensor_to_proto(tensor, name, proto);
  write_file_atomically(path, proto.SerializeAsString(), "tensor file");
}

}  // namespace pet
