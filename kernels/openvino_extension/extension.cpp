// The shared library users load with `core.add_extension(path)`: pet's LayoutOverwrite as an OpenVINO
// operation, and its ONNX form (domain "ai.pet", as pet-opt writes it for openvino-cpu) mapped onto it.
#include <openvino/core/extension.hpp>
#include <openvino/core/op_extension.hpp>
#include <openvino/frontend/onnx/extension/conversion.hpp>
#include <openvino/frontend/onnx/node_context.hpp>

#include "kernels/openvino_extension/layout_overwrite_op.h"

namespace pet::openvino_extension {
namespace {

ov::OutputVector convert_layout_overwrite(const ov::frontend::NodeContext& node) {
  ov::OutputVector inputs;
  for (size_t i = 0; i < node.get_input_size(); ++i) inputs.push_back(node.get_input(static_cast<int>(i)));
  auto ints = [&](const char* name) { return node.get_attribute<std::vector<int64_t>>(name, {}); };
  auto op = std::make_shared<LayoutOverwrite>(inputs, ints("expanded"), ints("perm"), ints("groups"), ints("offsets"),
                                              node.get_attribute<std::string>("activation", "none"));
  return op->outputs();
}

}  // namespace
}  // namespace pet::openvino_extension

OPENVINO_CREATE_EXTENSIONS(std::vector<ov::Extension::Ptr>({
    std::make_shared<ov::OpExtension<pet::openvino_extension::LayoutOverwrite>>(),
    std::make_shared<ov::frontend::onnx::ConversionExtension>("LayoutOverwrite", "ai.pet",
                                                              pet::openvino_extension::convert_layout_overwrite),
}));
