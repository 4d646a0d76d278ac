#!/usr/bin/env bash
# replay-live.sh reads a live run's choice and its replay's whole, so a choice of two words
# ("program 2") is compared as one: a replay that makes it is ok, one that makes another choice or
# estimates a cost DIFFERS and fails the script. pet-opt here is a stand-in that writes the report
# a replay would (its choice and estimate from $FAKE_CHOICE and $FAKE_ESTIMATED).
set -uo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAILED: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/kit/work/resnet18" "$work/build/tools" "$work/check/live" "$work/models"
printf 'target h200 (pet-gpu)\n' > "$work/kit/MANIFEST"
echo 'graph "g" opset 13 {}' > "$work/kit/work/resnet18/model.pet"
tar -C "$work" -cJf "$work/kit.tar.xz" kit
cat > "$work/build/tools/pet-opt" <<'FAKE'
#!/usr/bin/env bash
while (($#)); do
  case "$1" in
    --report) report="$2"; shift 2 ;;
    -o) touch "$2"; shift 2 ;;
    *) shift ;;
  esac
done
printf '{"target": {"kernel_costs": {"estimated": %s}}, "chosen": "%s"}\n' "$FAKE_ESTIMATED" "$FAKE_CHOICE" > "$report"
FAKE
chmod +x "$work/build/tools/pet-opt"
printf '{"model": "/tmp/x/kit/work/resnet18/model.pet", "mode": "pet", "chosen": "program 2"}\n' \
  > "$work/check/live/resnet18.pet.json"
replay() { bash scripts/device/replay-live.sh "$work/check" --kit "$work/kit.tar.xz" --db "$work/db.json" \
             --build "$work/build" --models "$work/models" > "$work/stdout" 2>&1; }

# Before: the live run chose "program 2". After: the replay's "program 2", nothing estimated: ok.
FAKE_CHOICE="program 2" FAKE_ESTIMATED=0 replay || fail "a matching replay failed: $(cat "$work/stdout")"
[[ $(cat "$work/check/replay-live.txt") == "resnet18.pet: live chose program 2, the replay program 2 with 0 costs estimated: ok" ]] ||
  fail "replay-live.txt: $(cat "$work/check/replay-live.txt")"

# Another program of the same first word, or a cost estimated: DIFFERS, and the script fails.
FAKE_CHOICE="program 3" FAKE_ESTIMATED=0 replay && fail "a replay choosing program 3 passed"
grep -q "the replay program 3 with 0 costs estimated: DIFFERS" "$work/check/replay-live.txt" || fail "$(cat "$work/check/replay-live.txt")"
FAKE_CHOICE="program 2" FAKE_ESTIMATED=4 replay && fail "a replay estimating 4 costs passed"
grep -q "the replay program 2 with 4 costs estimated: DIFFERS" "$work/check/replay-live.txt" || fail "$(cat "$work/check/replay-live.txt")"
echo "replay-live: two-word choices compared whole, estimates caught"
