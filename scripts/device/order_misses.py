#!/usr/bin/env python3
"""Orders timing requests for the card's short time, and times each kernel group once.

pet-gpu measure stops at its deadline wherever it is (a later run continues with --skip-timed), so
what outlives the next export comes first: the cleaned inputs' in-context runs and the kernel
groups, keyed by what they compute, which price every later program; then the selection's and the
ranked programs' end-to-end runs, programs chosen on the estimates of the DB the kit was made with,
which the next export replaces once the groups are timed. Each kind keeps the order it was asked.
A request asked twice is kept once. A kernel group (a key) that an earlier kernel-groups request already times is dropped from the later
ones with its model, since pet-profile --import makes one DB entry per key; a request left without
keys goes. The kept requests are numbered from 1.

usage: order_misses.py < requests (one JSON line each, with or without ids) > misses.jsonl
"""
import json
import sys

GROUPS = "kernel-groups"
RANKS = {"in-context": 0, GROUPS: 1, "selection": 2, "ranked": 3}


def asked_requests(lines):
    """The requests once each, without their ids, in the order asked."""
    seen, requests = set(), []
    for line in lines:
        if not line.strip():
            continue
        request = json.loads(line)
        request.pop("id", None)
        text = json.dumps(request, sort_keys=True)
        if text not in seen:
            seen.add(text)
            requests.append(request)
    return requests


def without_timed_groups(request, timed):
    """A kernel-groups request less the keys an earlier one times; None when none are left."""
    keep = [i for i, key in enumerate(request["keys"]) if key not in timed]
    timed.update(request["keys"][i] for i in keep)
    if not keep:
        return None
    if len(keep) < len(request["keys"]):
        request = dict(request, keys=[request["keys"][i] for i in keep],
                       models=[request["models"][i] for i in keep])
    return request


def ordered(requests):
    ranked = sorted(enumerate(requests), key=lambda pair: (RANKS.get(pair[1]["kind"], len(RANKS)), pair[0]))
    timed, kept = set(), []
    for _, request in ranked:
        if request["kind"] == GROUPS and not request.get("first_is_reference", False):
            request = without_timed_groups(request, timed)
        if request is not None:
            kept.append(request)
    return kept


def main():
    for number, request in enumerate(ordered(asked_requests(sys.stdin)), start=1):
        print(json.dumps({"id": number, **request}, separators=(",", ":"), ensure_ascii=False))


if __name__ == "__main__":
    main()
