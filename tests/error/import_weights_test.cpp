// The importer drops each large weight's values from the parsed proto once its tensor is made: the
// weights arrive whole, from a file and from bytes alike.
#include <gtest/gtest.h>

#include <numeric>

#include "core/executor.h"
#include "core/onnx_import.h"
#include "tests/error/onnx_model_builder.h"

namespace pet::testing {
namespace {

using onnx::TensorProto;

// x -> Resize by an initializer's scales -> Reshape by an initializer's shape -> MatMul by a weight
// of 2048 elements (is_weight: its values leave the proto) -> y.
OnnxModelBuilder resized_projection(const std::vector<float>& weight) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {1, 1, 4, 4}).output("y", TensorProto::FLOAT, {8, 256});
  builder.float_initializer("scales", {4}, {1, 1, 2, 2});
  builder.int_initializer("shape", {2}, {8, 8});
  builder.float_initializer("w", {8, 256}, weight);
  builder.node("Resize", {"x", "", "scales"}, {"r"}, "resize");
  builder.node("Reshape", {"r", "shape"}, {"rows"}, "reshape");
  builder.node("MatMul", {"rows", "w"}, {"y"}, "project");
  return builder;
}

// Before: the proto held every weight's values beside the Graph's copy until the import ended.
// After: the large weight leaves the proto once imported, and the import is as it was: the weight
// arrives value for value, the shapes that come from the small initializers (scales, shape) are
// right, from a file and from bytes alike.
TEST(ImportWeights, ALargeWeightArrivesWholeBesideTheSmallInitializersThatGiveShapes) {
  std::vector<float> weight(8 * 256);
  std::iota(weight.begin(), weight.end(), -1000.0f);
  OnnxModelBuilder builder = resized_projection(weight);
  std::string path = builder.save("resized_projection.onnx");
  Graph from_file = import_onnx(path);
  Graph from_bytes = import_onnx_bytes(builder.model().SerializeAsString(), "model 0");
  for (const Graph* graph : {&from_file, &from_bytes}) {
    std::optional<ValueId> w = graph->find_value("w");
    ASSERT_TRUE(w && graph->value(*w).constant);
    std::span<const float> imported = graph->value(*w).constant->view<DType::f32>();
    EXPECT_TRUE(std::equal(imported.begin(), imported.end(), weight.begin(), weight.end()));
    EXPECT_EQ(graph->value(graph->outputs()[0]).type.to_string(), "f32[8,256]");
  }
  std::vector<Tensor> inputs = random_inputs(from_file, 3);
  EXPECT_TRUE(execute(from_file, inputs)[0].same_content(execute(from_bytes, inputs)[0]));
}

}  // namespace
}  // namespace pet::testing
