// Builds small ONNX models in tests, including deliberately broken ones.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace pet::testing {

class OnnxModelBuilder {
 public:
  explicit OnnxModelBuilder(int opset = 13);
  // dims: -1 makes a symbolic dimension named "batch".
  OnnxModelBuilder& input(const std::string& name, int elem_type, const std::vector<int64_t>& dims);
  OnnxModelBuilder& output(const std::string& name, int elem_type, const std::vector<int64_t>& dims);
  OnnxModelBuilder& float_initializer(const std::string& name, const std::vector<int64_t>& dims,
                                      const std::vector<float>& values);
  OnnxModelBuilder& int_initializer(const std::string& name, const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& values);
  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "");
  onnx::ModelProto& model() { return model_; }
  // Writes to a fresh file in the temp folder and returns its path.
  std::string save(const std::string& file_name) const;

 private:
  onnx::ModelProto model_;
};

// A fresh path in the temp folder (the file itself is not created).
std::string temp_file(const std::string& file_name);
void write_bytes(const std::string& path, const std::string& bytes);

}  // namespace pet::testing
