// The --help texts; README.md quotes them verbatim (a test checks), so docs and tools agree.
#pragma once

namespace pet {

inline constexpr const char* kPetOptHelp = R"(usage: pet-opt [options] model.onnx|model.pet

Optimizes an ONNX model for the runtime it will run in with fully and partially equivalent
transformations, corrects the partial ones, times the best programs against the input in that
runtime and writes the fastest (never one slower than the input), checks the written file against
the original (imported again, on three input draws, and in the target runtime) before putting it
in place, and reports every change. A file named *.pet or *.ir, read or written, is pet's
textual IR (the form PET_DEBUG=1 prints) instead of ONNX.

options:
  -o, --output FILE        optimized model (default: MODEL.opt.onnx next to the input)
  --report FILE            JSON report (default: the output path with .json instead of .onnx)
  --passes P,Q,...         run only these passes, in this order, and write the result (checked
                           against the input on three draws; no search, no report): cleanup,
                           finalize, or one of their passes: remove-identities, fold-batchnorm,
                           eliminate-dead-nodes, fold-weights, eliminate-common-subexpressions,
                           sink-layouts, eliminate-layout-chains, fuse-conv-bias,
                           fuse-corrections, sink-layouts-below-corrections,
                           fuse-activations
  --emit-ir                write textual IR whatever the output is named (default output:
                           MODEL.opt.pet)
  --mode MODE              none: cleanup and finalize passes only;
                           taso: TASO-only, Z3-proved rules alone (no mutants);
                           pet-eq-only: proved rules and fully equivalent mutants;
                           pet: pet-eq-only's moves, then partially equivalent mutants with
                           their corrections as well (default);
                           pet-neq-only: corrected partial mutants only
  --beam N                 programs kept per search round, N >= 1 (default 8)
  --taso-search ALGO       taso mode: alpha, TASO's relaxed best-first search, or beam
                           (default alpha)
  --alpha X                alpha search: keep programs costing up to X times the best (1.05)
  --time-limit SECONDS     wall clock for the search (default 100; mutant generation, which
                           --mutant-work bounds, comes first and is not counted); it then stops
                           with the best program found. A backstop: the budgets below end a
                           search at the same place on every machine
  --max-expansions N       programs expanded over the whole search (default 2000)
  --max-candidates N       programs scored over the whole search (default 20000)
  --search-work N          nodes of the candidate programs built, summed over the whole
                           search: large graphs stop here (default 2000000)
  --mutant-work N          elements the mutant generator's Z_p evaluations may read, shared
                           by the subprograms, a parallel group two shares (default 2500000000)
  --scored-per-expansion N mutant moves scored per expanded program, best estimated gain
                           first, 0 for all (default 32)
  --stage-size N           convs per stage move: one mutant family at every conv of a chain
                           joined by Relu and biases, its layouts cancelling between them
                           (default 4, PET's; 0 or 1: no stage moves)
  --mutation-rounds N      mutants of mutants, per subprogram (default 2)
  --top-k N                mutants kept per subprogram and round, by cost (default 4)
  --jobs N                 threads generating mutants and scoring candidates (default: all
                           cores, one while a measured target is timing); the output does not
                           depend on it
  --target NAME|FILE       what to optimize for: ort-cpu (ONNX Runtime, CPU) or openvino-cpu
                           (OpenVINO, CPU), measured on this machine; or h100, a100, v100 or a
                           GPU spec file, estimated (default ort-cpu)
  --threads N              the runtime's threads the model is optimized for (default: all cores)
  --portable               write standard ONNX ops only; without it, openvino-cpu models carry
                           pet's fused correction as one op of the ONNX domain ai.pet, which
                           OpenVINO runs with pet's extension (core.add_extension(
                           "libpet_openvino_extension.so"))
  --emit-kernels DIR       GPU targets: write each correction of the written model as the CUDA
                           source of one fused kernel (DIR/<kernel>.cu) and DIR/manifest.json
                           naming the node and patch it fills, its launch shape, parameters and
                           boxes; ort-cpu writes corrections as the standard ops it runs fastest
                           (Slices and Concats, one ScatterND, or Pad and Where), timed per node
  --profile-db FILE        measured times, read and extended (default for a measured target:
                           ~/.cache/pet/profile-db.json; for a GPU spec: the repository's DB)
  --replay                 read the profile DB only: nothing is timed, the output is reproducible
  --remeasure              measured targets: time every kernel group, calibration run and program
                           again, ignoring what the profile DB holds, and save the new times over
                           it (for a DB recorded under load: the run then warns that it looks stale)
  --select K               best programs timed end to end against the input (default 3)
  --select-runs N          timed rounds of that comparison, interleaved (default 10)
  --measured-search S      measured targets: the beam follows its programs' end-to-end times in the
                           runtime (timed beside the cleaned input, kept in the profile DB) when
                           that is expected to take at most S seconds, else the cost model's
                           predictions; 0 for predictions always (default 90)
  --calibration MODE       measured targets: in-context, the cost model's per-kernel scales fitted on
                           the cleaned input run whole under the runtime's profiler (its
                           neighbours, caches and fusions), or standalone, kernel groups timed
                           alone as they are (default in-context)
  --rules DIR              rule library folder (default: the repository's mutant/rules)
  --input-shape NAME=DIMS  static shape for an input with symbolic dims, e.g. input=1x3x224x224
                           (repeat for several inputs)
  --seed N                 seed for every random draw, including the final check (default 2026)
  --report-times           add wall-clock times to the JSON report (it is otherwise byte-identical
                           from run to run)
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
