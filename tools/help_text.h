// pet-run's --help text (pet-opt's comes from its flag table, tools/opt_flags.h); README.md quotes
// both verbatim (a test checks), so docs and tools agree.
#pragma once

namespace pet {

inline constexpr const char* kPetRunHelp = R"(usage: pet-run [options] model.onnx

Runs an ONNX model on pet's CPU reference executor.

options:
  --input NAME=FILE.pb     a graph input as an ONNX TensorProto file (repeat per input);
                           inputs not given are random, seeded by --seed
  --input-shape NAME=DIMS  static shape for an input with symbolic dims (repeatable)
  --output-dir DIR         write each output as DIR/<output name>.pb
  --repeat N               run N times and report the median latency (default 1)
  --seed N                 seed for random inputs (default 2026)
  -h, --help               this text

exit status: 0 ok; 1 internal error; 2 user error.
)";

}  // namespace pet
