#!/usr/bin/env bash
# kit-is-current.sh, the decision prepare-check.sh makes before it spends twenty minutes on a kit:
# a kit made at this commit with these flags is kept; a changed or untracked file, another commit,
# other flags or a missing file each remake it, and the reason says which.
set -uo pipefail
cd "$(dirname "$0")/../.."
script=$PWD/scripts/device/kit-is-current.sh
fail() { echo "FAILED: $*"; exit 1; }
repo=$(mktemp -d)
trap 'rm -rf "$repo"' EXIT

cd "$repo"
git init -q . && git config user.email t@example.com && git config user.name test
printf '/.device/\n/build/\n' > .gitignore
echo 'int main() {}' > main.cpp
git add .gitignore main.cpp && git commit -qm one
head=$(git rev-parse HEAD)
mkdir .device && echo kit > .device/kit.tar.xz
printf 'pet GPU kit\ncommit %s\nmade with make-kit.sh --target h200 --written --b16\n' "$head" > .device/MANIFEST

expect() {  # expected exit status, expected output, flags...
  local status=$1 expected=$2 out got
  shift 2
  out=$(bash "$script" .device "$@")
  got=$?
  ((got == status)) || fail "exit $got, not $status, with '$out' ($*)"
  [[ "$out" == "$expected" ]] || fail "'$out', expected '$expected' ($*)"
}

# Before: the kit of this commit, made with these flags → kept.
expect 0 current --target h200 --written --b16
# Ignored files (a build, the kit itself) do not count.
mkdir build && echo x > build/out.o
expect 0 current --target h200 --written --b16
# Other flags → remade.
expect 1 "made with 'make-kit.sh --target h200 --written --b16', this check needs 'make-kit.sh --target h200 --written --b16 --misses'" \
  --target h200 --written --b16 --misses
# An untracked source file → remade (the build reads it, the device tool carries it).
echo 'int f();' > new.cpp
expect 1 "the work tree differs from HEAD (changed or untracked: new.cpp)" --target h200 --written --b16
rm new.cpp
# A changed tracked file → remade.
echo '// edited' >> main.cpp
expect 1 "the work tree differs from HEAD (changed or untracked: main.cpp)" --target h200 --written --b16
git checkout -q main.cpp
# A later commit → remade.
echo 'int g();' > g.cpp && git add g.cpp && git commit -qm two
expect 1 "made at $head, the checkout is $(git rev-parse HEAD)" --target h200 --written --b16
# A kit made with uncommitted changes names its commit so, and never matches.
sed -i "s/^commit .*/commit $(git rev-parse HEAD) (with uncommitted changes)/" .device/MANIFEST
expect 1 "made at $(git rev-parse HEAD) (with uncommitted changes), the checkout is $(git rev-parse HEAD)" --target h200 --written --b16
# A missing archive or manifest → remade.
sed -i "s/^commit .*/commit $(git rev-parse HEAD)/" .device/MANIFEST
expect 0 current --target h200 --written --b16
rm .device/kit.tar.xz
expect 1 "no kit: .device/kit.tar.xz is missing" --target h200 --written --b16
echo kit > .device/kit.tar.xz && rm .device/MANIFEST
expect 1 "no manifest: .device/MANIFEST is missing" --target h200 --written --b16
echo "kit-is-current: keep and remake decisions ok"
