// The LayoutOverwrite operation: shape inference, attributes and its multithreaded CPU kernel.
#include "kernels/openvino_extension/layout_overwrite_op.h"

#include <algorithm>
#include <numeric>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace pet::openvino_extension {
namespace {

// Row-major strides of `dims`.
std::vector<size_t> strides_of(const std::vector<size_t>& dims) {
  std::vector<size_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

float activate(float value, bool relu) { return relu && value < 0 ? 0.0f : value; }

// The source viewed in output order: dimension k of the view is factor perm[k] of `expanded`.
struct PermutedView {
  std::vector<size_t> dims, strides;
};

PermutedView permuted_view(const std::vector<int64_t>& expanded, const std::vector<int64_t>& perm) {
  std::vector<size_t> factors(expanded.begin(), expanded.end());
  std::vector<size_t> factor_strides = strides_of(factors);
  PermutedView view;
  for (int64_t axis : perm) {
    view.dims.push_back(factors[static_cast<size_t>(axis)]);
    view.strides.push_back(factor_strides[static_cast<size_t>(axis)]);
  }
  return view;
}

// out (contiguous, in view order) = activation(source through the view), one innermost row a task.
void gather(const float* source, const PermutedView& view, bool relu, float* out) {
  size_t rank = view.dims.size();
  if (rank == 0) {
    out[0] = activate(source[0], relu);
    return;
  }
  size_t inner = view.dims[rank - 1];
  size_t inner_stride = view.strides[rank - 1];
  size_t total = std::accumulate(view.dims.begin(), view.dims.end(), size_t{1}, std::multiplies<>());
  size_t rows = inner == 0 ? 0 : total / inner;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, rows), [&](const tbb::blocked_range<size_t>& range) {
    for (size_t row = range.begin(); row != range.end(); ++row) {
      size_t rest = row, base = 0;
      for (size_t k = rank - 1; k-- > 0;) {
        base += (rest % view.dims[k]) * view.strides[k];
        rest /= view.dims[k];
      }
      float* target = out + row * inner;
      for (size_t i = 0; i < inner; ++i) target[i] = activate(source[base + i * inner_stride], relu);
    }
  });
}

// Writes `patch` (shape `dims`) into `out` (shape `out_dims`) at `offset`, one patch row a task.
void write_patch(const float* patch, const std::vector<size_t>& dims, const std::vector<size_t>& out_dims,
                 const int64_t* offset, bool relu, float* out) {
  size_t rank = dims.size();
  if (rank == 0) {
    out[0] = activate(patch[0], relu);
    return;
  }
  std::vector<size_t> out_strides = strides_of(out_dims);
  size_t inner = dims[rank - 1];
  size_t total = std::accumulate(dims.begin(), dims.end(), size_t{1}, std::multiplies<>());
  size_t rows = inner == 0 ? 0 : total / inner;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, rows), [&](const tbb::blocked_range<size_t>& range) {
    for (size_t row = range.begin(); row != range.end(); ++row) {
      size_t rest = row, base = static_cast<size_t>(offset[rank - 1]);
      for (size_t k = rank - 1; k-- > 0;) {
        base += (static_cast<size_t>(offset[k]) + rest % dims[k]) * out_strides[k];
        rest /= dims[k];
      }
      const float* from = patch + row * inner;
      for (size_t i = 0; i < inner; ++i) out[base + i] = activate(from[i], relu);
    }
  });
}

bool is_permutation(std::vector<int64_t> perm) {
  std::sort(perm.begin(), perm.end());
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

LayoutOverwrite::LayoutOverwrite(const ov::OutputVector& inputs, std::vector<int64_t> expanded,
                                 std::vector<int64_t> perm, std::vector<int64_t> groups, std::vector<int64_t> offsets,
                                 std::string activation)
    : Op(inputs),
      expanded_(std::move(expanded)),
      perm_(std::move(perm)),
      groups_(std::move(groups)),
      offsets_(std::move(offsets)),
      activation_(std::move(activation)) {
  constructor_validate_and_infer_types();
}

ov::Shape LayoutOverwrite::output_shape() const {
  ov::Shape shape;
  size_t factor = 0;
  for (int64_t count : groups_) {
    size_t dim = 1;
    for (int64_t i = 0; i < count; ++i) dim *= static_cast<size_t>(expanded_[static_cast<size_t>(perm_[factor++])]);
    shape.push_back(dim);
  }
  return shape;
}

void LayoutOverwrite::validate_and_infer_types() {
  NODE_VALIDATION_CHECK(this, get_input_size() >= 1, "LayoutOverwrite needs the laid-out input");
  for (size_t i = 0; i < get_input_size(); ++i)
    NODE_VALIDATION_CHECK(this, get_input_element_type(i) == ov::element::f32 || get_input_element_type(i).is_dynamic(),
                          "LayoutOverwrite computes f32 tensors; input ", i, " is ", get_input_element_type(i));
  NODE_VALIDATION_CHECK(this, perm_.size() == expanded_.size() && is_permutation(perm_),
                        "perm must be a permutation of the expanded factors");
  NODE_VALIDATION_CHECK(this, std::accumulate(groups_.begin(), groups_.end(), int64_t{0}) ==
                                  static_cast<int64_t>(perm_.size()),
                        "groups must merge every permuted factor");
  NODE_VALIDATION_CHECK(this, activation_ == "none" || activation_ == "relu", "activation '", activation_,
                        "' is not one of none, relu");
  ov::Shape out = output_shape();
  const ov::PartialShape& source = get_input_partial_shape(0);
  if (source.is_static())
    NODE_VALIDATION_CHECK(this, ov::shape_size(source.to_shape()) == ov::shape_size(out),
                          "the expanded factors do not multiply to the input's size");
  size_t rank = out.size();
  NODE_VALIDATION_CHECK(this, offsets_.size() == (get_input_size() - 1) * rank, "offsets need ", rank,
                        " entries per patch");
  for (size_t p = 1; p < get_input_size(); ++p) {
    const ov::PartialShape& patch = get_input_partial_shape(p);
    if (!patch.is_static()) continue;
    ov::Shape dims = patch.to_shape();
    NODE_VALIDATION_CHECK(this, dims.size() == rank, "patch ", p, " has rank ", dims.size(), ", the output ", rank);
    for (size_t d = 0; d < rank; ++d) {
      int64_t at = offsets_[(p - 1) * rank + d];
      NODE_VALIDATION_CHECK(this, at >= 0 && static_cast<size_t>(at) + dims[d] <= out[d], "patch ", p,
                            " leaves the output along axis ", d);
    }
  }
  set_output_type(0, ov::element::f32, out);
}

std::shared_ptr<ov::Node> LayoutOverwrite::clone_with_new_inputs(const ov::OutputVector& inputs) const {
  return std::make_shared<LayoutOverwrite>(inputs, expanded_, perm_, groups_, offsets_, activation_);
}

bool LayoutOverwrite::visit_attributes(ov::AttributeVisitor& visitor) {
  visitor.on_attribute("expanded", expanded_);
  visitor.on_attribute("perm", perm_);
  visitor.on_attribute("groups", groups_);
  visitor.on_attribute("offsets", offsets_);
  visitor.on_attribute("activation", activation_);
  return true;
}

bool LayoutOverwrite::has_evaluate() const { return true; }

bool LayoutOverwrite::evaluate(ov::TensorVector& outputs, const ov::TensorVector& inputs) const {
  ov::Shape out_shape = output_shape();
  outputs[0].set_shape(out_shape);
  float* out = outputs[0].data<float>();
  bool relu = activation_ == "relu";
  gather(inputs[0].data<const float>(), permuted_view(expanded_, perm_), relu, out);
  std::vector<size_t> out_dims(out_shape.begin(), out_shape.end());
  for (size_t p = 1; p < inputs.size(); ++p) {
    ov::Shape patch_shape = inputs[p].get_shape();
    std::vector<size_t> dims(patch_shape.begin(), patch_shape.end());
    write_patch(inputs[p].data<const float>(), dims, out_dims, offsets_.data() + (p - 1) * out_dims.size(), relu, out);
  }
  return true;
}

}  // namespace pet::openvino_extension
