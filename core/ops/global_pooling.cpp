// The shape rule of global pools (every spatial dim collapses to 1) and the input check of all pools.
#include "core/ops/global_pooling.h"

#include <fmt/format.h>

namespace pet::ops {

ShapeCheck check_pool_input(const ShapeContext& context, DTypeSet types) {
  const TensorType& x = context.input(0);
  PET_REFUSE_UNLESS(context, types.contains(x.dtype),
                    "does not support element type " + std::string(dtype_name(x.dtype)));
  PET_REFUSE_UNLESS(context, x.shape.rank() >= 3,
                    fmt::format("input shape {} needs [N, C, spatial...] with at least one "
                                "spatial dim",
                                x.shape.to_string()));
  return {};
}

ShapeResult infer_global_pool(const ShapeContext& context) {
  PET_TRY(check_pool_input(context));
  const TensorType& x = context.input(0);
  std::vector<int64_t> dims(static_cast<size_t>(x.shape.rank()), 1);
  dims[0] = x.shape[0];
  dims[1] = x.shape[1];
  return {{DType::f32, Shape(dims)}};
}

}  // namespace pet::ops
