#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fail if a boot log shows a kernel splat or did not finish the boot tests."""
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
# Tests and the fuzzer echo splat lines from /dev/kmsg as KTAP diagnostics:
# copies of kernel lines that are in the log themselves
ECHO = "# kernel: "


def main(path):
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    splats = [(n + 1, l) for n, l in enumerate(lines)
              if not l.startswith(ECHO) and SPLAT_RE.search(l)]
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
    sys.exit(main(sys.argv[1]))
