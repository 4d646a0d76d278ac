// pet._pet, the extension module of the `pet` package: pet-opt's flag table, the tools' mains, the
// targets, and how errors cross into Python; optimize, import, run and check are bound beside it.
#include <Python.h>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "core/default_seed.h"
#include "core/error.h"
#include "kernels/runtime/target_spec.h"
#include "python/src/bindings.h"
#include "tools/commands.h"
#include "tools/opt_flags.h"

namespace pet::python {
namespace {

nb::handle user_error_type;
nb::handle internal_error_type;

[[noreturn]] void raise_as(nb::handle type, const char* message) {
  PyErr_SetString(type.ptr(), message);
  throw nb::python_error();
}

// pet-opt's flags as the Python API reads them (pet/_flags.py makes the keywords from this).
nb::list flag_table() {
  nb::list flags;
  for (const OptFlag& flag : opt_flags()) {
    nb::dict entry;
    entry["name"] = flag.name;
    entry["alias"] = flag.alias;
    entry["value"] = flag.value;
    entry["help"] = flag.help;
    entry["default"] = flag.default_text ? std::optional<std::string>(flag.default_text()) : std::nullopt;
    flags.append(entry);
  }
  return flags;
}

// A tool's main on the process's own streams, as the installed console scripts run it.
int run_main(int (*main)(const std::vector<std::string>&, std::ostream&, std::ostream&),
             const std::vector<std::string>& args) {
  int status = without_gil([&] { return main(args, std::cout, std::cerr); });
  std::cout.flush();
  std::cerr.flush();
  return status;
}

// The version of a measured target's runtime, opened as pet-opt opens it (UserError when this
// machine lacks it: the message says what to install).
std::string runtime_version(const std::string& target) {
  return without_gil([&] { return TargetSpec::parse(target).open_runtime()->version(); });
}

}  // namespace

void load_error_types() {
  nb::module_ errors = nb::module_::import_("pet._errors");
  // Kept for the life of the process, as the module is.
  user_error_type = nb::object(errors.attr("UserError")).release();
  internal_error_type = nb::object(errors.attr("InternalError")).release();
}

void raise_from(std::exception_ptr error) {
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
  try {
    std::rethrow_exception(error);
  } catch (Interrupted& interrupted) {
    interrupted.cause.restore();
    throw nb::python_error();
  } catch (const nb::python_error&) {
    throw;
  } catch (const Cancelled&) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw nb::python_error();
  } catch (const UserError& user) {
    raise_as(user_error_type, user.what());
  } catch (const std::exception& other) {
    raise_as(internal_error_type, other.what());
  }
}

}  // namespace pet::python

NB_MODULE(_pet, module) {
  namespace nb = nanobind;
  using namespace pet::python;
  load_error_types();
  module.doc() = "pet's C++ library, bound for the pet package (use pet.optimize, pet.run, pet.check).";
  module.def("opt_flags", &flag_table, "pet-opt's flag table: name, alias, value, help lines, default.");
  module.def("pet_opt_help", &pet::pet_opt_help, "pet-opt --help.");
  module.def(
      "pet_opt_main", [](const std::vector<std::string>& args) { return run_main(&pet::pet_opt_main, args); },
      nb::arg("args"), "pet-opt on these arguments, printing to the process's stdout and stderr; the exit status.");
  module.def(
      "pet_run_main", [](const std::vector<std::string>& args) { return run_main(&pet::pet_run_main, args); },
      nb::arg("args"), "pet-run on these arguments, printing to the process's stdout and stderr; the exit status.");
  module.def("measured_targets", &pet::TargetSpec::measured_names, "The targets pet times in a runtime here.");
  module.def("gpu_targets", &pet::TargetSpec::gpu_names,
             "The GPU targets timed on a GPU machine and replayed here from their profile DB.");
  module.def("runtime_version", &runtime_version, nb::arg("target"),
             "The measured target's runtime version, opening it (pet.UserError when it is missing).");
#ifdef PET_MODULE_HAS_OPENVINO
  module.attr("built_with_openvino") = true;
#else
  module.attr("built_with_openvino") = false;
#endif
  module.attr("default_seed") = pet::kDefaultSeed;
  bind_optimize(module);
  bind_model(module);
}
