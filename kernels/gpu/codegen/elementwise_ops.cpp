// One line per elementwise op: the CUDA expression of its reference kernel (core/ops/<op>.cpp).
// Where the reference goes through std::max, std::clamp or a stable branch, a helper repeats
// exactly that, so NaNs and infinities come out as on the CPU.
#include "kernels/gpu/codegen/elementwise_ops.h"

#include <numbers>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/gpu/codegen/kernel_text.h"

namespace pet::gpu::codegen {
namespace {

struct Helper {
  const char* name;
  const char* definition;
};

// Each helper is the reference kernel's own formula.
constexpr Helper kHelpers[] = {
    {"pet_batch_norm",
     "__device__ __forceinline__ float pet_batch_norm(float x, float scale, float bias, float mean, float variance,\n"
     "                                                float epsilon) {\n"
     "  const float gain = scale / sqrtf(variance + epsilon);\n"
     "  return x * gain + (bias - mean * gain);\n"
     "}\n"},
    {"pet_clamp",  // std::clamp(v, low, high)
     "__device__ __forceinline__ float pet_clamp(float v, float low, float high) {\n"
     "  return v < low ? low : (high < v ? high : v);\n"
     "}\n"},
    {"pet_clip",  // std::min(std::max(x, low), high)
     "__device__ __forceinline__ float pet_clip(float x, float low, float high) {\n"
     "  const float raised = x < low ? low : x;\n"
     "  return high < raised ? high : raised;\n"
     "}\n"},
    {"pet_float_to_int64",  // truncation toward zero; NaN to 0 and out-of-range values saturated
     "__device__ __forceinline__ long long pet_float_to_int64(float x) {\n"
     "  if (x != x) return 0;\n"
     "  if (x <= -9.223372037e18f) return -9223372036854775807LL - 1;\n"
     "  if (x >= 9.223372037e18f) return 9223372036854775807LL;\n"
     "  return static_cast<long long>(x);\n"
     "}\n"},
    {"pet_max",  // std::max(a, b)
     "__device__ __forceinline__ float pet_max(float a, float b) { return a < b ? b : a; }\n"},
    {"pet_min",  // std::min(a, b)
     "__device__ __forceinline__ float pet_min(float a, float b) { return b < a ? b : a; }\n"},
    {"pet_pow",  // the reference squares exactly and otherwise takes pow in double
     "__device__ __forceinline__ float pet_pow(float base, float exponent) {\n"
     "  if (exponent == 2.0f) return base * base;\n"
     "  return static_cast<float>(pow(static_cast<double>(base), static_cast<double>(exponent)));\n"
     "}\n"},
    {"pet_round_to_half",  // to the nearest float16, ties to even, and back: what a float16 holds
     "__device__ __forceinline__ float pet_round_to_half(float x) {\n"
     "  unsigned short half;\n"
     "  float rounded;\n"
     "  asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(half) : \"f\"(x));\n"
     "  asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(rounded) : \"h\"(half));\n"
     "  return rounded;\n"
     "}\n"},
    {"pet_sigmoid",  // exp never overflows, for large inputs of either sign
     "__device__ __forceinline__ float pet_sigmoid(float x) {\n"
     "  if (x >= 0.0f) return 1.0f / (1.0f + expf(-x));\n"
     "  const float e = expf(x);\n"
     "  return e / (1.0f + e);\n"
     "}\n"},
    {"pet_softplus",  // log(1 + exp(x)) without overflow for large x
     "__device__ __forceinline__ float pet_softplus(float x) {\n"
     "  return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x));\n"
     "}\n"},
};

// Ops that are one CUDA math function of their one float operand.
constexpr std::pair<std::string_view, std::string_view> kMathFunctions[] = {
    {"Abs", "fabsf"},  {"Acos", "acosf"},   {"Acosh", "acoshf"}, {"Asin", "asinf"}, {"Asinh", "asinhf"},
    {"Atan", "atanf"}, {"Atanh", "atanhf"}, {"Ceil", "ceilf"},   {"Cos", "cosf"},   {"Cosh", "coshf"},
    {"Erf", "erff"},   {"Exp", "expf"},     {"Floor", "floorf"}, {"Log", "logf"},   {"Round", "rintf"},
    {"Sin", "sinf"},   {"Sinh", "sinhf"},   {"Sqrt", "sqrtf"},   {"Tan", "tanf"},   {"Tanh", "tanhf"},
};

struct Expression {
  const ElementwiseTerms& terms;
  HelperSet& helpers;

  const std::string& x(size_t input = 0) const { return terms.operands.at(input); }
  std::string attr(const char* name) const { return float_literal(terms.node.attrs.get_float(name)); }
  std::string call(const char* helper, const std::string& arguments) const {
    helpers.insert(helper);
    return fmt::format("{}({})", helper, arguments);
  }
  // op(op(x0, x1), x2)...: a left fold, as the reference folds variadic inputs.
  std::string fold(const char* helper) const {
    std::string text = x(0);
    for (size_t k = 1; k < terms.operands.size(); ++k) text = call(helper, text + ", " + x(k));
    return text;
  }
  std::string sum() const {
    std::string text = x(0);
    for (size_t k = 1; k < terms.operands.size(); ++k) text += " + " + x(k);
    return text;
  }
};

using Builder = std::string (*)(const Expression&);

struct OpExpression {
  std::string_view op;
  Builder build;
};

std::string cast(const Expression& e) {
  const std::string& target = e.terms.node.attrs.get_string("to");
  DType from = e.terms.operand_types.at(0), to = e.terms.result;
  // Through double, as the reference reads every element (as_double) before converting.
  std::string as_float = from == DType::f32 ? e.x() : fmt::format("static_cast<float>(static_cast<double>({}))", e.x());
  if (target == "f16") return e.call("pet_round_to_half", as_float);
  if (from == to) return e.x();
  if (to == DType::f32) return as_float;
  if (to == DType::boolean) return fmt::format("{} != 0", e.x());
  return from == DType::f32 ? e.call("pet_float_to_int64", e.x()) : fmt::format("static_cast<long long>({})", e.x());
}

std::string gelu(const Expression& e) {
  if (e.terms.node.attrs.get_string("approximate") == "tanh") {
    std::string cube = fmt::format("{} * {} * {}", e.x(), e.x(), e.x());
    return fmt::format("0.5f * {} * (1.0f + tanhf({} * ({} + 0.044715f * {})))", e.x(),
                       float_literal(std::numbers::sqrt2 * std::numbers::inv_sqrtpi), e.x(), cube);
  }
  return fmt::format("0.5f * {} * (1.0f + erff({} * {}))", e.x(), e.x(), float_literal(std::numbers::sqrt2 / 2));
}

std::string is_inf(const Expression& e) {
  bool negative = e.terms.node.attrs.get_int("detect_negative") != 0;
  bool positive = e.terms.node.attrs.get_int("detect_positive") != 0;
  return fmt::format("isinf({}) && ({} < 0.0f ? {} : {})", e.x(), e.x(), negative, positive);
}

// Every op besides kMathFunctions; the plan's refusals keep i64 away from all but Cast.
const OpExpression kExpressions[] = {
    {"Add", [](const Expression& e) { return e.x(0) + " + " + e.x(1); }},
    {"Sub", [](const Expression& e) { return e.x(0) + " - " + e.x(1); }},
    {"Mul", [](const Expression& e) { return e.x(0) + " * " + e.x(1); }},
    {"Div", [](const Expression& e) { return e.x(0) + " / " + e.x(1); }},
    {"Pow", [](const Expression& e) { return e.call("pet_pow", e.x(0) + ", " + e.x(1)); }},
    {"Mod", [](const Expression& e) { return fmt::format("fmodf({}, {})", e.x(0), e.x(1)); }},  // f32 needs fmod=1
    {"Neg", [](const Expression& e) { return "-" + e.x(); }},
    {"Reciprocal", [](const Expression& e) { return "1.0f / " + e.x(); }},
    {"Sign", [](const Expression& e) { return fmt::format("{0} > 0.0f ? 1.0f : ({0} < 0.0f ? -1.0f : {0})", e.x()); }},
    {"Relu", [](const Expression& e) { return fmt::format("{0} > 0.0f ? {0} : 0.0f", e.x()); }},
    {"LeakyRelu",
     [](const Expression& e) { return fmt::format("{0} >= 0.0f ? {0} : {1} * {0}", e.x(), e.attr("alpha")); }},
    {"PRelu", [](const Expression& e) { return fmt::format("{0} >= 0.0f ? {0} : {1} * {0}", e.x(0), e.x(1)); }},
    {"ThresholdedRelu",
     [](const Expression& e) { return fmt::format("{0} > {1} ? {0} : 0.0f", e.x(), e.attr("alpha")); }},
    {"Elu",
     [](const Expression& e) { return fmt::format("{0} >= 0.0f ? {0} : {1} * expm1f({0})", e.x(), e.attr("alpha")); }},
    {"Selu",
     [](const Expression& e) {
       return fmt::format("{2} * ({0} > 0.0f ? {0} : {1} * expm1f({0}))", e.x(), e.attr("alpha"), e.attr("gamma"));
     }},
    {"Celu",
     [](const Expression& e) {
       return fmt::format("fmaxf(0.0f, {0}) + fminf(0.0f, {1} * expm1f({0} / {1}))", e.x(), e.attr("alpha"));
     }},
    {"Sigmoid", [](const Expression& e) { return e.call("pet_sigmoid", e.x()); }},
    {"HardSigmoid",
     [](const Expression& e) {
       return e.call("pet_clamp", fmt::format("{} * {} + {}, 0.0f, 1.0f", e.attr("alpha"), e.x(), e.attr("beta")));
     }},
    {"HardSwish",
     [](const Expression& e) { return e.x() + " * " + e.call("pet_clamp", e.x() + " / 6.0f + 0.5f, 0.0f, 1.0f"); }},
    {"Softplus", [](const Expression& e) { return e.call("pet_softplus", e.x()); }},
    {"Softsign", [](const Expression& e) { return fmt::format("{0} / (1.0f + fabsf({0}))", e.x()); }},
    {"Shrink",
     [](const Expression& e) {
       return fmt::format("{0} < -{1} ? {0} + {2} : ({0} > {1} ? {0} - {2} : 0.0f)", e.x(), e.attr("lambd"),
                          e.attr("bias"));
     }},
    {"Gelu", gelu},
    {"Clip",
     [](const Expression& e) {
       return e.call("pet_clip", fmt::format("{}, {}, {}", e.x(), e.attr("min"), e.attr("max")));
     }},
    {"Max", [](const Expression& e) { return e.fold("pet_max"); }},
    {"Min", [](const Expression& e) { return e.fold("pet_min"); }},
    {"Sum", [](const Expression& e) { return e.sum(); }},
    {"Mean",
     [](const Expression& e) {
       return fmt::format("({}) / {}", e.sum(), float_literal(static_cast<double>(e.terms.operands.size())));
     }},
    {"Equal", [](const Expression& e) { return e.x(0) + " == " + e.x(1); }},
    {"Less", [](const Expression& e) { return e.x(0) + " < " + e.x(1); }},
    {"LessOrEqual", [](const Expression& e) { return e.x(0) + " <= " + e.x(1); }},
    {"Greater", [](const Expression& e) { return e.x(0) + " > " + e.x(1); }},
    {"GreaterOrEqual", [](const Expression& e) { return e.x(0) + " >= " + e.x(1); }},
    {"And", [](const Expression& e) { return e.x(0) + " && " + e.x(1); }},
    {"Or", [](const Expression& e) { return e.x(0) + " || " + e.x(1); }},
    {"Xor", [](const Expression& e) { return e.x(0) + " != " + e.x(1); }},
    {"Not", [](const Expression& e) { return "!" + e.x(); }},
    {"IsNaN", [](const Expression& e) { return fmt::format("isnan({})", e.x()); }},
    {"IsInf", is_inf},
    {"Where", [](const Expression& e) { return fmt::format("{} ? {} : {}", e.x(0), e.x(1), e.x(2)); }},
    {"BatchNormalization",
     [](const Expression& e) {
       return e.call("pet_batch_norm",
                     fmt::format("{}, {}, {}, {}, {}, {}", e.x(0), e.x(1), e.x(2), e.x(3), e.x(4), e.attr("epsilon")));
     }},
    {"Cast", cast},
};

}  // namespace

bool has_elementwise_expression(const std::string& op) {
  for (const auto& [name, function] : kMathFunctions)
    if (name == op) return true;
  for (const OpExpression& entry : kExpressions)
    if (entry.op == op) return true;
  return false;
}

std::optional<std::string> elementwise_expression(const ElementwiseTerms& terms, HelperSet& helpers) {
  const std::string& op = terms.node.op();
  for (const auto& [name, function] : kMathFunctions)
    if (name == op) return fmt::format("{}({})", function, terms.operands.at(0));
  Expression expression{terms, helpers};
  for (const OpExpression& entry : kExpressions)
    if (entry.op == op) return entry.build(expression);
  return std::nullopt;
}

bool reads_per_channel(const Node& node, size_t input) {
  if (node.op() == "BatchNormalization") return input >= 1;
  if (node.op() == "PRelu") return input == 1 && node.attrs.get_int("channel_slope") != 0;
  return false;
}

std::string helper_definitions(const HelperSet& helpers) {
  std::string text;
  for (const std::string& name : helpers) {
    const Helper* found = nullptr;
    for (const Helper& helper : kHelpers)
      if (name == helper.name) found = &helper;
    PET_CHECK(found != nullptr, "an expression calls helper " + name + ", which has no definition");
    text += found->definition;
  }
  return text;
}

}  // namespace pet::gpu::codegen
