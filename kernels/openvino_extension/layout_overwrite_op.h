// pet's fused correction (LayoutOverwrite) as an OpenVINO operation: the mutant's output laid out
// back (split dimensions into factors, permute, merge), the corrected boxes written over it, and an
// optional ReLU, in one pass over the output, multithreaded in the runtime's own thread pool.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <openvino/op/op.hpp>

namespace pet::openvino_extension {

class LayoutOverwrite : public ov::op::Op {
 public:
  OPENVINO_OP("LayoutOverwrite", "pet");

  LayoutOverwrite() = default;
  // inputs[0] is the mutant's output, inputs[1..] the patches, in the order they are written.
  LayoutOverwrite(const ov::OutputVector& inputs, std::vector<int64_t> expanded, std::vector<int64_t> perm,
                  std::vector<int64_t> groups, std::vector<int64_t> offsets, std::string activation);

  void validate_and_infer_types() override;
  std::shared_ptr<ov::Node> clone_with_new_inputs(const ov::OutputVector& inputs) const override;
  bool visit_attributes(ov::AttributeVisitor& visitor) override;
  bool evaluate(ov::TensorVector& outputs, const ov::TensorVector& inputs) const override;
  bool has_evaluate() const override;

 private:
  ov::Shape output_shape() const;

  std::vector<int64_t> expanded_, perm_, groups_, offsets_;
  std::string activation_ = "none";  // "none" or "relu"
};

}  // namespace pet::openvino_extension
