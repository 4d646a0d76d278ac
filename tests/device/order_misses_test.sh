#!/usr/bin/env bash
# order_misses.py: before, requests in the order the runs asked them (groups first, one asked twice,
# a group key asked by two requests); after, in-context → kernel groups → selection → ranked, each
# kind in asked order, once each, each group key once (with its model), numbered.
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "order_misses_test: $*" >&2; exit 1; }

asked='{"id":7,"target":"h100","kind":"kernel-groups","keys":["g1"],"models":["m1"]}
{"target":"h100","kind":"in-context","keys":["c1"],"models":["mc"]}
{"target":"h100","kind":"kernel-groups","keys":["g2","g1","g3"],"models":["m2","m1","m3"]}
{"target":"h100","kind":"selection","keys":["s1"],"models":["ms"]}
{"target":"h100","kind":"ranked","keys":["r1"],"models":["mr"]}
{"target":"h100","kind":"kernel-groups","keys":["g1"],"models":["m1"]}
{"target":"h100","kind":"kernel-groups","keys":["g3","g2"],"models":["m3","m2"]}
{"target":"h100","kind":"selection","keys":["s2"],"models":["ms2"]}'
expected='{"id":1,"target":"h100","kind":"in-context","keys":["c1"],"models":["mc"]}
{"id":2,"target":"h100","kind":"kernel-groups","keys":["g1"],"models":["m1"]}
{"id":3,"target":"h100","kind":"kernel-groups","keys":["g2","g3"],"models":["m2","m3"]}
{"id":4,"target":"h100","kind":"selection","keys":["s1"],"models":["ms"]}
{"id":5,"target":"h100","kind":"selection","keys":["s2"],"models":["ms2"]}
{"id":6,"target":"h100","kind":"ranked","keys":["r1"],"models":["mr"]}'
ordered=$(python3 scripts/device/order_misses.py <<< "$asked")
[[ "$ordered" == "$expected" ]] || fail "got:
$ordered"
echo "order_misses_test: 8 asked, 6 kept (one repeated request and one whose groups were all timed before dropped, one group key dropped from a request), in the card's order"
