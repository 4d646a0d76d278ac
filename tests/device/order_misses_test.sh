#!/usr/bin/env bash
# order-misses.sh: before, requests in the order the runs asked them (groups first, one asked twice);
# after, selection → in-context → ranked → kernel groups, each kind in asked order, once each, numbered.
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "order_misses_test: $*" >&2; exit 1; }

asked='{"target":"h100","kind":"kernel-groups","keys":["g1"]}
{"target":"h100","kind":"in-context","keys":["c1"]}
{"target":"h100","kind":"kernel-groups","keys":["g2"]}
{"target":"h100","kind":"selection","keys":["s1"]}
{"target":"h100","kind":"ranked","keys":["r1"]}
{"target":"h100","kind":"kernel-groups","keys":["g1"]}
{"target":"h100","kind":"selection","keys":["s2"]}'
expected='{"id":1,"target":"h100","kind":"selection","keys":["s1"]}
{"id":2,"target":"h100","kind":"selection","keys":["s2"]}
{"id":3,"target":"h100","kind":"in-context","keys":["c1"]}
{"id":4,"target":"h100","kind":"ranked","keys":["r1"]}
{"id":5,"target":"h100","kind":"kernel-groups","keys":["g1"]}
{"id":6,"target":"h100","kind":"kernel-groups","keys":["g2"]}'
ordered=$(bash scripts/device/order-misses.sh <<< "$asked")
[[ "$ordered" == "$expected" ]] || fail "got:
$ordered"
echo "order_misses_test: 7 asked, 6 kept, in the card's order"
