#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Decode the AUX samples that tools/tests/aux-sample-dump.c printed.

Reads the AUXS lines of a boot log, rebuilds each sample payload, checks
its CRC, that its PERF_SAMPLE_TID/CPU are the sampling thread's and its
size the one perf core promises, and runs `etedec --aux-sample` on it:
zeros only at the front, no packet errors from the first A-Sync on, and
no context ID but the thread's. Prints KTAP, one result per sample size
of the dump's plan; a size passes when no sample is bad, every thread has
a checked sample, and at least 90% of the samples with trace are checked
(a sample without an A-Sync and a context ID after it cannot be).
Usage: check-aux-samples.py LOG ETEDEC WORKDIR
"""
import base64
import collections
import os
import re
import subprocess
import sys
import zlib

LINE = re.compile(r"^AUXS (\d+) (begin|data|end) ?(.*)$")
PLAN = re.compile(r"^AUXS plan((?: \d+)+)$")
# perf core caps a sample at 64KiB less its header, TID, CPU and size fields
MAX_PAYLOAD = (65535 - 4 * 8) & ~7
MIN_CHECKED = 0.9


def read_dump(path):
    """Return the plan (sample sizes) and the samples, in the order printed."""
    plan, samples, cur = None, [], {}
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n")
            m = PLAN.match(line)
            if m:
                plan = [int(x) for x in m.group(1).split()]
                continue
            m = LINE.match(line)
            if not m:
                continue
            n, what, rest = int(m.group(1)), m.group(2), m.group(3)
            if what == "begin":
                f_ = rest.split()
                cur[n] = {"size": int(f_[0]), "thread_cpu": int(f_[1]),
                          "thread_tid": int(f_[2]), "cpu": int(f_[3]),
                          "tid": int(f_[4]), "bytes": int(f_[5]),
                          "zeros": int(f_[6]), "crc": int(f_[7], 16), "b64": []}
            elif what == "data" and n in cur:
                cur[n]["b64"].append(rest)
            elif what == "end" and n in cur:
                s = cur.pop(n)
                try:
                    s["data"] = bytes(s["zeros"]) + base64.b64decode("".join(s["b64"]))
                except ValueError:
                    s["data"] = b""
                samples.append(s)
    return plan, samples


def check(s, etedec, workdir):
    """Classify one sample: good, bad, unchecked (no sync point) or empty."""
    data = s["data"]
    if len(data) != s["bytes"] or zlib.crc32(data) != s["crc"]:
        return "bad", "payload garbled on the console (CRC or length mismatch)"
    want = min(s["size"], MAX_PAYLOAD)
    if s["bytes"] != want:
        return "bad", f"{s['bytes']} bytes, not {want}"
    if s["tid"] != s["thread_tid"] or s["cpu"] != s["thread_cpu"]:
        return "bad", (f"sample of tid {s['tid']} cpu {s['cpu']}, taken by "
                       f"thread {s['thread_tid']} on cpu {s['thread_cpu']}")
    if s["zeros"] == len(data):
        return "empty", "all zeros"
    path = os.path.join(workdir, "sample.bin")
    with open(path, "wb") as f:
        f.write(data)
    r = subprocess.run([etedec, "--aux-sample", path, str(s["thread_tid"])],
                       capture_output=True, text=True)
    out = " / ".join(r.stdout.strip().splitlines())
    m = re.search(r"first A-Sync at (\d+)", out)
    if m and r.returncode == 0:
        s["decoded"] = len(data) - max(int(m.group(1)), s["zeros"])
    return {0: "good", 3: "unchecked"}.get(r.returncode, "bad"), out


def main(argv):
    log, etedec, workdir = argv
    os.makedirs(workdir, exist_ok=True)
    plan, samples = read_dump(log)
    print("KTAP version 1\n# aux_sample_decode")
    if not plan:
        print("1..1\n# no AUXS plan line in " + log)
        print("not ok 1 the boot printed AUX samples")
        return 1
    print(f"1..{len(plan)}")
    failed = 0
    for i, size in enumerate(plan, 1):
        counts = collections.Counter()
        threads = collections.defaultdict(int)
        for s in (s for s in samples if s["size"] == size):
            verdict, why = check(s, etedec, workdir)
            counts[verdict] += 1
            threads[s["thread_tid"]] += verdict == "good"
            if verdict == "bad" or (verdict == "unchecked" and counts[verdict] <= 3):
                print(f"# {verdict}: sample of thread {s['thread_tid']} "
                      f"on cpu {s['thread_cpu']}: {why}")
        with_trace = counts["good"] + counts["bad"] + counts["unchecked"]
        trace = sum(len(s["data"]) - s["zeros"] for s in samples if s["size"] == size)
        decoded = sum(s.get("decoded", 0) for s in samples if s["size"] == size)
        print(f"# {size} byte samples: {sum(counts.values())} from {len(threads)} threads, "
              f"{counts['good']} checked and good, {counts['bad']} bad, "
              f"{counts['unchecked']} without a sync point, {counts['empty']} all zeros; "
              f"{decoded} of {trace} bytes after the zeros decoded")
        ok = (with_trace > 0 and not counts["bad"] and len(threads) > 1 and
              all(threads.values()) and counts["good"] >= MIN_CHECKED * with_trace)
        failed += not ok
        print(f"{'ok' if ok else 'not ok'} {i} {size} byte samples decode from their "
              f"first A-Sync with the sampled thread's context IDs only")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
