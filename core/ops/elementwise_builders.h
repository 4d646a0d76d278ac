// OpDef builders shared by elementwise ops beyond op_util's float-only ones: unary ops that
// also take i64, and broadcasting comparisons, logical ops and float tests that produce bool.
#pragma once

#include <functional>
#include <string>

#include "core/ops/op_util.h"

namespace pet::ops {

// OpDef for a unary elementwise op on f32 and i64 (Neg, Abs), named like its ONNX op.
OpDef numeric_unary_op(const std::string& name, std::function<float(float)> float_fn,
                       std::function<int64_t(int64_t)> int_fn);

// OpDef for a broadcasting comparison of two same-typed inputs (f32, i64, and bool when
// `allows_bool`) producing bool. `compare(a, b)` receives both elements as doubles
// (exact for every i64 an index or shape holds) unless both are i64, when `compare_int` is used.
OpDef comparison_op(const std::string& name, std::function<bool(double, double)> compare,
                    std::function<bool(int64_t, int64_t)> compare_int, bool allows_bool);

// OpDef for a broadcasting logical op of two bool inputs (And, Or, Xor) producing bool.
OpDef logical_op(const std::string& name, std::function<bool(bool, bool)> combine);

// OpDef for an elementwise test of a float32 input (IsNaN, IsInf) producing bool.
OpDef float_predicate_op(const std::string& name, std::function<bool(float)> test);

}  // namespace pet::ops
