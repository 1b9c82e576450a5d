#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Decode the AUX buffers that tools/etr-share printed in a boot log.

Each recording of etr-share is a group of per-thread buffers, named
GROUP-SUFFIX, each of one thread or process (its TID/PID as "pid"). Every
buffer is decoded and checked as ci/check-trace.py checks a per-thread
buffer: 0 errors, context IDs of the traced thread only, trace IDs that
perf gave; and here also: the traced thread is in its own buffer, and the
group has at least as many buffers with trace as the table below says.
For a group with an "ETRSHARE-ROUND name=GROUP splats=N truncated=N" line
in the log, the events of the round must also have lost no trace and the
kernel must not have complained: a sink that two events share either
mixes their trace into one buffer or loses the trace of one of them.
Prints one KTAP result per group.
Usage: check-etr-share.py ETEDEC LOG OUTDIR [PROGRAM]
"""
import contextlib
import importlib.util
import io
import os
import sys

# (group, buffers that must have trace, KTAP name)
# (round, buffers needed, test name): one session, two threads, the ETR's
# claimer stops last (first): each AUX buffer holds its own thread's trace
# only, none lost, no WARN; two sessions: each AUX buffer decodes with 0
# errors and has its own PID only
GROUPS = [
    ("threads-owner-last", 1, "etr_share_trace.threads_owner_last"),
    ("threads-owner-first", 1, "etr_share_trace.threads_owner_first"),
    ("sessions", 1, "etr_share_trace.two_sessions"),
]


def load_check_trace():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "check-trace.py")
    spec = importlib.util.spec_from_file_location("check_trace", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(etedec, log, outdir, program=None):
    ct = load_check_trace()
    os.makedirs(outdir, exist_ok=True)
    found = {g: [] for g, _, _ in GROUPS}
    rounds = {}
    with open(log, errors="replace") as f:
        for line in f:
            if line.startswith("ETRSHARE-ROUND "):
                kv = dict(x.split("=", 1) for x in line.split()[1:])
                rounds[kv["name"]] = kv
    for header, data, problems in ct.buffers(log):
        name = header["name"]
        group = next((g for g, _, _ in GROUPS if name.startswith(g + "-")),
                     None)
        if group is None:
            print(f"# {name}: not a buffer of etr-share")
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            problems += ct.check(etedec, header, data, outdir, program)
        for line in out.getvalue().splitlines():
            print(f"# {line}")
        # ct.check() collects the context IDs per name before the first "."
        if int(header["pid"]) not in ct.recording_cids.get(name, set()):
            problems.append(f"the traced TID {header['pid']} is not in its "
                            "own trace")
        for p in problems:
            print(f"#   {name}: {p}")
        found[group].append(not problems)

    print("KTAP version 1")
    print("# etr-share trace decoding")
    print(f"1..{len(GROUPS)}")
    failed = 0
    for i, (group, want, title) in enumerate(GROUPS, 1):
        ok = len(found[group]) >= want and all(found[group])
        print(f"# {group}: {len(found[group])} buffers with trace, "
              f"{found[group].count(False)} failed, {want} needed")
        if group in rounds:
            r = rounds[group]
            print(f"# {group}: {r['splats']} splats in the kernel log, "
                  f"{r['truncated']} TRUNCATED AUX records")
            ok = ok and r["splats"] == "0" and r["truncated"] == "0"
        elif group.startswith("threads"):
            print(f"# {group}: no ETRSHARE-ROUND line in the log")
            ok = False
        print(f"{'ok' if ok else 'not ok'} {i} {title}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
