// The --help texts; README.md quotes them verbatim (a test checks), so docs and tools agree.
#pragma once

namespace pet {

inline constexpr const char* kPetOptHelp = R"(usage: pet-opt [options] model.onnx

Optimizes an ONNX model and checks the result against the original.

options:
  -o, --output FILE        optimized model (default: MODEL.opt.onnx next to the input)
  --report FILE            JSON report (default: the output path with .json instead of .onnx)
  --beam N                 beam width of the search, N >= 1 (default 8)
  --mode MODE              none | taso | pet | pet-eq-only | pet-neq-only (default none;
                           this build runs cleanup only, the search modes arrive with the search)
  --input-shape NAME=DIMS  static shape for an input with symbolic dims, e.g. input=1x3x224x224
                           (repeat for several inputs)
  --seed N                 seed for every random draw, including the final check (default 2026)
  -h, --help               this text

exit status: 0 optimized and checked; 1 internal error or the check failed; 2 user error.
Set PET_DEBUG=1 to print the textual IR after every pipeline stage.
)";

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
