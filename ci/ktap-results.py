#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the KTAP results in boot logs: KUnit, then the boot tests.

Only leaf results count: a result line that closes nested results (a
suite, or a parameterised test) is not a test of its own. Prints one line
per failed test and, last, "N passed, N failed, N skipped".
Usage: ktap-results.py [--summary FILE] LOG...
"""
import re
import sys

RESULT = re.compile(r"^(\s*)(not ok|ok) (\d+) ?(?:- )?([^#]*?)\s*(?:#\s*(SKIP|TODO).*)?$")
SUBTEST = re.compile(r"^\s*# Subtest: (.*)$")
TIME = re.compile(r"^\[\s*\d+\.\d+\] ?")


def parse(path):
    """Yield (name, status) for every leaf result in the log."""
    last_indent = -1
    subtests = {}       # indent -> name of the subtest whose results it has
    with open(path, errors="replace") as f:
        for raw in f:
            line = TIME.sub("", raw.rstrip("\r\n"))
            indent = len(line) - len(line.lstrip())
            m = SUBTEST.match(line)
            if m:
                subtests = {i: n for i, n in subtests.items() if i < indent}
                subtests[indent] = m.group(1)
                continue
            m = RESULT.match(line)
            if not m:
                continue
            if indent < last_indent:
                last_indent = indent  # closes a suite or parameterised test
                continue
            last_indent = indent
            if m.group(5) == "SKIP":
                status = "skipped"
            else:
                status = "passed" if m.group(2) == "ok" else "failed"
            path_names = [n for i, n in sorted(subtests.items()) if i <= indent]
            yield ".".join(path_names + [m.group(4)]), status


def main(argv):
    summary = None
    if argv[:1] == ["--summary"]:
        summary, argv = argv[1], argv[2:]
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for path in argv:
        for name, status in parse(path):
            counts[status] += 1
            if status == "failed":
                print(f"FAILED: {name}")
    line = f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
    if summary:
        with open(summary, "w") as f:
            f.write(line + "\n")
    print(line)
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
