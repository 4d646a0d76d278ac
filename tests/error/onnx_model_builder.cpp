// ModelProto construction helpers for the error and tool tests.
#include "tests/test_temp_dir.h"
#include "tests/error/onnx_model_builder.h"

#include <filesystem>
#include <fstream>

namespace pet::testing {

static void set_type(onnx::ValueInfoProto& info, const std::string& name, int elem_type,
                     const std::vector<int64_t>& dims) {
  info.set_name(name);
  auto* tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  auto* shape = tensor->mutable_shape();
  for (int64_t d : dims) {
    auto* dim = shape->add_dim();
    if (d < 0) dim->set_dim_param("batch");
    else dim->set_dim_value(d);
  }
}

OnnxModelBuilder::OnnxModelBuilder(int opset) {
  model_.set_ir_version(8);
  auto* entry = model_.add_opset_import();
  entry->set_domain("");
  entry->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

OnnxModelBuilder& OnnxModelBuilder::input(const std::string& name, int elem_type, const std::vector<int64_t>& dims) {
  set_type(*model_.mutable_graph()->add_input(), name, elem_type, dims);
  return *this;
}

OnnxModelBuilder& OnnxModelBuilder::output(const std::string& name, int elem_type, const std::vector<int64_t>& dims) {
  set_type(*model_.mutable_graph()->add_output(), name, elem_type, dims);
  return *this;
}

OnnxModelBuilder& OnnxModelBuilder::float_initializer(const std::string& name, const std::vector<int64_t>& dims,
                                                      const std::vector<float>& values) {
  auto* tensor = model_.mutable_graph()->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tensor->add_dims(d);
  for (float v : values) tensor->add_float_data(v);
  return *this;
}

OnnxModelBuilder& OnnxModelBuilder::int_initializer(const std::string& name, const std::vector<int64_t>& dims,
                                                    const std::vector<int64_t>& values) {
  auto* tensor = model_.mutable_graph()->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) tensor->add_dims(d);
  for (int64_t v : values) tensor->add_int64_data(v);
  return *this;
}

onnx::NodeProto& OnnxModelBuilder::node(const std::string& op, const std::vector<std::string>& inputs,
                                        const std::vector<std::string>& outputs, const std::string& name) {
  auto* node = model_.mutable_graph()->add_node();
  node->set_op_type(op);
  node->set_name(name.empty() ? op + "_" + std::to_string(model_.graph().node_size() - 1) : name);
  for (const auto& input : inputs) node->add_input(input);
  for (const auto& output : outputs) node->add_output(output);
  return *node;
}

std::string temp_file(const std::string& file_name) {
  auto dir = pet::testing::private_temp_dir() / "pet-tests";
  std::filesystem::create_directories(dir);
  return (dir / file_name).string();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary);
  file << bytes;
}

std::string OnnxModelBuilder::save(const std::string& file_name) const {
  std::string path = temp_file(file_name);
  write_bytes(path, model_.SerializeAsString());
  return path;
}

}  // namespace pet::testing
