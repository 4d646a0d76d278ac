#!/usr/bin/env bash
# Says whether the GPU kit in a folder was made from exactly this checkout with these make-kit flags.
#
#   bash scripts/device/kit-is-current.sh KIT_DIR MAKE_KIT_FLAGS...
#
# Exit 0 and "current" when KIT_DIR holds kit.tar.xz and a MANIFEST naming the checked-out commit
# and "made with make-kit.sh FLAGS", and the work tree has nothing git would carry that HEAD lacks:
# no changed tracked file and no untracked file outside .gitignore (the device tool carries both,
# and make-kit builds from both). Otherwise exit 1 and one line saying why. prepare-check.sh keeps
# a current kit and remakes any other.
set -uo pipefail

(($# >= 1)) || { echo "kit-is-current: usage: kit-is-current.sh KIT_DIR MAKE_KIT_FLAGS..." >&2; exit 2; }
kit_dir=$1
shift
flags="$*"

not_current() { echo "$*"; exit 1; }

[[ -f "$kit_dir/kit.tar.xz" ]] || not_current "no kit: $kit_dir/kit.tar.xz is missing"
[[ -f "$kit_dir/MANIFEST" ]] || not_current "no manifest: $kit_dir/MANIFEST is missing"
head=$(git rev-parse HEAD 2>/dev/null) || not_current "not a git checkout: $(pwd)"
changed=$(git status --porcelain --untracked-files=all 2>/dev/null | head -3 | cut -c4- | paste -sd ' ')
[[ -z "$changed" ]] || not_current "the work tree differs from HEAD (changed or untracked: $changed)"
kit_commit=$(sed -n 's/^commit //p' "$kit_dir/MANIFEST" | head -1)
[[ "$kit_commit" == "$head" ]] || not_current "made at ${kit_commit:-an unnamed commit}, the checkout is $head"
made_with=$(sed -n 's/^made with //p' "$kit_dir/MANIFEST" | head -1)
[[ "$made_with" == "make-kit.sh $flags" ]] ||
  not_current "made with '${made_with:-no flags recorded}', this check needs 'make-kit.sh $flags'"
echo "current"
