// Conversion between pet Tensors and ONNX TensorProto files (initializers and test data).
#pragma once

#include <string>

#include "core/tensor.h"

namespace onnx {
class TensorProto;
}

namespace pet {

// ONNX element type -> DType; UserError naming `what` for types pet does not support.
DType dtype_from_onnx(int elem_type, const std::string& what);

// `base_dir` resolves external data locations. UserError for unsupported element types,
// sizes that do not match the shape, or unreadable external data; `what` names the tensor.
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& base_dir, const std::string& what);
void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto& proto);

// A serialized TensorProto file (.pb), as onnx test data and pet-run use.
Tensor read_tensor_file(const std::string& path, std::string* name = nullptr);
void write_tensor_file(const std::string& path, const Tensor& tensor, const std::string& name);

}  // namespace pet
