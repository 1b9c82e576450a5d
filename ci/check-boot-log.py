#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fail if a boot log shows a kernel splat or did not finish the boot tests.

Usage: check-boot-log.py [--allow-warning REGEX]... LOG

--allow-warning leaves out the WARN splats ("cut here" to "end trace")
whose WARNING line matches REGEX: for a boot of a kernel that lacks a fix
which a boot test shows, see ci/prove-tests-fail.sh.
"""
import re
import sys

# What the kernel prints when something went wrong, whatever the test said
SPLATS = [
    r"------------\[ cut here \]------------",
    r"WARNING: .* at ",
    r"\bBUG: ",
    r"kernel BUG at",
    r"Internal error: ",
    r"Unable to handle kernel",
    r"Kernel panic - not syncing",
    r"possible recursive locking detected",
    r"possible circular locking dependency",
    r"inconsistent lock state",
    r"suspicious RCU usage",
    r"INFO: task .* blocked for more than",
    r"watchdog: BUG: soft lockup",
    r"rcu: INFO: rcu_.* detected stalls",
    r"UBSAN: ",
    r"KASAN: ",
    r"Call trace:",
]
SPLAT_RE = re.compile("|".join(SPLATS))
CUT_HERE = "------------[ cut here ]------------"
END_TRACE = "---[ end trace"
# Tests and the fuzzer echo splat lines from /dev/kmsg as KTAP diagnostics
# ("# kernel: ...", or nested by the kselftest runner, "# # FILE:LINE:...
# kernel: ..."): copies of kernel lines that are in the log themselves.
# The kernel's own splat lines never start with "#".
ECHO = "#"


def allowed_lines(lines, allow):
    """The numbers of the lines of the WARN splats that @allow matches."""
    skip = set()
    i = 0
    while i < len(lines):
        if CUT_HERE not in lines[i] or lines[i].startswith(ECHO):
            i += 1
            continue
        end = next((j for j in range(i, len(lines)) if END_TRACE in lines[j]),
                   len(lines) - 1)
        warning = next((l for l in lines[i:end + 1] if "WARNING: " in l), "")
        if any(re.search(a, warning) for a in allow):
            print(f"allowed: {warning.strip()}")
            skip.update(range(i, end + 1))
        i = end + 1
    return skip


def main(argv):
    allow = []
    while len(argv) > 2 and argv[0] == "--allow-warning":
        allow.append(argv[1])
        argv = argv[2:]
    if len(argv) != 1:
        print(__doc__)
        return 2
    path = argv[0]
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    skip = allowed_lines(lines, allow) if allow else set()
    splats = [(n + 1, l) for n, l in enumerate(lines)
              if n not in skip and not l.startswith(ECHO) and SPLAT_RE.search(l)]
    for n, l in splats[:20]:
        print(f"{path}:{n}: {l}")
    if splats:
        print(f"{len(splats)} splat line(s) in {path}")
        return 1
    if not any("# boot tests: done" in l for l in lines):
        print(f"{path}: the boot did not reach the end of the boot tests")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
