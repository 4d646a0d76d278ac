// pet.run's and pet.check's C++ half: a model imported as pet-opt imports it, run on pet's CPU
// reference executor, and two models compared by the differential check on seeded draws.
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/onnx_import.h"
#include "python/src/bindings.h"
#include "tools/model_format.h"
#include "verifier/differential.h"

namespace pet::python {
namespace {

// A tensor crossing into or out of Python: dtype name (core/dtype.h), dims, the bytes row-major.
using WireTensor = std::tuple<std::string, std::vector<int64_t>, nb::bytes>;
// A graph input or output: name, dtype name, dims.
using ValueInfo = std::tuple<std::string, std::string, std::vector<int64_t>>;

struct Model {
  Graph graph;
};

Model import_model(const std::string& path, const std::vector<std::string>& input_shapes) {
  return without_gil([&] {
    ImportOptions options;
    for (const std::string& given : input_shapes) {
      auto [name, shape] = parse_input_shape(given);
      options.input_shapes[name] = shape;
    }
    return Model{read_model(path, options)};
  });
}

std::vector<ValueInfo> describe(const Graph& graph, const std::vector<ValueId>& values) {
  std::vector<ValueInfo> infos;
  for (ValueId id : values) {
    const Value& value = graph.value(id);
    infos.emplace_back(value.name, std::string(dtype_name(value.type.dtype)), value.type.shape.dims());
  }
  return infos;
}

// The Python side has cast every array to the input's dtype; a byte count that does not match the
// dims is its bug, not the user's.
Tensor from_wire(const WireTensor& wire) {
  const auto& [dtype_text, dims, bytes] = wire;
  std::optional<DType> dtype = parse_dtype(dtype_text);
  PET_CHECK(dtype.has_value(), fmt::format("unknown dtype '{}' from Python", dtype_text));
  Tensor tensor(*dtype, Shape(dims));
  PET_CHECK(tensor.nbytes() == bytes.size(),
            fmt::format("{} bytes from Python for a tensor of {} bytes", bytes.size(), tensor.nbytes()));
  if (tensor.nbytes() > 0) std::memcpy(tensor.mutable_raw(), bytes.c_str(), tensor.nbytes());
  return tensor;
}

WireTensor to_wire(const Tensor& tensor) {
  return {std::string(dtype_name(tensor.dtype())), tensor.shape().dims(),
          nb::bytes(reinterpret_cast<const char*>(tensor.raw()), tensor.nbytes())};
}

// Runs the model on `given` (input name -> tensor); inputs not given are seeded random draws, as
// pet-run makes them. Names that are not inputs are user errors.
std::vector<WireTensor> run(const Model& model, const std::map<std::string, WireTensor>& given, uint64_t seed) {
  std::map<std::string, Tensor> named;
  try {
    for (const auto& [name, wire] : given) named.emplace(name, from_wire(wire));
  } catch (...) {
    raise_from(std::current_exception());
  }
  std::vector<Tensor> outputs = without_gil([&] {
    const Graph& graph = model.graph;
    std::vector<Tensor> random = random_inputs(graph, seed);
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < graph.inputs().size(); ++i) {
      auto found = named.find(graph.value(graph.inputs()[i]).name);
      inputs.push_back(found == named.end() ? random[i] : found->second);
      if (found != named.end()) named.erase(found);
    }
    if (!named.empty())
      throw UserError(fmt::format("inputs names '{}', which is not an input of the model", named.begin()->first));
    return execute(graph, inputs);
  });
  std::vector<WireTensor> wires;
  for (const Tensor& output : outputs) wires.push_back(to_wire(output));
  return wires;
}

nb::dict output_dict(const OutputDifference& output) {
  nb::dict entry;
  entry["name"] = output.name;
  entry["dtype"] = std::string(dtype_name(output.dtype));
  entry["max_abs_error"] = output.max_abs_error;
  entry["max_rel_error"] = output.max_rel_error;
  entry["elements_outside_tolerance"] = output.elements_outside;
  entry["nonfinite_elements"] = output.nonfinite_expected;
  entry["nonfinite_mismatches"] = output.nonfinite_mismatches;
  entry["passed"] = output.passed;
  return entry;
}

// One dict per draw (seeds seed, seed + 1, ...), as the report's differential_check has them.
nb::list check(const Model& original, const Model& optimized, int draws, uint64_t seed, double absolute,
               double relative) {
  if (draws < 1) throw nb::value_error(fmt::format("draws must be at least 1, not {}", draws).c_str());
  std::vector<DifferentialReport> reports = without_gil([&] {
    ReferenceOutputs reference(original.graph);
    std::vector<DifferentialReport> done;
    for (int draw = 0; draw < draws; ++draw)
      done.push_back(differential(original.graph, optimized.graph, seed + static_cast<uint64_t>(draw),
                                  {.absolute = absolute, .relative = relative}, &reference));
    return done;
  });
  nb::list result;
  for (const DifferentialReport& report : reports) {
    nb::dict entry;
    entry["seed"] = report.seed;
    entry["passed"] = report.passed;
    entry["max_abs_error"] = report.max_abs_error();
    entry["failure_reason"] = report.failure_reason();
    entry["input_range"] = report.input_range;
    entry["inconclusive"] = report.inconclusive;
    entry["same_graph"] = report.same_graph;
    entry["warnings"] = report.warnings;
    nb::list outputs;
    for (const OutputDifference& output : report.outputs) outputs.append(output_dict(output));
    entry["outputs"] = outputs;
    result.append(entry);
  }
  return result;
}

}  // namespace

void bind_model(nb::module_& module) {
  nb::class_<Model>(module, "Model", "A model imported by pet (ONNX or textual IR), static shapes.")
      .def_prop_ro("inputs", [](const Model& model) { return describe(model.graph, model.graph.inputs()); },
                   "(name, dtype, dims) of each graph input, in order.")
      .def_prop_ro("outputs", [](const Model& model) { return describe(model.graph, model.graph.outputs()); },
                   "(name, dtype, dims) of each graph output, in order.");
  module.def("import_model", &import_model, nb::arg("path"), nb::arg("input_shapes"),
             "The model at path, imported as pet-opt imports it (--input-shape NAME=DIMS each).");
  module.def("run", &run, nb::arg("model"), nb::arg("inputs"), nb::arg("seed"),
             "Outputs on pet's CPU executor, inputs by name (dtype, dims, bytes); the others seeded.");
  module.def("check", &check, nb::arg("original"), nb::arg("optimized"), nb::arg("draws"), nb::arg("seed"),
             nb::arg("absolute"), nb::arg("relative"), "The differential check on draws seed, seed + 1, ...");
  nb::dict tolerance;
  Tolerance defaults;
  tolerance["absolute"] = defaults.absolute;
  tolerance["relative"] = defaults.relative;
  module.attr("default_tolerance") = tolerance;
}

}  // namespace pet::python
