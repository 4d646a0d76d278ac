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

# Before: the entries say proved. After: each says refuted (rewritten whole, with its payload's
# hash, as the store writes it), and the third run takes that answer.
for entry in $(find "$work/store" -name '*.entry'); do
  python3 - "$entry" <<'PY'
import json, struct, sys

def content_hash(data: bytes) -> int:
    """core/hash.h's Hasher over one string: its length, then its bytes (words, then the tail)."""
    mask, prime = (1 << 64) - 1, 0x100000001b3
    state = 0xcbf29ce484222325
    def words(chunk):
        nonlocal state
        for i in range(0, len(chunk) - len(chunk) % 8, 8):
            state = ((state ^ struct.unpack("<Q", chunk[i:i + 8])[0]) * prime) & mask
            state ^= state >> 29
        for byte in chunk[len(chunk) - len(chunk) % 8:]:
            state = ((state ^ byte) * prime) & mask
    words(struct.pack("<Q", len(data)))
    words(data)
    x = state ^ (state >> 30)
    x = (x * 0xbf58476d1ce4e5b9) & mask
    x ^= x >> 27
    x = (x * 0x94d049bb133111eb) & mask
    return x ^ (x >> 31)

# core/content_store.cpp's entry: a header line, "<key bytes> <payload bytes> <payload hash>", the
# key, the payload.
data = open(sys.argv[1], "rb").read()
header, sizes, rest = data.split(b"\n", 2)
key_size = int(sizes.split()[0])
assert sizes.split()[2] == b"%016x" % content_hash(rest[key_size:]), "the store's hash is not core/hash.h's"
answer = json.loads(rest[key_size:])
answer["status"], answer["reason"], answer["axioms_used"] = "refuted", "changed on disk by proof_store_test.sh", []
payload = json.dumps(answer).encode()
sizes = b"%d %d %016x" % (key_size, len(payload), content_hash(payload))
open(sys.argv[1], "wb").write(header + b"\n" + sizes + b"\n" + rest[:key_size] + payload)
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
