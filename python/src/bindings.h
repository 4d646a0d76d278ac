// What the module's three files share: the bind functions, and how C++ work runs under Python
// (the GIL released, pet's errors raised as pet.UserError / pet.InternalError, Ctrl-C honoured).
#pragma once

#include <exception>
#include <utility>

#include <nanobind/nanobind.h>

namespace pet::python {

namespace nb = nanobind;

void bind_optimize(nb::module_& module);
void bind_model(nb::module_& module);

// Reads pet.UserError and pet.InternalError from pet._errors (the Python package defines them).
void load_error_types();

// Thrown from inside C++ work (the search's progress callback) to unwind it when the progress
// callback raised (a Ctrl-C while it ran, or its own error): that exception is the cause.
// The GIL must be held where one is made: it takes Python's error indicator.
struct Interrupted : std::exception {
  nb::python_error cause;
  const char* what() const noexcept override { return "interrupted from Python"; }
};

// With the GIL held, after C++ work failed: raises the Python exception for `error`. A Ctrl-C
// that arrived meanwhile wins (it may have killed ONNX Runtime's worker, which the failure then
// reports); then Interrupted's cause, pet::Cancelled as KeyboardInterrupt, pet::UserError as
// pet.UserError, anything else as pet.InternalError, each with pet's message.
[[noreturn]] void raise_from(std::exception_ptr error);

// Runs `body` with the GIL released; its exceptions become Python's (raise_from).
template <typename Body>
auto without_gil(Body&& body) -> decltype(body()) {
  try {
    nb::gil_scoped_release release;
    return std::forward<Body>(body)();
  } catch (...) {
    raise_from(std::current_exception());
  }
}

}  // namespace pet::python
