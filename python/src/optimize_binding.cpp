// pet.optimize in Python's process (a package without its pet-opt binary, python/pet/_native.py):
// pet-opt's flags read into a request by the flag table, then the run pet-opt makes (pipeline,
// written file, its check), with Python's progress callback and Ctrl-C.
#include <Python.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "core/error.h"
#include "python/src/bindings.h"
#include "tools/opt_command.h"
#include "tools/opt_flags.h"

namespace pet::python {
namespace {

// Ctrl-C while the run works without the GIL. The run asks its cancellation hook often, from its
// own threads; on the thread that called optimize, at most every 20 ms, Python gets the GIL back
// to run its signal handlers, and a KeyboardInterrupt (or another handler's exception) is kept as
// the cause and sets the flag the run's other threads read. The run then unwinds with Cancelled.
class CtrlC {
 public:
  CancelHook hook() {
    return [this] { return cancelled(); };
  }
  // With the GIL, after the run failed: raises the handler's exception when there was one.
  void raise_cause() {
    if (!cause_) return;
    cause_->restore();
    cause_.reset();
    throw nb::python_error();
  }

 private:
  bool cancelled() {
    if (flag_.load()) return true;
    if (std::this_thread::get_id() != caller_) return false;
    auto now = std::chrono::steady_clock::now();
    if (now - asked_ < std::chrono::milliseconds(20)) return false;
    asked_ = now;
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return false;
    cause_.emplace();  // takes the handler's exception out of Python's error indicator
    flag_ = true;
    return true;
  }

  std::atomic<bool> flag_{false};
  const std::thread::id caller_ = std::this_thread::get_id();
  std::chrono::steady_clock::time_point asked_{};  // touched on the caller's thread only
  std::optional<nb::python_error> cause_;          // likewise, with the GIL
};

// Called by the search at each round (search/search_budget.h), on the thread that called
// optimize: Python gets the GIL back briefly to run the caller's callback, whose exception
// unwinds the search as Interrupted. The callable is held by the Python caller for the whole
// call, so the copies the pipeline makes of this function never touch its reference count without
// the GIL.
std::function<void(const std::string&)> progress_hook(PyObject* callback) {
  return [callback](const std::string& line) {
    if (callback == Py_None) return;
    nb::gil_scoped_acquire gil;
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
  CtrlC ctrl_c;
  int status = 0;
  try {
    status = without_gil([&] {
      OptRequest request = parse_opt_request(parse_opt_args(args));
      request.optimize.hooks.progress = progress_hook(progress.ptr());
      request.optimize.hooks.cancelled = ctrl_c.hook();
      return run_opt_request(request, summary, message);
    });
  } catch (const nb::python_error&) {
    ctrl_c.raise_cause();  // the signal handler's own exception rather than the KeyboardInterrupt Cancelled maps to
    throw;
  }
  // A Ctrl-C after the run last asked its hook still interrupts the call.
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
