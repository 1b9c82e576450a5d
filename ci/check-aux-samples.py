#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Decode the AUX samples that tools/tests/aux-sample-dump.c printed.

Reads the AUXS lines of a boot log, rebuilds each sample payload, checks
its CRC, that its PERF_SAMPLE_TID/CPU are the sampling thread's and its
size the one perf core promises, and runs `etedec --aux-sample` on it:
zeros only at the front, no packet errors from the first A-Sync on, and
no context ID but the thread's, timestamps that do not go back. Prints
KTAP, two results per sample size of the dump's plan. The first passes
when no sample is bad, every thread has a checked sample, and at least 90%
of the samples with trace are checked (a sample without an A-Sync and a
context ID after it cannot be). The second is about recency: a sample
holds the trace since the sink was last restarted, after the sample
before it, so each timestamp decoded from a thread's sample is later than
every timestamp of its earlier samples (the trace unit of the dump puts
one in every sync sequence and at every exception); it passes when that
holds and every thread has two samples with timestamps.

With --latest, decode the samples of tools/tests/aux-sample-latest.c
instead, each taken at the page fault of a known store, and check that
each one holds the latest trace: it must end with the Exception packet of
the fault, whose return address is the sample's IP, the store of the
touch_*() function of the sample's iteration, right after the address of
that function (the target of the BLR that called it) and the 8 atoms of
the iteration number; if an after_*() function, called after each fault,
is in the sample, the last one must be that of the previous iteration.
One result per sample size; a size passes when all the samples the boot
promised are there, and each decodes and ends as it must.
Usage: check-aux-samples.py [--latest] LOG ETEDEC WORKDIR
"""
import base64
import collections
import os
import re
import subprocess
import sys
import zlib

DUMP_FIELDS = ("size", "thread_cpu", "thread_tid", "cpu", "tid", "bytes", "zeros", "crc")
LATEST_FIELDS = ("size", "iter", "ip", "thread_cpu", "thread_tid", "cpu", "tid", "bytes",
                 "zeros", "crc")
# perf core caps a sample at 64KiB less its header, TID, CPU and size fields
MAX_PAYLOAD = (65535 - 4 * 8) & ~7
# and, for those of aux-sample-latest, its IP field
MAX_PAYLOAD_IP = (65535 - 5 * 8) & ~7
MIN_CHECKED = 0.9


def read_dump(path, prefix="AUXS", fields=DUMP_FIELDS):
    """Return the plan (the numbers of the plan line), the other lines of
    the dump that are not samples, and the samples, in the order printed."""
    line_re = re.compile(rf"^{prefix} (\d+) (begin|data|end) ?(.*)$")
    plan_re = re.compile(rf"^{prefix} plan((?: \d+)+)$")
    plan, other, samples, cur = None, [], [], {}
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n")
            m = plan_re.match(line)
            if m:
                plan = [int(x) for x in m.group(1).split()]
                continue
            m = line_re.match(line)
            if not m:
                if line.startswith(prefix + " "):
                    other.append(line)
                continue
            n, what, rest = int(m.group(1)), m.group(2), m.group(3)
            if what == "begin":
                cur[n] = {k: int(v, 16 if k in ("crc", "ip") else 10)
                          for k, v in zip(fields, rest.split())}
                cur[n]["b64"] = []
            elif what == "data" and n in cur:
                cur[n]["b64"].append(rest)
            elif what == "end" and n in cur:
                s = cur.pop(n)
                try:
                    s["data"] = bytes(s["zeros"]) + base64.b64decode("".join(s["b64"]))
                except ValueError:
                    s["data"] = b""
                samples.append(s)
    return plan, other, samples


def check(s, etedec, workdir, max_payload=MAX_PAYLOAD):
    """Classify one sample: good, bad, unchecked (no sync point) or empty."""
    data = s["data"]
    if len(data) != s["bytes"] or zlib.crc32(data) != s["crc"]:
        return "bad", "payload garbled on the console (CRC or length mismatch)"
    want = min(s["size"], max_payload)
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
    m = re.search(r"(\d+) timestamps from (\d+) to (\d+)", out)
    if m and int(m.group(1)):
        s["ts"] = (int(m.group(2)), int(m.group(3)))
    return {0: "good", 3: "unchecked"}.get(r.returncode, "bad"), out


def recency(samples, size):
    """Check that each sample of a thread holds only newer trace than the
    ones before it; return (ok, diagnostics)."""
    diags, ordered, stale = [], collections.Counter(), 0
    last = {}
    for s in (s for s in samples if s["size"] == size and "ts" in s):
        tid = s["thread_tid"]
        first, end = s["ts"]
        if tid in last:
            ordered[tid] += 1
            if first <= last[tid]:
                stale += 1
                diags.append(f"# stale: sample of thread {tid} on cpu {s['thread_cpu']}: "
                             f"timestamps {first} to {end}, the samples before it "
                             f"reached {last[tid]}")
        last[tid] = max(last.get(tid, 0), end)
    threads = {s["thread_tid"] for s in samples if s["size"] == size}
    diags.append(f"# {size} byte samples: {sum(ordered.values())} ordered by timestamp "
                 f"after an earlier one, {stale} not newer than the samples before them")
    ok = not stale and len(threads) > 1 and all(ordered[t] for t in threads)
    return ok, diags


def check_latest(s, funcs, etedec, workdir):
    """Does a sample of aux-sample-latest end with the trace of its fault?"""
    verdict, out = check(s, etedec, workdir, MAX_PAYLOAD_IP)
    if verdict != "good":
        return False, f"{verdict}: {out}"
    it, letter = s["iter"], "ab"[s["iter"] & 1]
    entry, store = funcs[f"touch_{letter}"], funcs[f"touch_{letter}_store"]
    prev_after = funcs[f"after_{'ab'[(it - 1) & 1]}"]
    afters = {funcs["after_a"], funcs["after_b"]}
    if s["ip"] != store:
        return False, f"IP {s['ip']:#x}, not the store of touch_{letter}() at {store:#x}"
    m = re.search(r"aux-sample: last:([^/]*)", out)
    tail = m.group(1).split() if m else []
    why = f"iteration {it}, touch_{letter}() at {entry:#x}, store at {store:#x}; ends:"
    why += " " + " ".join(tail[-8:])
    # The Exception packet of the fault, nothing after it
    if not tail or tail[-1] != f"X:{store:#x}":
        return False, why
    # Back to the BLR target touch_*(): the atoms of the TBNZs, maybe cut
    # by an interrupt in touch_*() (its Exception and where trace resumes)
    atoms, i = "", len(tail) - 2
    while i >= 0 and not tail[i] == f"A:{entry:#x}":
        kind, val = tail[i][0], tail[i].split(":")[1]
        if kind == "T" or entry <= int(val, 16) <= store:
            atoms = (val if kind == "T" else "") + atoms
            i -= 1
            continue
        return False, why
    bits = "".join("E" if it >> b & 1 else "N" for b in range(8))
    if i < 0 or atoms != bits:
        return False, f"{why} (atoms {atoms or 'none'}, not {bits})"
    # The last after_*() before it, if any, ran after the previous fault
    last_after = [int(t[2:], 16) for t in tail[:i] if t[:2] == "A:" and int(t[2:], 16) in afters]
    if last_after and last_after[-1] != prev_after:
        return False, f"{why} (after_*() at {last_after[-1]:#x}, not {prev_after:#x})"
    return True, why


def main_latest(log, etedec, workdir):
    os.makedirs(workdir, exist_ok=True)
    plan, other, samples = read_dump(log, "AUXL", LATEST_FIELDS)
    print("KTAP version 1\n# aux_sample_latest_decode")
    if not plan:
        print("1..1\n# no AUXL plan line in " + log)
        print("not ok 1 aux_sample_latest_decode.samples_printed")
        return 1
    funcs = {}
    for line in other:
        if line.startswith("AUXL functions "):
            funcs = {k: int(v, 16) for k, v in (x.split("=") for x in line.split()[2:])}
    nr, sizes = plan[0], plan[1:]
    print(f"1..{len(sizes)}")
    failed = 0
    for i, size in enumerate(sizes, 1):
        good = bad = 0
        for s in (s for s in samples if s["size"] == size):
            ok, why = check_latest(s, funcs, etedec, workdir) if funcs else (False, "no functions")
            good += ok
            bad += not ok
            if not ok and bad <= 5:
                print(f"# bad: sample at {s['ip']:#x} of thread {s['thread_tid']}: {why}")
        print(f"# {size} byte samples: {good + bad} of {nr}, {good} end with the trace "
              f"of their fault, {bad} do not")
        ok = good == nr and not bad
        failed += not ok
        # The samples taken at page faults end with the trace of the
        # faulting store: its function, iteration and IP
        print(f"{'ok' if ok else 'not ok'} {i} aux_sample_latest_decode.{size}_bytes")
    return 1 if failed else 0


def main(argv):
    if argv[:1] == ["--latest"]:
        return main_latest(*argv[1:])
    log, etedec, workdir = argv
    os.makedirs(workdir, exist_ok=True)
    plan, _, samples = read_dump(log)
    print("KTAP version 1\n# aux_sample_decode")
    if not plan:
        print("1..1\n# no AUXS plan line in " + log)
        print("not ok 1 aux_sample_decode.samples_printed")
        return 1
    print(f"1..{2 * len(plan)}")
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
        # The samples decode from their first A-Sync with the sampled
        # thread's context IDs only
        print(f"{'ok' if ok else 'not ok'} {2 * i - 1} aux_sample_decode.{size}_bytes.context_ids")
        ok, diags = recency(samples, size)
        failed += not ok
        print("\n".join(diags))
        # The samples hold only trace newer than the samples of their
        # thread before them
        print(f"{'ok' if ok else 'not ok'} {2 * i} aux_sample_decode.{size}_bytes.newer_trace")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
