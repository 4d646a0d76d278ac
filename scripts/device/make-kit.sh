#!/usr/bin/env bash
# Packs what a GPU check needs into .device/kit.tar.xz: the GPU binaries of a CUDA build, the few
# Debian libraries they load, weight-free work files (each model as textual IR whose weights the
# parser regenerates, with seeded inputs and the outputs pet's CPU executor computes here), and a
# manifest. cuDNN, cuBLAS(Lt) and NVRTC stay behind: the device has them in its torch environment
# (scripts/device/session.sh finds them there).
#
#   bash scripts/device/make-kit.sh [--build DIR] [--out DIR] [--target h100|h200] [--written] [--b16] [--misses]
#                                   [--jobs N]
#   bash scripts/device/make-kit.sh --refresh-binaries [--build DIR] [--out DIR]
#
# Work files: the executor's test models (tests/kernels/gpu/executor_models/) and, where the
# build has exported them (build/models), the nine evaluation models at batch 1. --written adds
# pet's written models of those nine (pet-opt --target <target> --replay on their weight-free forms,
# modes pet and taso) under work-written/, which the session's
# `written` stage checks, each with pet-opt's report.json (its transformations, which the e2e stage
# attaches to its results).
# --b16 adds the same models at batch 16 where exported (models/export_models.py --batch 16) as
# model.pet only (work/<model>_b16/, and work-written/<model>_b16.<mode>/ with --written): the e2e
# stage times them from seeded inputs, so no input or reference travels (--written --b16: 36
# pet-opt runs, 44 minutes on two cores one at a time on 2026-11-29).
# --misses adds what bench/profiles/<target>.json lacks for those nine at batch 1 and 16 (where
# exported: models/export_models.py --batch 16), modes taso and pet (pet-opt --target <target> --replay
# --export-misses on their weight-free forms), as one misses file,
# misses/misses.jsonl with its weight-free models in misses/misses.jsonl.models/, which the
# session's `measure` stage times (pet-gpu measure) and pet-profile --import brings home (on
# 2026-11-28 `--target h200 --b16 --misses --jobs 2` took 29 minutes on two cores, beside a CI run).
# --jobs N runs N pet-opt runs at once, of the written models and of the misses exports, their
# results taken in the same order whatever the order they finish in.
# --target names the card the check will run on (default h100; the machines lent here are H200s):
# the written models and the misses are pet-opt's for that target, and the timings import into its
# profile DB (bench/profiles/<target>.json).
# --refresh-binaries takes the kit already at DIR/kit.tar.xz and replaces its binaries and
# libraries with this build's and its executor test models with this checkout's, keeping the
# evaluation models, written models and misses (minutes instead of the hour --misses takes), for a
# build whose pet-opt would write the same models.
#
# Fails, naming the cause, when a binary is missing, a binary needs a library that is neither
# carried, CUDA's nor the base system's, a binary needs a newer glibc/libstdc++ than the device
# image has, or the compressed kit exceeds its size limit.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=build
out=.device
written=0
b16=0
misses=0
refresh=0
jobs=1
target=h100
work_commit=""
# The checkout as the kit starts: a kit built for an hour beside later commits names the one it began at.
# Untracked files count as changes: the build reads a new source file before it is committed.
kit_commit="$(git rev-parse HEAD 2>/dev/null || echo unknown)$([[ -z "$(git status --porcelain --untracked-files=all 2>/dev/null)" ]] || echo ' (with uncommitted changes)')"
while (($#)); do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --written) written=1; shift ;;
    --b16) b16=1; shift ;;
    --misses) misses=1; shift ;;
    --refresh-binaries) refresh=1; shift ;;
    --jobs)
      [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "make-kit: --jobs takes a positive count, got '${2:-}'" >&2; exit 2; }
      jobs="$2"; shift 2 ;;
    --target)
      [[ "${2:-}" == h100 || "${2:-}" == h200 ]] || { echo "make-kit: --target takes h100 or h200, got '${2:-}'" >&2; exit 2; }
      target="$2"; shift 2 ;;
    -h|--help) sed -n '2,37p' "$0"; exit 0 ;;
    *) echo "make-kit: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

readonly max_kit_bytes=$((40 * 1024 * 1024))
# The oldest device image: glibc 2.35, libstdc++ of GCC 12 (GLIBCXX_3.4.30).
readonly max_glibc=2.35 max_glibcxx=3.4.30

# Built by tools/ and tests/ with -DPET_BUILD_CUDA=ON; pet-opt and pet-profile for the live stage
# (pet-opt --live on the card, pet-gpu worker beside it).
binaries=(
  tools/pet-gpu tools/pet-devices tools/pet-opt tools/pet-profile
  tests/pet_kernels_tests tests/pet_cuda_emit_tests
  tests/kernels/gpu/pet_gpu_executor_tests tests/kernels/gpu/pet_gpu_codegen_tests
)
evaluation_models=(resnet18 resnet50 inception_v3_299 inception_v3_330 csrnet csrnet_backend bert_s128 bert_s512 r3d_18)
# Loaded from the device's own CUDA installation (torch's nvidia-* wheels, the driver).
cuda_from_device='^(libcublas|libcublasLt|libcudnn[a-z_]*|libnvrtc[a-z-]*|libcuda|libnvidia-[a-z-]*)\.so'
# Present on every glibc-based image.
base_system='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libz)\.so'
# Carried from this machine: Debian's fmt, protobuf, onnx, our CUDA runtime, and what they load;
# pet-opt's Z3 and OpenVINO (linked, never opened on the card) with its TBB.
carried_allowed='^(libfmt|libprotobuf|libonnx|libonnx_proto|libcudart|libz3|libopenblas|libgfortran|libquadmath|libgomp|libopenvino|libtbb)\.so'

fail() { echo "make-kit: $*" >&2; exit 1; }

for binary in "${binaries[@]}"; do
  [[ -x "$build/$binary" ]] || fail "$build/$binary is missing; build with -DPET_BUILD_CUDA=ON first (bash scripts/test.sh)"
done

if ((refresh && (written || b16 || misses))); then fail "--refresh-binaries keeps the kit's work files; it takes no --written, --b16 or --misses"; fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
if ((refresh)); then
  [[ -f "$out/kit.tar.xz" ]] || fail "--refresh-binaries: no kit at $out/kit.tar.xz to refresh"
  tar -C "$stage" -xJf "$out/kit.tar.xz" || fail "--refresh-binaries: $out/kit.tar.xz does not unpack"
  rm -rf "$stage/kit/bin" "$stage/kit/lib"
  # The commit the work files were made at: a refreshed kit's own record of it, else the kit's commit.
  work_commit=$(sed -n 's/^work files from the kit of //p' "$stage/kit/MANIFEST" | head -1)
  [[ -n "$work_commit" ]] || work_commit=$(sed -n 's/^commit //p' "$stage/kit/MANIFEST" | head -1)
  target=$(sed -n 's/^target \([a-z0-9]*\) .*/\1/p' "$stage/kit/MANIFEST" | head -1)
  target=${target:-h100}
fi
mkdir -p "$stage/kit/bin" "$stage/kit/lib"

for binary in "${binaries[@]}"; do
  strip --strip-unneeded -o "$stage/kit/bin/$(basename "$binary")" "$build/$binary"
done

# Sort every library the binaries load (ldd lists the whole closure) into the three kinds.
declare -A carried=()
for binary in "${binaries[@]}"; do
  while read -r name path; do
    if [[ "$name" =~ $base_system || "$name" =~ $cuda_from_device ]]; then continue; fi
    [[ "$name" =~ $carried_allowed ]] ||
      fail "$binary loads $name ($path), which is neither carried, CUDA's nor the base system's; add it to carried_allowed only if it is small and portable"
    [[ -f "$path" ]] || fail "$binary loads $name, which ldd could not resolve here"
    carried[$name]=$path
  done < <(ldd "$build/$binary" | awk '/=>/ {print $1, $3} !/=>/ {sub(/^.*\//, "", $1); print $1, ""}')
done
for name in "${!carried[@]}"; do
  cp -L "${carried[$name]}" "$stage/kit/lib/$name"
  strip --strip-unneeded "$stage/kit/lib/$name" 2>/dev/null || true
done

# What pet-opt reads at run time (core/data_path.h, PET_DATA_DIR=<kit>/data there): the rule library.
rm -rf "$stage/kit/data"
mkdir -p "$stage/kit/data/mutant/rules"
cp mutant/rules/library-*.json "$stage/kit/data/mutant/rules/"

# The card's earlier convolution decisions (each committed conv-cache.tsv of a check on a <target>,
# oldest first, every line once): the session's loads take them instead of timing those plans again.
results_root=${PET_KIT_RESULTS:-bench/results}  # the tests point it elsewhere
decision_files=$(shopt -s nullglob; printf '%s\n' "$results_root"/*-"$target"/conv-cache.tsv \
  "$results_root"/*-"$target"/*/conv-cache.tsv | sort)
rm -f "$stage/kit/conv-cache.tsv"
if [[ -n "$decision_files" ]]; then
  # shellcheck disable=SC2086  # one path per line, none with spaces (bench/results/<date>-<card>/...)
  awk '!seen[$0]++' $decision_files > "$stage/kit/conv-cache.tsv"
fi

# torch.compile's artifacts from earlier checks on a <target> (bench/gpu/compile_cache.py: each
# returned torch-compile/<torch version>--<card>/<model>_b<batch>.bin, the newest check's file of a
# model and batch kept): the compile and e2e stages load them before each model compiles.
rm -rf "$stage/kit/torch-compile"
compile_folders=$(shopt -s nullglob; printf '%s\n' "$results_root"/*-"$target"/torch-compile \
  "$results_root"/*-"$target"/*/torch-compile | sort)
for folder in $compile_folders; do
  mkdir -p "$stage/kit/torch-compile"
  cp -r "$folder"/. "$stage/kit/torch-compile/"
done

# The newest symbol versions anything in the kit asks for, against the oldest device image.
newest_version() {  # $1: GLIBC or GLIBCXX
  objdump -T "$stage"/kit/bin/* "$stage"/kit/lib/* 2>/dev/null | grep -o "$1_[0-9.]*" | sed "s/^$1_//" |
    sort -V | tail -1
}
glibc=$(newest_version GLIBC)
glibcxx=$(newest_version GLIBCXX)
[[ $(printf '%s\n%s\n' "$glibc" "$max_glibc" | sort -V | tail -1) == "$max_glibc" ]] ||
  fail "the kit needs GLIBC_$glibc; the device image has $max_glibc"
[[ $(printf '%s\n%s\n' "$glibcxx" "$max_glibcxx" | sort -V | tail -1) == "$max_glibcxx" ]] ||
  fail "the kit needs GLIBCXX_$glibcxx; the device image has $max_glibcxx"

# Weight-free work files: work/<model>/model.pet with its seeded inputs and reference outputs.
write_work() {  # name, model file[, work folder]
  "$build/tools/pet-gpu" reference "$2" --out "$stage/kit/${3:-work}/$1" --weight-free --seed 2026 >/dev/null ||
    fail "pet-gpu reference --weight-free failed on $2"
}
# The weight-free model alone (work/<name>/model.pet), for folders timed from seeded inputs.
write_model_only() {  # name, model file, work folder
  write_work reference "$2" scratch
  mkdir -p "$stage/kit/$3/$1"
  cp "$stage/kit/scratch/reference/model.pet" "$stage/kit/$3/$1/model.pet"
  rm -rf "$stage/kit/scratch"
}
# The weight-free form of an evaluation model (the kit's work/<name>/model.pet where the kit has it):
# what pet-opt reads for the written models and the misses, as the live stage's pet-opt --live does
# on the card, so the profile DB's model keys (hashes of the graph, its weights included) are the
# same on both sides and a replay here reproduces a choice made there.
weight_free_model() {  # name (<model>_b<batch>), model file: prints the .pet's path
  local name=${1%_b1} folder
  if [[ -f "$stage/kit/work/$name/model.pet" ]]; then echo "$stage/kit/work/$name/model.pet"; return; fi
  folder="$stage/weight-free/$name"
  mkdir -p "$folder"
  "$build/tools/pet-gpu" reference "$2" --out "$folder" --weight-free --seed 2026 >/dev/null ||
    fail "pet-gpu reference --weight-free failed on $2"
  echo "$folder/model.pet"
}
# The instance proofs of the kit's pet-opt runs (verifier/z3/proof_store.h): the live stage's
# pet-opt, the same binary, recalls them on the card's machine instead of proving them again.
export PET_PROOF_CACHE="$stage/kit/proofs"
# pet-opt runs, up to --jobs at once: each in the background, its output in PREFIX.log and its
# outcome in PREFIX.status; the caller waits, then reads the outcomes in its own order.
start_pet_opt() {  # prefix, pet-opt arguments...
  local prefix=$1
  shift
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  { if "$build/tools/pet-opt" "$@" > "$prefix.log" 2>&1; then echo 0; else echo 1; fi > "$prefix.status"; } &
}
require_success() {  # prefix, what ran: fails with the run's last lines unless it succeeded
  [[ "$(cat "$1.status" 2>/dev/null)" == 0 ]] || fail "$2 failed: $(tail -n 3 "$1.log" 2>/dev/null)"
}
# pet's written model of one evaluation model in one mode (from its weight-free form), with its
# report.json beside it: the pet-opt run, then, one at a time and in a fixed order, its work folder.
written_runs=()
start_written() {  # folder name, model file, mode, writer (write_work or write_model_only)
  start_pet_opt "$stage/$1.$3" "$2" --target "$target" --replay --mode "$3" -o "$stage/$1.$3.onnx" \
    --report "$stage/$1.$3.json"
  written_runs+=("$1|$2|$3|$4")
}
finish_written() {  # each run's work folder under work-written/, in the order they were started
  local entry name file mode writer
  wait
  for entry in "${written_runs[@]}"; do
    IFS='|' read -r name file mode writer <<< "$entry"
    require_success "$stage/$name.$mode" "pet-opt --target $target --mode $mode on $file"
    "$writer" "$name.$mode" "$stage/$name.$mode.onnx" work-written
    cp "$stage/$name.$mode.json" "$stage/kit/work-written/$name.$mode/report.json"
  done
}
# The executor's test models are small and follow this checkout, so a refresh writes them again too.
for model in tests/kernels/gpu/executor_models/*.pet; do
  rm -rf "$stage/kit/work/$(basename "$model" .pet)"
  write_work "$(basename "$model" .pet)" "$model"
done
((refresh)) || for model in "${evaluation_models[@]}"; do
  file="$build/models/${model}_b1/model.onnx"
  if [[ ! -f "$file" ]]; then
    echo "make-kit: $file is not exported (models/export_models.py); the kit leaves $model out" >&2
    continue
  fi
  write_work "$model" "$file"
  if [[ $written == 1 ]]; then
    for mode in pet taso; do start_written "$model" "$stage/kit/work/$model/model.pet" "$mode" write_work; done
  fi
  file16="$build/models/${model}_b16/model.onnx"
  if [[ $b16 == 1 && -f "$file16" ]]; then
    write_model_only "${model}_b16" "$file16" work
    if [[ $written == 1 ]]; then
      for mode in pet taso; do
        start_written "${model}_b16" "$stage/kit/work/${model}_b16/model.pet" "$mode" write_model_only
      done
    fi
  elif [[ $b16 == 1 ]]; then
    echo "make-kit: $file16 is not exported (models/export_models.py --batch 16); the kit leaves ${model}_b16 out" >&2
  fi
done
((refresh)) || finish_written

# The misses of bench/profiles/<target>.json: one pet-opt run per model, batch and mode, up to
# --jobs of them at once, each into its own file; then, in a fixed order (batch, model, mode),
# every run's requests appended to one file (a request two runs share is kept once) and their
# models copied into one folder (named by content, so shared ones merge).
if [[ $misses == 1 && $refresh == 0 ]]; then
  mkdir -p "$stage/misses-runs" "$stage/kit/misses/misses.jsonl.models"
  : > "$stage/misses-runs/all.jsonl"
  runs=()
  for batch in 1 16; do
    for model in "${evaluation_models[@]}"; do
      file="$build/models/${model}_b$batch/model.onnx"
      [[ -f "$file" ]] || { echo "make-kit: $file is not exported; the misses leave it out" >&2; continue; }
      file=$(weight_free_model "${model}_b$batch" "$file")
      for mode in taso pet; do
        name="${model}_b$batch.$mode"
        start_pet_opt "$stage/misses-runs/$name" "$file" --target "$target" --replay --mode "$mode" \
          --export-misses "$stage/misses-runs/$name.jsonl" -o "$stage/misses-runs/$name.out.onnx"
        runs+=("$name|$file")
      done
    done
  done
  wait
  for entry in "${runs[@]}"; do
    name=${entry%%|*}
    require_success "$stage/misses-runs/$name" "pet-opt --target $target --export-misses on ${entry#*|} ($name)"
    cp -n "$stage/misses-runs/$name.jsonl.models/"* "$stage/kit/misses/misses.jsonl.models/" 2>/dev/null || true
    sed 's/^{"id":[0-9]*,/{/' "$stage/misses-runs/$name.jsonl" >> "$stage/misses-runs/all.jsonl"
  done
  # In the order the card's short time wants them, each kernel group once (scripts/device/order_misses.py).
  python3 scripts/device/order_misses.py < "$stage/misses-runs/all.jsonl" > "$stage/kit/misses/misses.jsonl"
fi

{
  echo "pet GPU kit"
  echo "commit $kit_commit"
  # What the work files are: prepare-check.sh keeps a kit whose commit and this line match its own.
  if ((refresh)); then
    echo "made with make-kit.sh --refresh-binaries"
  else
    echo "made with make-kit.sh --target $target$( ((written)) && echo " --written")$( ((b16)) && echo " --b16")$( ((misses)) && echo " --misses")"
  fi
  [[ -n "$work_commit" ]] && echo "work files from the kit of $work_commit"

  echo "target $target (written models and misses)"
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), from $build"
  echo "needs at most GLIBC_$glibc, GLIBCXX_$glibcxx"
  echo "from the device: libcublas, libcublasLt, libcudnn*, libnvrtc*, libcuda (driver)"
  [[ -f "$stage/kit/conv-cache.tsv" ]] &&
    echo "convolution decisions: $(wc -l < "$stage/kit/conv-cache.tsv") lines from earlier checks on a $target"
  [[ -d "$stage/kit/torch-compile" ]] &&
    echo "torch.compile artifacts: $(find "$stage/kit/torch-compile" -name '*.bin' | wc -l) model-batches from earlier checks on a $target"
  [[ -d "$stage/kit/proofs" ]] &&
    echo "proof store: $(find "$stage/kit/proofs" -name '*.entry' | wc -l) instance proofs of the kit's pet-opt runs"
  (cd "$stage/kit" && find bin lib data work* $([[ -d misses ]] && echo misses) $([[ -f conv-cache.tsv ]] && echo conv-cache.tsv) \
    $([[ -d torch-compile ]] && echo torch-compile) -type f -printf '%p %s\n' | sort)
} > "$stage/kit/MANIFEST"

mkdir -p "$out"
tar -C "$stage" -cf - kit | xz -6 -T0 > "$stage/kit.tar.xz"
size=$(stat -c %s "$stage/kit.tar.xz")
((size <= max_kit_bytes)) || fail "the kit is $((size / 1048576)) MiB compressed, over its $((max_kit_bytes / 1048576)) MiB limit"
mv "$stage/kit.tar.xz" "$out/kit.tar.xz"
cp "$stage/kit/MANIFEST" "$out/MANIFEST"
echo "make-kit: $out/kit.tar.xz, $((size / 1024)) KiB: ${#binaries[@]} binaries, $(ls "$stage/kit/work" | wc -l) work models, $(ls "$stage/kit/work-written" 2>/dev/null | wc -l) written models, $(cat "$stage/kit/misses/misses.jsonl" 2>/dev/null | wc -l) timing requests, ${#carried[@]} carried libraries ($(printf '%s ' "${!carried[@]}" | xargs -n1 | sort | xargs)), GLIBC_$glibc, GLIBCXX_$glibcxx"
