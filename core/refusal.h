// Refusal: why a shape rule does not accept its inputs, returned as a value (as an MLIR pattern
// returns a match failure), so that a candidate which does not fit is data and only the edges that
// read a user's model turn it into a UserError.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "core/error.h"

namespace pet {

// The whole message, "node 'NAME' (OP): WHAT", as the UserError at an edge says it.
struct Refusal {
  std::string message;
};

// A value, or the refusal that stands in its place. The type is [[nodiscard]]: with -Werror the
// compiler finds every caller that drops a refusal.
template <typename T>
class [[nodiscard]] Refusable {
 public:
  // Implicit both ways, so that a function reads `return types;` and `return context.refuse(...);`.
  Refusable(T value) : state_(std::move(value)) {}
  Refusable(Refusal refusal) : state_(std::move(refusal)) {}

  bool refused() const { return std::holds_alternative<Refusal>(state_); }

  // The value; reading it from a refusal is a bug of the caller (an internal check).
  const T& value() const& {
    PET_CHECK(!refused(), "the value of a refusal was read: " + std::get<Refusal>(state_).message);
    return std::get<T>(state_);
  }
  T&& value() && {
    PET_CHECK(!refused(), "the value of a refusal was read: " + std::get<Refusal>(state_).message);
    return std::get<T>(std::move(state_));
  }

  // The refusal; asking a value for one is a bug of the caller (an internal check).
  const Refusal& refusal() const& {
    PET_CHECK(refused(), "a value was read as a refusal");
    return std::get<Refusal>(state_);
  }
  Refusal&& refusal() && {
    PET_CHECK(refused(), "a value was read as a refusal");
    return std::get<Refusal>(std::move(state_));
  }

  // The value, or a UserError with the refusal's message: for the edges that read a user's model.
  T value_or_throw() && {
    if (refused()) throw UserError(std::get<Refusal>(state_).message);
    return std::get<T>(std::move(state_));
  }

 private:
  std::variant<T, Refusal> state_;
};

// Nothing when the inputs fit, else the refusal: what a shape rule's helper checks return.
class [[nodiscard]] ShapeCheck {
 public:
  ShapeCheck() = default;
  ShapeCheck(Refusal refusal) : refusal_(std::move(refusal)) {}

  bool refused() const { return refusal_.has_value(); }
  // Nothing, or a UserError with the refusal's message: for the edges that read a user's model.
  void or_throw() const {
    if (refused()) throw UserError(refusal_->message);
  }
  Refusal&& refusal() && {
    PET_CHECK(refused(), "an accepted check was read as a refusal");
    return std::move(*refusal_);
  }

 private:
  std::optional<Refusal> refusal_;
};

}  // namespace pet

// In a function that returns a Refusable or a ShapeCheck: returns the refusal of `check` (a
// ShapeCheck, or a Refusable whose value is not needed) when it has one, and goes on otherwise.
#define PET_TRY(...)                                                   \
  do {                                                                 \
    if (auto pet_try_check_ = (__VA_ARGS__); pet_try_check_.refused()) \
      return std::move(pet_try_check_).refusal();                      \
  } while (false)

// In a function that returns a Refusable or a ShapeCheck: `declaration` (such as `Shape out`, or
// a variable already declared) takes the value of the Refusable after it, or the function returns
// its refusal. The expression may hold commas: PET_TRY_ASSIGN(Shape out, broadcast(context, 0, 2)).
#define PET_TRY_ASSIGN(declaration, ...) \
  PET_TRY_ASSIGN_WITH_(PET_TRY_NAME_(pet_try_refusable_, __LINE__), declaration, __VA_ARGS__)
#define PET_TRY_ASSIGN_WITH_(temporary, declaration, ...)         \
  auto temporary = (__VA_ARGS__);                                 \
  if (temporary.refused()) return std::move(temporary).refusal(); \
  declaration = std::move(temporary).value()
#define PET_TRY_NAME_(prefix, line) PET_TRY_CONCAT_(prefix, line)
#define PET_TRY_CONCAT_(prefix, line) prefix##line
