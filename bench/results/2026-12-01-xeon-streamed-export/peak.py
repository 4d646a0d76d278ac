#!/usr/bin/env python3
"""Runs a command; prints its wall seconds, its own peak resident MiB (VmHWM, polled) and the peak of
its process tree's summed resident MiB (itself and its descendants, polled every 0.1 s)."""
import os, subprocess, sys, time

def children(pid):
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out

def rss_kb(pid, key="VmRSS"):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0

start = time.time()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=open("/tmp/w55/last.log", "w"))
hwm = tree = 0
while proc.poll() is None:
    hwm = max(hwm, rss_kb(proc.pid, "VmHWM"))
    todo, total = [proc.pid], 0
    while todo:
        p = todo.pop()
        total += rss_kb(p)
        todo += children(p)
    tree = max(tree, total)
    time.sleep(0.1)
print(f"rc {proc.returncode} wall {time.time()-start:.1f} s, own peak {hwm/1024:.0f} MiB, tree peak {tree/1024:.0f} MiB")
