#!/usr/bin/env bash
# Orders timing requests for the card's short time: pet-gpu measure stops at its deadline wherever
# it is, so the requests that decide what is written come first (the selection's end-to-end runs,
# then the in-context runs, the ranked programs) and kernel groups last, each kind in the order it
# was asked; a request asked twice is kept once, and the kept ones are numbered from 1.
# usage: order-misses.sh < requests without ids (one JSON line each) > misses.jsonl
set -euo pipefail
awk '!seen[$0]++ {
       rank = 3
       if ($0 ~ /"kind":"selection"/) rank = 0; else if ($0 ~ /"kind":"in-context"/) rank = 1
       else if ($0 ~ /"kind":"ranked"/) rank = 2
       printf "%d\t%d\t%s\n", rank, NR, $0
     }' | sort -t $'\t' -k1,1n -k2,2n | cut -f3- | awk '{ printf "{\"id\":%d,%s\n", ++n, substr($0, 2) }'
