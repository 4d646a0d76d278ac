// pet.optimize's C++ half: pet-opt's flags read into a request by the flag table, then the run
// pet-opt makes (pipeline, written file, its check), with Python's progress callback and Ctrl-C.
#include <Python.h>

#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "tools/opt_command.h"
#include "tools/opt_flags.h"

namespace pet::python {
namespace {

// Called by the search at each round (search/search_budget.h), on the thread that called
// optimize: Python gets the GIL back briefly to run its signal handlers (Ctrl-C) and the caller's
// callback; either one's exception unwinds the search as Interrupted. The callable is held by the
// Python caller for the whole call, so the copies the pipeline makes of this function never touch
// its reference count without the GIL.
std::function<void(const std::string&)> progress_hook(PyObject* callback) {
  return [callback](const std::string& line) {
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw Interrupted{};
    if (callback == Py_None) return;
    try {
      nb::handle function(callback);
      function(line);
    } catch (nb::python_error& error) {
      error.restore();
      throw Interrupted{};
    }
  };
}

// pet-opt on `model` with `flags` (pet-opt's own spelling, made from Python's keywords), the model
// and report written into `folder` as model.opt.onnx and model.opt.json. Returns the exit status
// (0 written and checked, 1 a check failed: only the report), what pet-opt prints on stdout and
// what it prints on stderr for a failed check; user and internal errors are raised.
nb::tuple optimize_into(const std::string& model, const std::vector<std::string>& flags, const std::string& folder,
                        nb::handle progress) {
  std::vector<std::string> args = {model};
  args.insert(args.end(), flags.begin(), flags.end());
  std::filesystem::path out(folder);
  args.insert(args.end(), {"-o", (out / "model.opt.onnx").string(), "--report", (out / "model.opt.json").string()});
  std::ostringstream summary, message;
  int status = without_gil([&] {
    OptRequest request = parse_opt_request(parse_opt_args(args));
    request.optimize.hooks.progress = progress_hook(progress.ptr());
    return run_opt_request(request, summary, message);
  });
  // A Ctrl-C after the search's last progress report still interrupts the call.
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
  std::string failure = message.str();
  // run_opt_request clears the progress line it was given; that is a terminal's, not a message.
  if (failure.rfind("\r\033[K", 0) == 0) failure.erase(0, 4);
  return nb::make_tuple(status, summary.str(), failure);
}

}  // namespace

void bind_optimize(nb::module_& module) {
  module.def("optimize_into", &optimize_into, nb::arg("model"), nb::arg("flags"), nb::arg("folder"),
             nb::arg("progress").none(),
             "pet-opt MODEL FLAGS -o FOLDER/model.opt.onnx --report FOLDER/model.opt.json, in this process: "
             "(status, summary, failure message).");
}

}  // namespace pet::python
