#!/usr/bin/env bash
# The proof store between pet-opt runs (verifier/z3/proof_store.h): a first run proves its rule
# instances and writes one entry each; a second run recalls them and writes the same model and
# report; entries changed on disk are what a third run believes (so it reads them); PET_PROOF_CACHE=off
# writes nothing.
#   bash tests/search/proof_store_test.sh PET_OPT
set -euo pipefail
pet_opt=$1
model=tests/kernels/gpu/executor_models/attention.pet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/xdg"
fail() { echo "FAILED: $*" >&2; exit 1; }
run() {  # name, then environment assignments: pet-opt on the model, report and text kept
  local name=$1
  shift
  env "$@" "$pet_opt" "$model" --mode taso --target v100 -o "$work/$name.onnx" --report "$work/$name.json" > "$work/$name.txt" 2>&1 ||
    fail "pet-opt ($name): $(tail -n 3 "$work/$name.txt")"
}
without_clock() { sed -E 's/[0-9]+\.[0-9]+ s(,|$)/T s\1/g' "$1" | grep -v '^  wrote '; }

run first PET_PROOF_CACHE="$work/store"
entries=$(find "$work/store" -name '*.entry' | wc -l)
proofs=$(sed -n 's/.*rules: [0-9]* applications, \([0-9]*\) proofs.*/\1/p' "$work/first.txt")
echo "first run: $proofs proofs, $entries entries in the store"
((entries > 0)) || fail "the first run left no entry in the store"
((entries <= proofs)) || fail "$entries entries for $proofs proofs"
[[ ! -e "$XDG_CACHE_HOME/pet/proofs" ]] || fail "PET_PROOF_CACHE was set, yet the user cache got proofs"

run second PET_PROOF_CACHE="$work/store"
cmp -s "$work/first.onnx" "$work/second.onnx" || fail "the second run wrote another model"
diff <(without_clock "$work/first.txt") <(without_clock "$work/second.txt") || fail "the second run reported otherwise"
echo "second run: the same model and report from the store"

# Before: the entries say proved. After: each says refuted, and the third run takes that answer.
for entry in $(find "$work/store" -name '*.entry'); do
  python3 - "$entry" <<'PY'
import json, sys
# core/content_store.cpp's entry: a header line, "<key bytes> <payload bytes>", the key, the payload.
data = open(sys.argv[1], "rb").read()
header, lengths, rest = data.split(b"\n", 2)
key_size = int(lengths.split()[0])
answer = json.loads(rest[key_size:])
answer["status"], answer["reason"], answer["axioms_used"] = "refuted", "changed on disk by proof_store_test.sh", []
payload = json.dumps(answer).encode()
open(sys.argv[1], "wb").write(header + b"\n" + b"%d %d\n" % (key_size, len(payload)) + rest[:key_size] + payload)
PY
done
run third PET_PROOF_CACHE="$work/store"
grep -q "changed on disk by proof_store_test.sh" "$work/third.txt" || fail "the third run did not read the changed entries"
grep -q "rules: 0 applications" "$work/third.txt" || fail "a refuted instance was still applied"
echo "third run: the changed entries were read ($(grep -c 'rule not proved' "$work/third.txt") instances not proved)"

# A torn entry reads as none: the fourth run proves again and writes it whole, which the next reads.
for entry in $(find "$work/store" -name '*.entry'); do truncate -s -5 "$entry"; done
run fourth PET_PROOF_CACHE="$work/store"
cmp -s "$work/first.onnx" "$work/fourth.onnx" || fail "torn entries changed the written model"
diff <(without_clock "$work/first.txt") <(without_clock "$work/fourth.txt") || fail "torn entries changed the report"
run after_torn PET_PROOF_CACHE="$work/store"
if grep -q "changed on disk" "$work/after_torn.txt"; then fail "the torn entries were not written again"; fi
echo "fourth run: torn entries proved again and rewritten"

run fifth PET_PROOF_CACHE=off
[[ ! -e "$XDG_CACHE_HOME/pet/proofs" ]] || fail "PET_PROOF_CACHE=off wrote the user cache"
run sixth
[[ -n "$(find "$XDG_CACHE_HOME/pet/proofs" -name '*.entry' 2>/dev/null)" ]] || fail "no store in \$XDG_CACHE_HOME/pet/proofs by default"
echo "off: nothing written; unset: the user cache's proofs/"
echo "proof store: ok"
