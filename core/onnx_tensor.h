// Conversion between pet Tensors and ONNX TensorProto files (initializers and test data).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace onnx {
class ModelProto;
class TensorProto;
}

namespace pet {

// ONNX element type -> DType; UserError naming `what` for types pet does not support.
DType dtype_from_onnx(int elem_type, const std::string& what);
// The same, nullopt for a type pet does not hold (float16 is held as f32 by the importer).
std::optional<DType> dtype_of_onnx(int elem_type);
// DType -> ONNX TensorProto.DataType.
int onnx_elem_type(DType type);

// `base_dir` resolves external data locations. UserError for unsupported element types,
// sizes that do not match the shape, or unreadable external data; `what` names the tensor.
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir, const std::string& what);
// The external data files the model's tensors (initializers, node attributes, subgraphs) name,
// each checked by contained_data_file to lie inside `base_dir`'s tree, without reading them.
std::vector<std::string> external_data_files(const onnx::ModelProto& model, const std::string& base_dir);
void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto& proto);
// The proto's name, dims and element type alone, no values (a weight-free export's weight).
void tensor_shape_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto& proto);

// ONNX's node tests up to 1.16 store bfloat16 tensors as UINT16: a u16 tensor read where `wanted`
// is bf16 is that tensor's bits as bf16; any other tensor is returned as it is.
Tensor as_stored_bfloat16(const Tensor& tensor, DType wanted);

// A serialized TensorProto file (.pb), as onnx test data and pet-run use; its external data must
// lie in the tensor file's folder tree. Writing is atomic (file_safety.h).
Tensor read_tensor_file(const std::string& path, std::string* name = nullptr);
void write_tensor_file(const std::string& path, const Tensor& tensor, const std::string& name);

}  // namespace pet
